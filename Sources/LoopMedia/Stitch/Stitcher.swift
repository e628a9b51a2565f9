import CFFmpeg
import Foundation
import LoopAnalysis

/// A clip made ready for stitching: cut to its shortest track as fix would, its presented frames in order.
public struct PreparedClip: @unchecked Sendable {
    public let path: String
    public let facts: ClipFacts
    let plan: FixPlan
    let video: TrackCut
    /// Every audio track's cut, in track order (a second language, commentary).
    let audio: [TrackCut]
    /// Presented frames in presentation order (pts in index media time; a re-timed first frame included), between
    /// the in and out points.
    let frames: [SampleTiming]
    /// All the cut's presented frames: keyframes before an in point are found here.
    let allFrames: [SampleTiming]
    /// An out point removed frames at the end: the copy must stop at a safe cut.
    let trimmedEnd: Bool
    /// Index in `allFrames` of `frames[0]` (the in point).
    let inOffset: Int
    let frameTicks: Int64
    let iso: Bool
    let timeBase: AVRational
    let avcc: AVCConfig?
    /// HEVC's configuration (hvcC), where the clip is HEVC.
    var hvcc: HEVCConfig? = nil
    /// What the decoder outputs (MP4 headers do not say without reading frames).
    let pixelFormat: Int32
    /// The probe's timelines, for the packet reader's retiming (empty for MP4/MOV, whose packets have them).
    var timelines: [Int: TrackTimeline] = [:]

    public var frameCount: Int { frames.count }
    var frameRate: Rational { facts.mainVideo?.frameRate ?? Rational(30) }
}

public enum Stitcher {
    /// `in`/`out`: seconds into the clip (after its cut to the shortest track), rounded to frames.
    /// `normalize`: the clip is re-encoded to the output's frame rate, so its own may vary.
    public static func prepare(
        _ path: String, in inPoint: Rational? = nil, out outPoint: Rational? = nil, normalize: Bool = false
    ) throws -> PreparedClip {
        let probe = try Probe.probe(path)
        let plan = try FixPlanner.plan(probe.facts, timelines: probe.timelines)
        guard let video = plan.tracks.first(where: { $0.kind == .video }), let timeline = probe.timelines[video.index]
        else {
            throw MediaError("stitch", reason: "no video track")
        }
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
        guard step > 0, normalize || (steps.max() ?? step) - (steps.min() ?? step) <= 1 else {
            throw MediaError(
                "stitch",
                reason:
                    "variable frame timing (frames of \(Figures.ms(Rational(steps.min() ?? step) * video.timeBase)) to \(Figures.ms(Rational(steps.max() ?? step) * video.timeBase))); stitch copies constant frame rate clips only: --normalize maps it to the first clip's rate"
            )
        }
        guard let input = probe.input else {
            throw MediaError("stitch", reason: "the clip was probed without its input")
        }
        let pixelFormat = try firstFrameFormat(input, stream: video.index)
        // In and out points, on the frame grid.
        let fps = probe.facts.mainVideo?.frameRate ?? Rational(30)
        let first = inPoint.map { Int(($0 * fps).rounded) } ?? 0
        let last = outPoint.map { min(Int(($0 * fps).rounded), frames.count) } ?? frames.count
        guard first >= 0, first < last else {
            throw MediaError("stitch", reason: "the in and out points leave no frame (the clip has \(frames.count))")
        }
        let audio = plan.tracks.filter { $0.kind == .audio }.map { cut -> TrackCut in
            guard let rate = cut.sampleRate, first > 0 || last < frames.count else { return cut }
            var a = cut
            let perSample = Rational(1, Int64(rate)) / a.timeBase
            a.mediaStart += (Rational(Int64(first)) / fps * Int64(rate) * perSample).rounded
            a.duration = Rational(Int64(last - first)) / fps
            return a
        }
        return PreparedClip(
            path: path, facts: probe.facts, plan: plan, video: video, audio: audio,
            frames: Array(frames[first..<last]), allFrames: frames, trimmedEnd: last < frames.count, inOffset: first,
            frameTicks: step, iso: probe.facts.moovBeforeMdat != nil,
            timeBase: input.stream(video.index).pointee.time_base,
            avcc: input.extradata(video.index).flatMap { AVCConfig($0) },
            hvcc: video.codec == "hevc" ? input.extradata(video.index).flatMap { HEVCConfig($0) } : nil,
            pixelFormat: pixelFormat,
            timelines: probe.facts.moovBeforeMdat != nil ? [:] : probe.timelines)
    }

    /// Decodes up to the first frame of a stream to learn its pixel format.
    static func firstFrameFormat(_ input: InputFile, stream: Int) throws -> Int32 {
        let decoder = try Decoder(input, stream: stream)
        let packet = try Packet()
        let frame = try Frame()
        var format: Int32?
        while format == nil, try input.read(into: packet) {
            guard packet.streamIndex == stream else { continue }
            try decoder.decode(packet, into: frame) { f in if format == nil { format = f.pointer.pointee.format } }
        }
        if format == nil {
            try decoder.decode(nil, into: frame) { f in if format == nil { format = f.pointer.pointee.format } }
        }
        guard let format else { throw MediaError("decode", reason: "no video frame decodes") }
        return format
    }

    /// How the clips differ in what stitching needs to be equal: one line per difference. With --normalize only
    /// rotation (which it does not turn) and an encodable first clip matter.
    public static func differences(_ clips: [PreparedClip], normalizing: Bool = false, codec: String? = nil) -> [String]
    {
        // Every audio track is stitched as its own stream, so the clips must agree on them, track for track.
        var extraAudio: [String] = []
        if let first = clips.first {
            let a0 = first.facts.audioTracks
            // The joins are laid on one sample grid: every track at the first one's rate.
            if let rate = a0.first?.sampleRate, let other = a0.first(where: { $0.sampleRate != rate }) {
                extraAudio.append(
                    "\(first.path): its audio tracks differ in sample rate (\(rate) and \(other.sampleRate ?? 0) Hz); stitch needs one rate for all of them"
                )
            }
            for clip in clips.dropFirst() {
                let a = clip.facts.audioTracks
                guard a.count == a0.count else {
                    extraAudio.append(
                        "\(clip.path): \(a.count) audio track\(a.count == 1 ? "" : "s"), where \(first.path) has \(a0.count)"
                    )
                    continue
                }
                for (k, (x, y)) in zip(a0, a).enumerated() where x.language != y.language && a0.count > 1 {
                    extraAudio.append(
                        "\(clip.path): audio track \(k + 1) is in \(y.language ?? "no language"), where \(first.path) has \(x.language ?? "none")"
                    )
                }
            }
        }
        if normalizing {
            var out = extraAudio
            if let codec = codec ?? clips.first?.facts.mainVideo?.codec, VideoEncoder.encoders[codec] == nil {
                out.append(
                    "\(clips.first?.path ?? "?"): --normalize encodes like the first clip, and loopprep encodes H.264, HEVC, VP8, VP9 and AV1; put one of those first"
                )
            }
            let r0 = clips.first?.facts.mainVideo?.rotation ?? 0
            for clip in clips.dropFirst() where (clip.facts.mainVideo?.rotation ?? 0) != r0 {
                out.append(
                    "\(clip.path): rotation \(clip.facts.mainVideo?.rotation ?? 0), where \(clips[0].path) has \(r0)")
            }
            return out
        }
        guard let first = clips.first, let v0 = first.facts.mainVideo else { return extraAudio }
        var out: [String] = extraAudio
        for clip in clips.dropFirst() {
            guard let v = clip.facts.mainVideo else {
                out.append("\(clip.path) has no video")
                continue
            }
            func differ(_ what: String, _ a: String, _ b: String) {
                if a != b { out.append("\(clip.path): \(what) \(b), where \(first.path) has \(a)") }
            }
            differ("codec", v0.codec, v.codec)
            differ("size", "\(v0.width ?? 0)x\(v0.height ?? 0)", "\(v.width ?? 0)x\(v.height ?? 0)")
            differ(
                "pixel format", TransitionGraph.formatName(first.pixelFormat),
                TransitionGraph.formatName(clip.pixelFormat))
            differ("frame rate", v0.frameRate?.description ?? "?", v.frameRate?.description ?? "?")
            differ("rotation", "\(v0.rotation ?? 0)", "\(v.rotation ?? 0)")
            for (k, (a0, a)) in zip(first.facts.audioTracks, clip.facts.audioTracks).enumerated() {
                let track = k == 0 ? "" : " (audio track \(k + 1))"
                differ("audio\(track)", a0.codec, a.codec)
                differ("sample rate\(track)", "\(a0.sampleRate ?? 0)", "\(a.sampleRate ?? 0)")
                differ("channels\(track)", "\(a0.channels ?? 0)", "\(a.channels ?? 0)")
            }
            if first.facts.audioTracks.isEmpty != clip.facts.audioTracks.isEmpty {
                differ("audio", first.facts.mainAudio?.codec ?? "none", clip.facts.mainAudio?.codec ?? "none")
            }
        }
        return out
    }

    /// FFmpeg's muxer for an output path: WebM, Matroska, MOV, else MP4.
    public static func outputFormat(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "webm": "webm"
        case "mkv": "matroska"
        case "mov": "mov"
        default: "mp4"
        }
    }

    /// With `normalize`, every clip counts in the first clip's frame rate.
    public static func timeline(
        _ clips: [PreparedClip], transitions: [TransitionRequest], loop: Bool, normalize: Bool = false
    ) throws -> StitchTimeline {
        guard let v = clips.first?.facts.mainVideo, let fps = v.frameRate else {
            throw MediaError("stitch", reason: "no video frame rate")
        }
        return try StitchPlanner.timeline(
            clips.map { StitchClip(path: $0.path, frames: normalize ? outputFrames($0, rate: fps) : $0.frameCount) },
            transitions: transitions,
            frameRate: fps, sampleRate: clips.first?.facts.mainAudio?.sampleRate, loop: loop)
    }

    /// A clip's length in frames of `rate` (the output's), to the nearest frame.
    static func outputFrames(_ clip: PreparedClip, rate: Rational) -> Int {
        Int((Rational(Int64(clip.frameCount)) / clip.frameRate * rate).rounded)
    }

    /// Renders the timeline into `destination` (temp file, exact edit lists with moov first, verification, rename).
    /// With `normalize`, every frame is re-encoded to the first clip's format.
    public static func write(
        _ clips: [PreparedClip], timeline: StitchTimeline, to destination: String,
        temporaries: TemporaryFiles, normalize: Bool = false, audioCurve: FadeCurve = .qsin, codec: String? = nil,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> ClipFacts {
        let temp = try temporaries.make(beside: destination)
        defer { temporaries.remove(temp) }
        let muxed = try temporaries.make(beside: destination)
        defer { temporaries.remove(muxed) }
        let format = Stitcher.outputFormat(destination)
        let matroska = ["webm", "matroska"].contains(format)
        if matroska, let audio = clips[0].facts.audioTracks.first(where: { $0.codec != "opus" }) {
            throw MediaError(
                "stitch",
                reason:
                    "a \(format == "webm" ? "WebM" : "Matroska") output needs Opus audio, which says its own encoder delay; the clips have \(audio.codec), whose priming Matroska cannot hide: name the output .mp4"
            )
        }
        var writer = try StitchWriter(
            clips: clips, timeline: timeline, path: matroska ? temp : muxed, format: format, normalize: normalize,
            audioCurve: audioCurve, codec: codec)
        writer.progress = progress
        try writer.run()
        // Matroska has no edit lists: what was written is what is presented. MP4 gets exact ones.
        if !matroska {
            try ISOEditor.finalize(muxed, to: temp, movieTimescale: writer.movieTimescale, edits: try writer.edits())
        }
        let after = try Probe.facts(path: temp)
        // The codecs are the clips' and the container the name's: whether it plays where the user means is for
        // the report to say (it does), not a reason to discard a right file.
        let ignored = ["seam-audio-click", "seam-visual-jump", "too-short-to-loop", "not-playable-on-target"]
        let bad = Analyzer.findings(in: after).filter { $0.severity >= .warning && !ignored.contains($0.rule) }
        if let bad = bad.first {
            throw MediaError("verify output", reason: "the output has [\(bad.rule)] \(bad.message)")
        }
        guard after.audioTracks.count == clips[0].audio.count else {
            throw MediaError(
                "verify output",
                reason: "the output has \(after.audioTracks.count) audio tracks, the clips \(clips[0].audio.count)")
        }
        if let samples = timeline.samples,
            let wrong = after.audioTracks.first(where: { $0.sampleCount != Rational(samples) })
        {
            throw MediaError(
                "verify output",
                reason:
                    "\(Figures.trackName(wrong)) presents \(wrong.sampleCount ?? .zero) samples, the plan \(samples)")
        }
        guard after.mainVideo?.frameCount == timeline.frames else {
            throw MediaError(
                "verify output",
                reason: "the output has \(after.mainVideo?.frameCount ?? 0) frames, the plan \(timeline.frames)")
        }
        try temporaries.commit(temp, to: destination)
        return after
    }
}

/// Writes video pieces (copied bodies, rendered joins) and one continuous audio stream.
extension Stitcher {
    /// The clips (by index) that stitch re-encodes whole rather than copies: their parameter sets clash with
    /// those already in the output (another encoder, or its settings). None with --normalize (all are).
    public static func reencodedWhole(_ clips: [PreparedClip], normalize: Bool) -> [Int] {
        normalize ? [] : StitchWriter.mergedParameterSets(clips).clashing.sorted()
    }
}

struct StitchWriter {
    let clips: [PreparedClip]
    let timeline: StitchTimeline
    let output: OutputFile
    /// One continuous audio stream per audio track of the clips.
    let lanes: [AudioLane]
    var avcc: AVCConfig?
    var hvcc: HEVCConfig?
    var firstVideoPts: Int64?
    /// The last video decode time written (output ticks): a rendered run's decode times follow it.
    var lastVideoDts: Int64?
    /// Clips re-encoded whole: their parameter sets clash with the copied ones.
    var reencoded = Set<Int>()
    let videoOut = 0
    /// WebM or Matroska output (no edit lists: everything written is presented).
    let matroska: Bool
    /// --normalize --codec: the codec every frame is encoded in, where it is not the first clip's.
    let transcoding: String?
    let tb: AVRational
    let frameTicks: Int64

    /// --normalize: every clip re-encoded to the first clip's size, pixel format, frame rate and audio format.
    let normalize: Bool
    var progress: (@Sendable (Int, Int) -> Void)?
    let fitter: FrameFitter

    /// `format`: FFmpeg's muxer for the output (`Stitcher.muxer` of its name; `path` is a temporary).
    /// `codec` (with `normalize`): encode the output in another codec than the first clip's.
    init(
        clips: [PreparedClip], timeline: StitchTimeline, path: String, format: String, normalize: Bool = false,
        audioCurve: FadeCurve = .qsin,
        codec: String? = nil
    ) throws {
        transcoding = normalize && codec != nil && codec != clips[0].facts.mainVideo?.codec ? codec : nil
        self.clips = clips
        self.timeline = timeline
        self.normalize = normalize
        let v0 = clips[0].facts.mainVideo
        fitter = FrameFitter(width: Int32(v0?.width ?? 0), height: Int32(v0?.height ?? 0), format: clips[0].pixelFormat)
        let first = clips[0]
        let input = try InputFile(path: first.path, options: first.iso ? ["ignore_editlist": "1"] : [:])
        matroska = ["webm", "matroska"].contains(format)
        output = try OutputFile(path: path, format: format)
        // Another container's codec tag (MPEG-TS, FLV) means nothing to the MP4 muxer.
        _ = try output.addStream(copying: input, stream: first.video.index, keepTag: first.iso && !matroska)
        // Matroska does not say the pixel format; MP4's vpcC (VP9) is written from it.
        output.setPixelFormat(first.pixelFormat, stream: videoOut)
        (tb, frameTicks) = Self.clock(clips, frameRate: timeline.frameRate)
        output.setTimeBase(Rational(Int64(tb.num), Int64(tb.den)), stream: videoOut)
        var lanes: [AudioLane] = []
        for (k, a) in first.audio.enumerated() {
            let out = try output.addStream(copying: input, stream: a.index, keepTag: false)
            let encoder = try AudioEncoder(like: input, stream: a.index, globalHeader: true)
            try encoder.configure(output, stream: out)
            lanes.append(
                AudioLane(
                    track: k, out: out, encoder: encoder,
                    mixer: AudioMixer(
                        timeline: timeline, channels: Int(encoder.context.pointee.ch_layout.nb_channels),
                        curve: audioCurve)))
        }
        self.lanes = lanes
        (avcc, hvcc, reencoded) = Self.mergedParameterSets(clips)
        if transcoding != nil {
            // Every frame is encoded: the stream is the encoder's, its headers in its own extradata (the
            // muxer turns them and the packets into avcC or hvcC and lengths).
            avcc = nil
            hvcc = nil
            try encoderFor(first, id: 0).configure(output, stream: videoOut)
        }
        try addChapters()
    }

    /// The output video's clock: the clips' own where they share one that counts every frame in whole ticks
    /// (MP4, MPEG-TS); otherwise a grid of the frame rate (30000 ticks a second at 30 fps, 30000 at 29.97 with
    /// frames of 1001), on which each clip's frames are placed by their slot (Matroska's milliseconds give 33
    /// and 34 ms frames; an iPhone's MP4 counts 600 a second, FFmpeg's 15360).
    static func clock(_ clips: [PreparedClip], frameRate fps: Rational) -> (AVRational, Int64) {
        let first = clips[0]
        let frame = Rational(first.frameTicks) * Rational(Int64(first.timeBase.num), Int64(max(first.timeBase.den, 1)))
        if frame * fps == .one, clips.allSatisfy({ onSameClock($0, as: first) }) {
            return (first.timeBase, first.frameTicks)
        }
        let m = max(1, (10_000 + fps.numerator - 1) / fps.numerator)
        return (AVRational(num: 1, den: Int32(clamping: fps.numerator * m)), m * fps.denominator)
    }

    static func onSameClock(_ a: PreparedClip, as b: PreparedClip) -> Bool {
        a.timeBase.num == b.timeBase.num && a.timeBase.den == b.timeBase.den && a.frameTicks == b.frameTicks
    }

    /// Whether a clip's packets are placed by frame slot (its clock is not the output's).
    func onGrid(_ clip: PreparedClip) -> Bool {
        !(clip.timeBase.num == tb.num && clip.timeBase.den == tb.den && clip.frameTicks == frameTicks)
    }

    /// How many frames after the clip's first presented frame a time of the clip falls (rounded to the frame).
    func slot(_ clip: PreparedClip, _ ticks: Int64) -> Int64 {
        (Rational(ticks - clip.frames[0].pts) * Rational(Int64(clip.timeBase.num), Int64(max(clip.timeBase.den, 1)))
            * timeline.frameRate).rounded
    }

    /// Two configurations clash if a parameter set id means different bytes in each.
    /// The first clip's parameter sets, plus any other clip's that do not clash with them (same id, other
    /// bytes). A clip whose sets clash (another encoder's settings) is re-encoded whole instead of copied.
    static func mergedParameterSets(_ clips: [PreparedClip]) -> (
        avcc: AVCConfig?, hvcc: HEVCConfig?, clashing: Set<Int>
    ) {
        var avcc = clips.first?.avcc
        var hvcc = clips.first?.hvcc
        var clashing = Set<Int>()
        for (i, clip) in clips.enumerated().dropFirst() {
            if let c = clip.hvcc, var merged = hvcc {
                if merged.clashes(with: c) {
                    clashing.insert(i)
                    continue
                }
                merged.append(
                    [32, 33, 34].flatMap { c.units($0) }.filter { u in !merged.units(HEVC.type(u)).contains(u) })
                hvcc = merged
            }
            guard let c = clip.avcc, var merged = avcc else { continue }
            if clash(merged, c) {
                clashing.insert(i)
                continue
            }
            for s in c.sps where !merged.sps.contains(s) { merged.sps.append(s) }
            for p in c.pps where !merged.pps.contains(p) { merged.pps.append(p) }
            avcc = merged
        }
        return (avcc, hvcc, clashing)
    }

    static func clash(_ a: AVCConfig, _ b: AVCConfig) -> Bool {
        func ids(_ c: AVCConfig) -> (sps: [Int: [UInt8]], pps: [Int: [UInt8]]) {
            (
                Dictionary(
                    c.sps.compactMap { s in AVCConfig.spsID(s).map { ($0, s) } }, uniquingKeysWith: { x, _ in x }),
                Dictionary(
                    c.pps.compactMap { p in AVCConfig.ppsID(p).map { ($0, p) } }, uniquingKeysWith: { x, _ in x })
            )
        }
        let x = ids(a)
        let y = ids(b)
        func differs(_ p: [Int: [UInt8]], _ q: [Int: [UInt8]]) -> Bool {
            p.contains { id, bytes in q[id].map { $0 != bytes } ?? false }
        }
        return differs(x.sps, y.sps) || differs(x.pps, y.pps)
    }

    var movieTimescale: Int64 {
        let video = Int64(tb.den) / Int64(max(tb.num, 1))
        let rate = Int64(timeline.sampleRate ?? 1)
        let l = video / FixPlanner.gcd(video, rate) * rate
        return l <= Int64(Int32.max) ? l : rate
    }

    /// A chapter per clip, named after its file, on the video time base.
    func addChapters() throws {
        let ctx = output.context
        let count = timeline.clips.count
        guard
            let array = av_calloc(count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size)?.assumingMemoryBound(
                to: UnsafeMutablePointer<AVChapter>?.self)
        else {
            throw MediaError("add chapters", code: lp_error_enomem)
        }
        ctx.pointee.chapters = array
        for (i, entry) in timeline.clips.enumerated() {
            guard let chapter = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self) else {
                throw MediaError("add chapters", code: lp_error_enomem)
            }
            chapter.pointee.id = Int64(i + 1)
            chapter.pointee.time_base = tb
            chapter.pointee.start = Int64(entry.span.startFrame) * frameTicks
            chapter.pointee.end = Int64(entry.span.endFrame) * frameTicks
            av_dict_set(&chapter.pointee.metadata, "title", (entry.path as NSString).lastPathComponent, 0)
            array[i] = chapter
            ctx.pointee.nb_chapters = UInt32(i + 1)
        }
    }

    /// A clip's copied body: presentation frames [bodyStart, bodyEnd). It starts on a keyframe; it ends at a
    /// safe cut: the frames before it are exactly a prefix of the decode order, so copying that prefix decodes
    /// them all and nothing else (any position without B-frames; after a reference frame with them).
    struct Layout {
        var bodyStart: Int
        var bodyEnd: Int
        var endDts: Int64?
    }

    /// Each clip's copied body: whole GOPs between its incoming and outgoing transitions. A clip with no such
    /// GOP (one GOP in all, or transitions inside it) is re-encoded entirely; its body is empty.
    func layout() -> [Layout] {
        let n = clips.count
        return clips.enumerated().map { i, clip in
            if normalize || reencoded.contains(i) { return Layout(bodyStart: 0, bodyEnd: 0, endDts: nil) }
            let incoming = i > 0 ? timeline.joins[i - 1].frames : (timeline.loop ? timeline.joins.last!.frames : 0)
            let hasOutgoing = i < n - 1 || timeline.loop
            let outgoing = hasOutgoing ? timeline.joins[i].frames : 0
            let keys = clip.frames.indices.filter { clip.frames[$0].isSync }
            guard let start = keys.first(where: { $0 >= incoming }) else {
                return Layout(bodyStart: 0, bodyEnd: 0, endDts: nil)
            }
            var end = clip.frameCount
            var endDts: Int64?
            if clip.trimmedEnd || hasOutgoing && (outgoing > 0 || Self.framesAfterEnd(clip)) {
                let cuts = Self.safeCuts(clip, from: start)
                guard
                    let cut = cuts.last(where: { $0.index <= clip.frameCount - outgoing && $0.index < clip.frameCount })
                else {
                    return Layout(bodyStart: 0, bodyEnd: 0, endDts: nil)
                }
                end = cut.index
                endDts = cut.dts
            }
            return start < end
                ? Layout(bodyStart: start, bodyEnd: end, endDts: endDts) : Layout(bodyStart: 0, bodyEnd: 0, endDts: nil)
        }
    }

    /// What one output frame is made of.
    enum Item: Equatable {
        case frame(clip: Int, index: Int)
        case blend(a: Int, ai: Int, b: Int, bi: Int, join: Int)

        var copied: (clip: Int, index: Int)? {
            if case .frame(let c, let k) = self { return (c, k) }
            return nil
        }
    }

    /// Every output frame, in order.
    func items() -> [Item] {
        var out: [Item] = []
        let total = timeline.frames
        for o in 0..<total {
            var covering: [(Int, Int)] = []
            for i in clips.indices {
                let start = outputIndex(clip: i, frame: 0)
                if o >= start && o < start + count(i) { covering.append((i, o - start)) }
            }
            if timeline.loop, let wrap = timeline.joins.last, wrap.frames > 0, o >= total - wrap.frames {
                covering.append((0, o - (total - wrap.frames)))
            }
            if covering.count >= 2, let (a, ai) = covering.first, let (b, bi) = covering.last {
                let join = timeline.joins.firstIndex { $0.from == a && $0.to == b } ?? timeline.joins.count - 1
                out.append(.blend(a: a, ai: ai, b: b, bi: bi, join: join))
            } else if let (c, k) = covering.first {
                out.append(.frame(clip: c, index: k))
            }
        }
        return out
    }

    /// Positions c > start where the frames presented in [start, c) are the first c - start frames in decode
    /// order, with the decode time of the first frame after them.
    static func safeCuts(_ clip: PreparedClip, from start: Int) -> [(index: Int, dts: Int64)] {
        // Over every frame of the cut, not just those between the in and out points: a frame after the out
        // point can come first in decode order (a P-frame before the B-frames that lean on it).
        let from = start + clip.inOffset
        let frames = Array(clip.allFrames[from...])
        let byDecode = frames.indices.sorted { frames[$0].dts < frames[$1].dts }
        var out: [(Int, Int64)] = []
        var highest = -1
        for (n, presented) in byDecode.enumerated() {
            highest = max(highest, presented)
            // After n+1 frames in decode order, the presented ones are exactly 0...n.
            if highest == n, n + 1 < frames.count { out.append((start + n + 1, frames[byDecode[n + 1]].dts)) }
        }
        return out
    }

    /// Whether copying a clip's cut would keep frames it does not present (references of its last frames).
    static func framesAfterEnd(_ clip: PreparedClip) -> Bool {
        clip.video.last - clip.video.first + 1 > clip.allFrames.count
    }

    /// A clip's frames on the output's frame grid.
    func count(_ i: Int) -> Int {
        normalize ? Stitcher.outputFrames(clips[i], rate: timeline.frameRate) : clips[i].frameCount
    }

    /// The source frame on screen at output-grid frame `m` of clip `i` (the same frame when rates match).
    func sourceIndex(_ i: Int, _ m: Int) -> Int {
        guard normalize else { return m }
        let k = (Rational(Int64(m)) / timeline.frameRate * clips[i].frameRate).floor
        return min(max(Int(k), 0), clips[i].frameCount - 1)
    }

    func outputIndex(clip i: Int, frame k: Int) -> Int {
        let start = timeline.loop && i == 0 ? -timeline.joins.last!.frames : timeline.clips[i].span.startFrame
        return start + k
    }

    mutating func run() throws {
        let layouts = layout()
        let all = items()
        func isCopied(_ item: Item) -> Bool {
            guard let (c, k) = item.copied else { return false }
            return k >= layouts[c].bodyStart && k < layouts[c].bodyEnd
        }
        // Runs: a clip's copied body, or a stretch of frames to re-encode (which may span clips).
        enum Run {
            case copy(Int)
            case render(ArraySlice<Item>, first: Int)
        }
        var runs: [Run] = []
        var o = 0
        while o < all.count {
            if isCopied(all[o]), let (c, _) = all[o].copied {
                runs.append(.copy(c))
                o += layouts[c].bodyEnd - layouts[c].bodyStart
            } else {
                var end = o
                while end < all.count && !isCopied(all[end]) { end += 1 }
                runs.append(.render(all[o..<end], first: o))
                o = end
            }
        }
        // Each rendered run gets its own SPS/PPS pair, and the avcC must list them all before the header. x264's
        // headers depend only on its settings, so a throwaway encoder per run gives them; the runs are then
        // encoded straight into the muxer (nothing held in memory), and checked to carry the same headers.
        // Re-encoded frames join the first clip's parameter sets in one avcC: a first clip that carries them in
        // the stream instead (MPEG-TS, FLV) has none to join, and the output would not decode.
        let renders = runs.contains(where: { if case .render = $0 { true } else { false } })
        let codec = transcoding ?? clips[0].facts.mainVideo?.codec ?? ""
        if renders, VideoEncoder.encoders[codec] == nil {
            throw MediaError(
                "stitch",
                reason:
                    "loopprep cannot re-encode \(codec) frames for a transition or --normalize yet (H.264, HEVC, VP8, VP9 and AV1 only): stitch these clips with --transition none, or re-encode them first"
            )
        }
        if renders, transcoding == nil, codec == "h264", avcc == nil {
            throw MediaError(
                "stitch",
                reason:
                    "\(clips[0].path) carries its H.264 parameter sets in the stream (no avcC), so frames re-encoded for a transition or --normalize cannot join them: fix it into an MP4 first (loopprep fix), then stitch that"
            )
        }
        if renders, transcoding == nil, codec == "hevc", hvcc == nil {
            throw MediaError(
                "stitch",
                reason:
                    "\(clips[0].path) carries its HEVC parameter sets in the stream (no hvcC), so frames re-encoded for a transition or --normalize cannot join them: fix it into an MP4 first (loopprep fix), then stitch that"
            )
        }
        var runSets: [RunSets] = []
        let used = Set((avcc?.sps.compactMap(AVCConfig.spsID) ?? []) + (avcc?.pps.compactMap(AVCConfig.ppsID) ?? []))
        var free = (0...31).filter { !used.contains($0) }
        var renumbered: [[[UInt8]]: HEVCRenumbering] = [:]
        for run in runs {
            guard case .render(let items, _) = run else { continue }
            if transcoding != nil {
                runSets.append(RunSets())
                continue
            }
            // VP8 and VP9 have no parameter sets: every run starts on its own keyframe.
            if codec == "hevc", var config = hvcc {
                // x265's sets depend only on its settings: runs with the same ones share one renumbering.
                let sets = try encoderFor(clips[Self.leadClip(items.first!)], id: 0).hevcParameterSets
                let r = try renumbered[sets] ?? HEVCRenumbering(encoderSets: sets, taken: config)
                if renumbered[sets] == nil {
                    config.append(r.units)
                    hvcc = config
                    renumbered[sets] = r
                }
                runSets.append(RunSets(hevc: r))
                continue
            }
            guard codec == "h264" else {
                runSets.append(RunSets())
                continue
            }
            guard !free.isEmpty else {
                throw MediaError("stitch", reason: "too many re-encoded runs: H.264 has no more parameter set ids")
            }
            let id = free.removeFirst()
            let clip = clips[Self.leadClip(items.first!)]
            let probe = try encoderFor(clip, id: id)
            let sets = probe.parameterSets
            runSets.append(RunSets(id: id, sps: sets.sps, pps: sets.pps))
            avcc?.sps += sets.sps
            avcc?.pps += sets.pps
        }
        if let avcc { try output.setExtradata(avcc.bytes, stream: videoOut) }
        if let hvcc { try output.setExtradata(hvcc.bytes, stream: videoOut) }
        output.copyMetadata(from: try InputFile(path: clips[0].path))
        try output.writeHeader(
            options: matroska
                ? ["avoid_negative_ts": "disabled"]
                : ["avoid_negative_ts": "disabled", "movie_timescale": String(movieTimescale), "use_editlist": "1"])

        var next = 0
        var mixed = Set<Int>()
        for (done, run) in runs.enumerated() {
            progress?(done, runs.count)
            switch run {
            case .copy(let c):
                try copyBody(clips[c], index: c, layout: layouts[c])
            case .render(let items, let first):
                // The copied body after the run decodes from its keyframe: the run's decode times end before it.
                var nextDts: Int64?
                if done + 1 < runs.count, case .copy(let c) = runs[done + 1] {
                    nextDts = place(clips[c], index: c, keyframeDts(clips[c], atOrBefore: layouts[c].bodyStart))
                }
                try render(items, firstOutput: first, sets: runSets[next], before: nextDts)
                next += 1
            }
            // Audio follows the video clip by clip, so the muxer's interleaving buffer stays about a clip long.
            if case .copy(let reached) = run {
                for c in 0...reached where !mixed.contains(c) {
                    try mixAudio(clips[c], index: c)
                    mixed.insert(c)
                }
            }
        }
        for c in clips.indices where !mixed.contains(c) { try mixAudio(clips[c], index: c) }
        for lane in lanes {
            try lane.mixer.finish { try lane.encoder.encode($0) { try write(lane, $0) } }
            try lane.encoder.finish { try write(lane, $0) }
        }
        try output.finish(presenting: timeline.duration)
    }

    static func leadClip(_ item: Item) -> Int {
        switch item {
        case .frame(let c, _): c
        case .blend(let a, _, _, _, _): a
        }
    }

    /// An encoder like `clip`'s video, with parameter set id `id`.
    func encoderFor(_ clip: PreparedClip, id: Int) throws -> VideoEncoder {
        let input = try InputFile(path: clip.path, options: clip.iso ? ["ignore_editlist": "1"] : [:])
        return try VideoEncoder(
            like: input, stream: clip.video.index, parameterSetID: id, pixelFormat: clips[0].pixelFormat,
            codec: transcoding)
    }

    /// Decodes what the items need (one source per clip, from the keyframe before its first frame), blends
    /// where two clips meet, encodes in output order and writes each packet as it comes.
    /// What a rendered run's parameter sets are: H.264's id and sets (checked against the encoder's), HEVC's
    /// renumbering; VP8 and VP9 have none.
    struct RunSets {
        var id = 0
        var sps: [[UInt8]] = []
        var pps: [[UInt8]] = []
        var hevc: HEVCRenumbering?
    }

    mutating func render(_ items: ArraySlice<Item>, firstOutput: Int, sets: RunSets, before nextDts: Int64? = nil)
        throws
    {
        let encoder = try encoderFor(clips[Self.leadClip(items.first!)], id: sets.id)
        guard transcoding != nil || encoder.parameterSets.sps == sets.sps && encoder.parameterSets.pps == sets.pps,
            sets.hevc.map({ $0.original == encoder.hevcParameterSets }) ?? true
        else {
            throw MediaError("encode", reason: "the encoder's parameter sets changed between runs")
        }
        let hevcLength = hvcc?.lengthSize ?? 4
        let sizeOfLength: Int? =
            transcoding == nil && clips[0].facts.mainVideo?.codec == "h264" ? avcc?.lengthSize ?? 4 : nil
        // The sources' decode delay (pts - dts of their keyframes), so decode times run on into copied GOPs.
        let delay =
            clips[0].allFrames.first { $0.isSync }.map { key in
                onGrid(clips[0]) ? (slot(clips[0], key.pts) - slot(clips[0], key.dts)) * frameTicks : key.pts - key.dts
            } ?? 0
        let ticks = frameTicks
        // Decode times: the sources' delay where it fits; moved later after a copied body that decoded further
        // (its safe cut may end on frames decoded early), and earlier before one whose keyframe decodes earlier
        // (B-frames: a keyframe mid-clip can wait longer than the first), one tick apart at the least.
        let lastPts = Int64(firstOutput + items.count - 1) * ticks
        let runDelay = max(delay, nextDts.map { lastPts - $0 + 1 } ?? delay)
        var floor = (lastVideoDts ?? Int64.min / 2) + 1
        var failure: Error?
        func emit(_ p: Packet) {
            do {
                var sample = RenderedSegment.Sample(
                    encoded: p, lengthSize: sizeOfLength, decodeDelay: runDelay, duration: ticks)
                sample.dts = max(sample.dts, floor)
                floor = sample.dts + 1
                if let nextDts, sample.dts >= nextDts {
                    throw MediaError(
                        "stitch",
                        reason: "the re-encoded frames before a copied keyframe have no decode times left before it")
                }
                if let hevc = sets.hevc {
                    sample.data = try hevc.sample(p.withBytes { Array($0) }, lengthSize: hevcLength)
                }
                try writeRendered([sample])
            } catch { failure = failure ?? error }
        }
        var sources: [Int: FrameSource] = [:]
        var graphs: [Int: TransitionGraph] = [:]
        var position: [Int: Int] = [:]
        var held: [Int: Frame] = [:]
        let fitter = self.fitter
        let normalize = self.normalize
        func frame(_ c: Int, _ m: Int) throws -> Frame {
            let frame = try decoded(c, sourceIndex(c, m))
            return normalize ? try fitter.fit(frame) : frame
        }
        func decoded(_ c: Int, _ k: Int) throws -> Frame {
            let clip = clips[c]
            // A slower clip shows a frame more than once (--normalize).
            if position[c] == k, let frame = held[c] { return frame }
            // A loop's wrap-around needs the first clip's opening again, after its later frames: start over.
            if let at = position[c], k < at { sources[c] = nil }
            position[c] = k
            if sources[c] == nil {
                let window = PacketWindow(
                    clip.video, from: keyframeDts(clip, atOrBefore: k), through: clip.video.keepThrough)
                sources[c] = try FrameSource(path: clip.path, window: window, timelines: clip.timelines)
            }
            let want = clip.frames[k].pts
            while let f = try sources[c]!.next() {
                if let pts = f.pts, pts >= want - clip.frameTicks / 2 {
                    held[c] = f
                    return f
                }
            }
            throw MediaError("decode", reason: "\(clip.path): frame \(k) did not decode")
        }
        for (offset, item) in items.enumerated() {
            let picture: Frame
            switch item {
            case .frame(let c, let k):
                picture = try frame(c, k)
            case .blend(let a, let ai, let b, let bi, let j):
                let fa = try frame(a, ai)
                let fb = try frame(b, bi)
                let join = timeline.joins[j]
                let position = (firstOutput + offset) - join.span.startFrame
                // One graph a window, fed its frame pairs in order.
                if graphs[j]?.position != position {
                    graphs[j] = try TransitionGraph(
                        transition: join.kind.xfade ?? "fade", frames: join.frames, like: fa,
                        frameRate: timeline.frameRate, from: position)
                }
                picture = try graphs[j]!.draw(fa, fb)
            }
            picture.pointer.pointee.pts = Int64(firstOutput + offset) * ticks
            lp_frame_set_key(picture.pointer, offset == 0 ? 1 : 0)
            try encoder.encode(picture, emit)
            if let failure { throw failure }
        }
        try encoder.encode(nil, emit)
        if let failure { throw failure }
    }

    /// Decode time of the keyframe at or before presented frame `k` (which may lie before an in point).
    func keyframeDts(_ clip: PreparedClip, atOrBefore k: Int) -> Int64 {
        let want = clip.frames[min(k, clip.frames.count - 1)].pts
        let key = clip.allFrames.filter { $0.isSync && $0.pts <= want }.max { $0.pts < $1.pts } ?? clip.allFrames[0]
        return key.dts
    }

    mutating func writeRendered(_ samples: [RenderedSegment.Sample]) throws {
        for s in samples {
            let packet = try s.packet()
            if firstVideoPts == nil { firstVideoPts = s.pts }
            lastVideoDts = s.dts
            try output.write(packet, stream: videoOut, timeBase: Rational(tb))
        }
    }

    /// A time of clip `i` (its own ticks) on the output's video clock: by frame slot on the grid, else offset.
    func place(_ clip: PreparedClip, index i: Int, _ ticks: Int64) -> Int64 {
        let base = Int64(outputIndex(clip: i, frame: 0))
        return onGrid(clip) ? (base + slot(clip, ticks)) * frameTicks : ticks + base * frameTicks - clip.frames[0].pts
    }

    /// The clip's packets whose frames are presented in [bodyStart, bodyEnd), rebased to their output place.
    mutating func copyBody(_ clip: PreparedClip, index i: Int, layout: Layout) throws {
        guard layout.bodyStart < layout.bodyEnd else { return }
        let from = keyframeDts(clip, atOrBefore: layout.bodyStart)
        let through = layout.endDts.map { $0 - 1 } ?? clip.video.keepThrough
        let reader = try PacketReader(
            path: clip.path, windows: [PacketWindow(clip.video, from: from, through: through)],
            timelines: clip.timelines)
        let grid = onGrid(clip)
        while let read = try reader.next() {
            // An open GOP's keyframe (HEVC CRA) has leading pictures, decoded after it but shown before it:
            // those frames are drawn by the run before the body, and no later frame may lean on them (RASL).
            if read.pts < clip.frames[layout.bodyStart].pts { continue }
            let packet = read.packet
            packet.pts = place(clip, index: i, read.pts)
            packet.dts = place(clip, index: i, read.dts)
            if grid { packet.duration = frameTicks }
            if firstVideoPts == nil { firstVideoPts = packet.pts }
            lastVideoDts = packet.dts
            try output.write(packet, stream: videoOut, timeBase: Rational(grid ? tb : clip.timeBase))
        }
    }

    /// The clip's presented audio, track by track, into each lane's mixer (which crossfades the joins) and on
    /// to its one encoder.
    func mixAudio(_ clip: PreparedClip, index i: Int) throws {
        for lane in lanes where lane.track < clip.audio.count {
            try mixAudio(clip, index: i, cut: clip.audio[lane.track], lane: lane)
        }
    }

    func mixAudio(_ clip: PreparedClip, index i: Int, cut: TrackCut, lane: AudioLane) throws {
        guard let rate = cut.sampleRate else { return }
        let reader = try PacketReader(path: clip.path, windows: [PacketWindow(cut)], timelines: clip.timelines)
        let decoder = try Decoder(reader.input, stream: cut.index, timeBase: reader.timeBase(cut.index))
        let frame = try Frame()
        var taken: Int64 = 0
        var next: Int64?
        let count = (cut.duration * Int64(rate)).rounded
        let mixer = lane.mixer
        let encoder = lane.encoder
        mixer.begin(clip: i)
        // --normalize: audio at another rate or channel count is resampled to the output's.
        let targetRate = timeline.sampleRate ?? rate
        let targetChannels = mixer.channels
        let sourceChannels = clip.facts.audioTracks.first { $0.index == cut.index }?.channels ?? targetChannels
        let resampler =
            rate != targetRate || sourceChannels != targetChannels
            ? try Resampler(
                fromRate: rate, fromChannels: sourceChannels, toRate: targetRate, toChannels: targetChannels) : nil
        func take(_ f: Frame) throws {
            guard let pts = f.pts else { return }
            let chunk = PresentedAudio.slice(
                f, at: reader.mediaTime(ofDecoded: pts, stream: cut.index), cut: cut, taken: taken, count: count,
                next: &next)
            taken += Int64(chunk.first?.count ?? 0)
            let converted = try resampler.map { try $0.convert(chunk) } ?? chunk
            try mixer.add(converted) { try encoder.encode($0) { try write(lane, $0) } }
        }
        while let read = try reader.next() { try decoder.decode(read.packet, into: frame, take) }
        try decoder.decode(nil, into: frame, take)
        if let resampler {
            try mixer.add(try resampler.convert(nil)) { try encoder.encode($0) { try write(lane, $0) } }
        }
        try mixer.end { try encoder.encode($0) { try write(lane, $0) } }
    }

    func write(_ lane: AudioLane, _ packet: Packet) throws {
        // Matroska: the encoder's delay is CodecDelay, which FFmpeg 5.1's muxer writes but does not add to the
        // block times; the first block must sit at 0, its first presented sample after the pre-skip.
        if matroska, lane.encoder.delay > 0 {
            packet.pts = packet.pts.map { $0 + lane.encoder.delay }
            packet.dts = packet.dts.map { $0 + lane.encoder.delay }
        }
        if lane.firstPts == nil { lane.firstPts = packet.pts }
        lane.lastDuration = packet.duration
        try output.write(packet, stream: lane.out, timeBase: lane.encoder.timeBase)
    }

    /// Exact edits for the finalizer, from where the muxer put the first samples.
    func edits() throws -> [Int: ISOEditor.TrackEdit] {
        let path = output.path
        let size = Int64((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0)
        guard let layout = try ISOFile.read(path: path, fileSize: size), let video = layout.tracks[videoOut + 1],
            let first = video.timeline.samples.first, let firstPts = firstVideoPts
        else {
            throw MediaError("finalize", reason: "cannot read the muxed file back")
        }
        let ts = movieTimescale
        var edits = [
            videoOut + 1: ISOEditor.TrackEdit(
                mediaTime: first.pts - firstPts, duration: (timeline.duration * ts).rounded)
        ]
        for lane in lanes {
            guard let audio = layout.tracks[lane.out + 1], let a0 = audio.timeline.samples.first,
                let apts = lane.firstPts,
                let rate = timeline.sampleRate, let samples = timeline.samples
            else { continue }
            edits[lane.out + 1] = ISOEditor.TrackEdit(
                mediaTime: a0.pts - apts, duration: (Rational(samples, Int64(rate)) * ts).rounded,
                lastSampleDuration: lane.lastDuration)
        }
        return edits
    }
}

/// One output audio track: its stream, encoder and mixer, and what the edit list needs of what was written. A
/// class, so what the writing closures record is not lost in a copy.
final class AudioLane {
    /// Which audio track of each clip (0: the first).
    let track: Int
    let out: Int
    let encoder: AudioEncoder
    let mixer: AudioMixer
    var firstPts: Int64?
    var lastDuration: Int64?

    init(track: Int, out: Int, encoder: AudioEncoder, mixer: AudioMixer) {
        self.track = track
        self.out = out
        self.encoder = encoder
        self.mixer = mixer
    }
}
