/// A clip as stitch copies and renders it: cut to its shortest track as fix would, its presented frames in
/// order between the in and out points, its audio cut to the same span.
public struct StitchSource: Sendable, Equatable {
    public var path: String
    public var video: TrackCut
    /// Every audio track's cut, in track order (a second language, commentary).
    public var audio: [TrackCut]
    /// Presented frames in presentation order (pts on the video's timeline; a re-timed first frame included),
    /// between the in and out points.
    public var frames: [SampleTiming]
    /// All the cut's presented frames: keyframes before an in point are found here.
    public var allFrames: [SampleTiming]
    /// Index in `allFrames` of `frames[0]` (the in point).
    public var inOffset: Int
    /// Decode times of the clip's frames shown after its cut's end (a P-frame the last B-frames lean on, kept by a
    /// stream-copy cut that ends mid-GOP): a copy that reads past one would show it.
    public var shownAfterEnd: [Int64] = []
    /// An out point removed frames at the end: the copy must stop at a safe cut.
    public var trimmedEnd: Bool
    /// One frame, in ticks of the video's timeline.
    public var frameTicks: Int64
    /// The clock of the video's packets (the timeline's, for video).
    public var timeBase: Rational
    public var frameRate: Rational
    /// A variable frame rate (a screen recording's frames at 30 and then 15 fps): its shortest and longest frame
    /// step, ticks. Stitch copies constant rates only; --normalize shows, at each output instant, the frame the
    /// clip shows then.
    public var variableSteps: (shortest: Int64, longest: Int64)?

    public var frameCount: Int { frames.count }

    /// The cut as figures a saved plan holds it to (`StitchPlanValue.cuts`): the presented frames, the first's and
    /// the last's presentation times, and each track's kept decode times.
    public var cutFigures: [Int64] {
        [Int64(frames.count), frames.first?.pts ?? 0, frames.last?.pts ?? 0]
            + ([video] + audio).flatMap { [$0.keepFrom, $0.keepThrough] }
    }
    /// Whether copying the clip's cut would keep frames it does not present (references of its last frames).
    public var framesAfterEnd: Bool { video.last - video.first + 1 > allFrames.count }

    public init(
        path: String, video: TrackCut, audio: [TrackCut], frames: [SampleTiming], allFrames: [SampleTiming],
        inOffset: Int, trimmedEnd: Bool, frameTicks: Int64, timeBase: Rational, frameRate: Rational
    ) {
        self.path = path
        self.video = video
        self.audio = audio
        self.frames = frames
        self.allFrames = allFrames
        self.inOffset = inOffset
        self.trimmedEnd = trimmedEnd
        self.frameTicks = frameTicks
        self.timeBase = timeBase
        self.frameRate = frameRate
    }

    /// The clip's fix plan, its video timeline and frame rate made into a source. `in`/`out`: seconds into the
    /// clip (after its cut), rounded to frames. A variable frame rate is said (`variableSteps`): the stitch's
    /// differences refuse it unless --normalize re-times it.
    public static func make(
        path: String, plan: FixPlan, video timeline: TrackTimeline, frameRate fps: Rational,
        in inPoint: Rational? = nil, out outPoint: Rational? = nil
    ) throws -> StitchSource {
        guard var video = plan.tracks.first(where: { $0.kind == .video }) else { throw PlanError("no video track") }
        let rendersTail = video.tail != nil
        video = rendered(video, timeline: timeline)
        let end = Rational(video.mediaStart) + video.duration / video.timeBase
        var frames = timeline.samples.filter {
            !$0.isDiscarded && Rational($0.pts + $0.duration) > Rational(video.mediaStart) && Rational($0.pts) < end
        }
        .sorted { $0.pts < $1.pts }
        if let retimed = video.retimedFirstPts, !frames.isEmpty { frames[0].pts = retimed }
        // Constant frame rate, allowing one tick of rounding (Matroska's milliseconds give 33/34 ms at 30 fps).
        // A first frame the cut starts inside (after hidden priming) is shorter: that is the cut, not the rate.
        let steps = zip(frames, frames.dropFirst()).map { $1.pts - $0.pts }.dropFirst(
            video.retimedFirstPts == nil ? 0 : 1)
        let step = TrackTimeline(timeBase: Rational(1), samples: frames).nominalDuration ?? frames.first?.duration ?? 0
        let shortest = steps.min() ?? step
        let longest = steps.max() ?? step
        guard step > 0 else { throw PlanError("the video's frames have no duration") }
        // In and out points, on the frame grid.
        let first = inPoint.map { Int(($0 * fps).rounded) } ?? 0
        let last = outPoint.map { min(Int(($0 * fps).rounded), frames.count) } ?? frames.count
        guard first >= 0, first < last else {
            throw PlanError("the in and out points leave no frame (the clip has \(frames.count))")
        }
        let audio = plan.tracks.filter { $0.kind == .audio }.map { cut -> TrackCut in
            guard let rate = cut.sampleRate, first > 0 || last < frames.count else { return cut }
            var a = cut
            let perSample = Rational(1, Int64(rate)) / a.timeBase
            a.mediaStart += (Rational(Int64(first)) / fps * Int64(rate) * perSample).rounded
            a.duration = Rational(Int64(last - first)) / fps
            return a
        }
        var source = StitchSource(
            path: path, video: video, audio: audio, frames: Array(frames[first..<last]), allFrames: frames,
            inOffset: first, trimmedEnd: last < frames.count || rendersTail, frameTicks: step, timeBase: video.timeBase,
            frameRate: fps)
        if FrameSteps.vary(shortest: shortest, longest: longest) { source.variableSteps = (shortest, longest) }
        source.shownAfterEnd = timeline.samples.filter { Rational($0.pts) >= end }.map(\.dts)
        return source
    }

    /// The clip's video cut with the frames fix would encode again read whole instead, for stitch renders them
    /// itself: a cut fix ends by encoding the last GOP again (Matroska's stream-copy cut, whose last GOP leans on a
    /// frame after the cut) is read to the track's last packet, its copy stopped at a safe cut (as at an out point);
    /// one fix starts by encoding frames again (a recording's sound starts after its only keyframe) is decoded from
    /// that keyframe, nothing before the next keyframe copied.
    static func rendered(_ cut: TrackCut, timeline: TrackTimeline) -> TrackCut {
        var video = cut
        if video.tail != nil, let lastDecoded = timeline.samples.indices.last {
            video.tail = nil
            video.last = lastDecoded
            video.keepThrough = timeline.samples[lastDecoded].dts
        }
        if let head = video.head {
            video.head = nil
            video.keepFrom = head.decodeFromDts
            if let key = timeline.samples.firstIndex(where: { $0.dts == head.decodeFromDts }) { video.first = key }
            if video.keepThrough < video.keepFrom, let last = timeline.samples.indices.last {
                video.last = last
                video.keepThrough = timeline.samples[last].dts
            }
        }
        return video
    }

    public static func == (a: StitchSource, b: StitchSource) -> Bool {
        a.path == b.path && a.video == b.video && a.audio == b.audio && a.frames == b.frames
            && a.allFrames == b.allFrames && a.inOffset == b.inOffset && a.shownAfterEnd == b.shownAfterEnd
            && a.trimmedEnd == b.trimmedEnd
            && a.frameTicks == b.frameTicks && a.timeBase == b.timeBase && a.frameRate == b.frameRate
            && a.variableSteps?.shortest == b.variableSteps?.shortest
            && a.variableSteps?.longest == b.variableSteps?.longest
    }

    /// Seconds the clip presents between its in and out points: to where its last frame ends, or the cut does.
    public var presentedSeconds: Rational {
        guard let head = frames.first, let tail = frames.last else { return .zero }
        let cutEnd = Rational(video.mediaStart) + video.duration / timeBase
        return (Rational.min(Rational(tail.pts + tail.duration), cutEnd) - Rational(head.pts)) * timeBase
    }

    /// The clip's length in frames of `rate` (the output's), to the nearest frame: its frames at its own rate, or
    /// where the rate varies, its presented time.
    public func outputFrames(rate: Rational) -> Int {
        guard variableSteps == nil else { return Int((presentedSeconds * rate).rounded) }
        return Int((Rational(Int64(frameCount)) / frameRate * rate).rounded)
    }

    /// The frame on screen `seconds` after the clip's first: the last one presented at or before then.
    public func frame(at seconds: Rational) -> Int {
        guard let head = frames.first else { return 0 }
        let ticks = Rational(head.pts) + seconds / timeBase
        var low = 0
        var high = frames.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if Rational(frames[mid].pts) <= ticks { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Decode time of the keyframe at or before presented frame `k` (which may lie before an in point).
    public func keyframeDts(atOrBefore k: Int) -> Int64 {
        let want = frames[min(k, frames.count - 1)].pts
        guard let key = allFrames.filter({ $0.isSync && $0.pts <= want }).max(by: { $0.pts < $1.pts }) else {
            // A cut that starts after its keyframe (a recording's sound starts after its only one) decodes from it.
            return video.keepFrom
        }
        return key.dts
    }

    /// Positions c > start where the frames presented in [start, c) are the first c - start frames in decode
    /// order, with the decode time of the first frame after them.
    public func safeCuts(from start: Int) -> [(index: Int, dts: Int64)] {
        // Over every frame of the cut, not just those between the in and out points: a frame after the out
        // point can come first in decode order (a P-frame before the B-frames that lean on it).
        let later = Array(allFrames[(start + inOffset)...])
        let byDecode = later.indices.sorted { later[$0].dts < later[$1].dts }
        var out: [(Int, Int64)] = []
        var highest = -1
        // (No frame shown after the end may be decoded before the cut: the copy would show it.)
        let after = shownAfterEnd.min() ?? Int64.max
        for (n, presented) in byDecode.enumerated() {
            highest = max(highest, presented)
            // After n+1 frames in decode order, the presented ones are exactly 0...n.
            let next = n + 1 < later.count ? later[byDecode[n + 1]].dts : nil
            if highest == n, let next, next <= after { out.append((start + n + 1, next)) }
        }
        return out
    }
}
