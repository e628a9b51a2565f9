/// Where every clip's frames and ticks land in the output: its frame grid, its video clock, and the place of
/// any time of a clip on that clock. Shared by the render plan and the writer that executes it.
package struct StitchGeometry: Sendable {
    public let sources: [StitchSource]
    public let timeline: StitchTimeline
    /// --normalize: every clip is re-encoded to the first clip's frame rate.
    public let normalize: Bool
    public let clock: StitchRenderPlan.Clock

    public init(sources: [StitchSource], timeline: StitchTimeline, normalize: Bool) {
        self.sources = sources
        self.timeline = timeline
        self.normalize = normalize
        clock = Self.clock(sources, frameRate: timeline.frameRate)
    }

    /// The output video's clock: the clips' own where they share one that counts every frame in whole ticks
    /// (MP4, MPEG-TS); otherwise a grid of the frame rate (30000 ticks a second at 30 fps, 30000 at 29.97 with
    /// frames of 1001), on which each clip's frames are placed by their slot (Matroska's milliseconds give 33
    /// and 34 ms frames; an iPhone's MP4 counts 600 a second, FFmpeg's 15360).
    public static func clock(_ clips: [StitchSource], frameRate fps: Rational) -> StitchRenderPlan.Clock {
        if let first = clips.first, Rational(first.frameTicks) * first.timeBase * fps == .one,
            clips.allSatisfy({ $0.timeBase == first.timeBase && $0.frameTicks == first.frameTicks })
        {
            return .init(timeBase: first.timeBase, frameTicks: first.frameTicks)
        }
        let m = Swift.max(1, (10_000 + fps.numerator - 1) / fps.numerator)
        return .init(
            timeBase: Rational(1, Swift.min(fps.numerator * m, Int64(Int32.max))), frameTicks: m * fps.denominator)
    }

    /// Whether a clip's packets are placed by frame slot (its clock is not the output's).
    public func onGrid(_ i: Int) -> Bool {
        !(sources[i].timeBase == clock.timeBase && sources[i].frameTicks == clock.frameTicks)
    }

    /// How many frames after the clip's first presented frame a time of the clip falls (rounded to the frame).
    public func slot(_ i: Int, _ ticks: Int64) -> Int64 {
        let clip = sources[i]
        return (Rational(ticks - clip.frames[0].pts) * clip.timeBase * timeline.frameRate).rounded
    }

    /// A time of clip `i` (its own ticks) on the output's video clock: by frame slot on the grid, else offset.
    public func place(_ i: Int, _ ticks: Int64) -> Int64 {
        let base = Int64(outputIndex(clip: i, frame: 0))
        return onGrid(i)
            ? (base + slot(i, ticks)) * clock.frameTicks : ticks + base * clock.frameTicks - sources[i].frames[0].pts
    }

    /// Output frame of clip `i`'s frame `k` (with a loop, the first clip's opening lies before 0: the
    /// wrap-around at the end shows it).
    public func outputIndex(clip i: Int, frame k: Int) -> Int {
        let start = timeline.loop && i == 0 ? -(timeline.joins.last?.frames ?? 0) : timeline.clips[i].span.startFrame
        return start + k
    }

    /// A clip's frames on the output's frame grid.
    public func count(_ i: Int) -> Int {
        normalize ? sources[i].outputFrames(rate: timeline.frameRate) : sources[i].frameCount
    }

    /// The source frame on screen at output-grid frame `m` of clip `i` (the same frame when rates match).
    public func sourceIndex(_ i: Int, _ m: Int) -> Int {
        guard normalize else { return m }
        // A variable rate: the frame the clip shows at that instant.
        if sources[i].variableSteps != nil { return sources[i].frame(at: Rational(Int64(m)) / timeline.frameRate) }
        let k = (Rational(Int64(m)) / timeline.frameRate * sources[i].frameRate).floor
        return Swift.min(Swift.max(Int(k), 0), sources[i].frameCount - 1)
    }
}
