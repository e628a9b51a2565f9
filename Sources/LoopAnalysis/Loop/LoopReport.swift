import LoopRangeValues

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

/// What `loop` found in one clip and what it wrote.
public struct LoopReport: Encodable, Sendable {
    public var path: String
    public var candidates: [LoopCandidate] = []
    /// Index of the candidate written (or to write, in a dry run).
    public var chosen: Int?
    public var output: String?
    /// Why no loop was written: its cause (`unreadable`: the clip could not be read, exit 2 as in every command) and
    /// sentence.
    public var refusal: Refusal?
    /// The refusal's sentence (`error` in the report).
    public var error: String? { refusal?.sentence }
    /// The clip could not be read: an unreadable input, exit 2, as in every command.
    public var unreadable: Bool { refusal?.cause == .unreadable }
    /// The written loop as `analyze` describes it: its facts, findings and loop range (or why none).
    public var facts: ClipFacts?
    public var findings: [Finding] = []
    public var loopRange: LoopRange?
    public var loopRangeReason: String?
    /// Each candidate's seam strip (PNG), for the HTML page.
    public var strips: [[UInt8]] = []
    /// `--web-player`: the page, manifest and media written beside the loop.
    public var webPlayer: WebPlayerOutput?
    /// Why `--web-player` wrote no web player beside a written loop (the file fails).
    public var webPlayerError: String?
    /// What the user should know of the choice (the winner sits at --min), in words.
    public var notes: [String] = []
    /// The cut of the loop chosen (a cut without a crossfade): which frames are copied, which encoded again; a dry
    /// run's too.
    public var plan: FixPlan?
    /// The crossfaded loop's timeline as stitch plans it (--crossfade): the clip's range and the blend that joins
    /// its end to its start; a dry run's too.
    public var blend: StitchTimeline?
    /// A dry run: the loop it would write ("" where no output was named); nil after a write.
    public var planned: String?

    /// What loop did with the clip, in every command's words (`files[].outcome`).
    public var outcome: Outcome {
        if let refusal, unreadable { return .unreadable(refusal) }
        if let refusal = refusal ?? webPlayerError.map({ Refusal(.webPlayer, $0) }) {
            return .refused(refusal, output: output)
        }
        if let planned { return .planned(output: planned.isEmpty ? nil : planned) }
        return .written(output: output)
    }

    enum CodingKeys: String, CodingKey {
        case path, outcome, candidates, chosen, output, error, facts, findings, loopRange, loopRangeReason,
            webPlayer, webPlayerError, notes, plan, blend
    }

    /// As synthesized, but for `loopRange`: written as `null` beside its reason where none makes the written loop
    /// loop, as analyze writes it; neither where nothing was written. A crossfaded loop's `plan` is its blend.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(candidates, forKey: .candidates)
        try c.encodeIfPresent(chosen, forKey: .chosen)
        try c.encodeIfPresent(output, forKey: .output)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(facts, forKey: .facts)
        try c.encode(findings, forKey: .findings)
        try c.encodeLoopRange(loopRange, reason: loopRangeReason, at: .loopRange, .loopRangeReason)
        try c.encodeIfPresent(webPlayer, forKey: .webPlayer)
        try c.encodeIfPresent(webPlayerError, forKey: .webPlayerError)
        try c.encode(notes, forKey: .notes)
        // Every command's plan is at `files[].plan`: a crossfaded loop's is its blend's timeline (also at `blend`).
        if let blend {
            try c.encode(blend, forKey: .plan)
        } else {
            try c.encodeIfPresent(plan, forKey: .plan)
        }
        try c.encodeIfPresent(blend, forKey: .blend)
    }

    public init(path: String) { self.path = path }

    /// As one file of a report, for the formats every command shares (a loop not written is a failed repair).
    public var file: FileReport {
        if unreadable, let error { return FileReport.unreadable(path: path, reason: error) }
        var file = FileReport(
            path: path, facts: facts, findings: findings,
            fix: outcome.refusal.map { FixOutcome(status: .failed, output: output, refusal: $0) })
        file.notes = notes.isEmpty ? nil : notes
        (file.loopRange, file.loopRangeReason) = (loopRange, loopRangeReason)
        return file
    }
}
