/// What `loop` is asked for each clip: how long a loop may be, how many candidates to rank and which to write,
/// and whether to blend the seam.
public struct LoopRequest: Sendable {
    /// Shortest and longest loop (frames are the clip's own).
    public var minimum: TimeAmount
    public var maximum: TimeAmount
    public var top: Int
    /// Write candidate `pick` of the ranking (1: the best).
    public var pick: Int
    /// Blend the loop's last seconds (or frames) into its first.
    public var crossfade: TimeAmount?
    /// Also draw each candidate's seam strip (for the HTML page).
    public var pictures = false
    /// Replace an existing output.
    public var force = false
    /// How the written loop is analyzed.
    public var analysis = AnalysisOptions()
    /// A web player follows (`--web-player`): the video is cut as fix's --target web cuts it, needing no frame
    /// after the loop's end (a browser's append window drops such a frame with the frames that need it).
    public var forWeb = false

    public init(minimum: TimeAmount, maximum: TimeAmount, top: Int, pick: Int, crossfade: TimeAmount? = nil) {
        self.minimum = minimum
        self.maximum = maximum
        self.top = top
        self.pick = pick
        self.crossfade = crossfade
    }
}

/// What `loop` found in one clip, beside what it wrote (the clip's `FileReport`, as every command's): the candidates
/// ranked, the one written (or to write, in a dry run) and a crossfaded loop's timeline. In a report's JSON its fields
/// sit on the file (`files[].candidates`, `chosen`, `blend`).
public struct LoopChoice: Sendable, Equatable {
    public var candidates: [LoopCandidate] = []
    /// Index of the candidate written (or to write, in a dry run).
    public var chosen: Int?
    /// The crossfaded loop's timeline as stitch plans it (--crossfade): the clip's range and the blend that joins
    /// its end to its start; a dry run's too. It is the file's plan (`files[].plan`).
    public var blend: StitchTimeline?
    /// The blend's plan as stitch carries it out (`loopprep apply`): in the report, the same `files[].plan` object as
    /// `blend`'s timeline.
    public var blendPlan: StitchPlanValue?
    /// Each candidate's seam strip (PNG), for the HTML page (not in the JSON).
    public var strips: [[UInt8]] = []

    public init() {}
}
