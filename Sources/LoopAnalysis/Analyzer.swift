/// Runs every rule over a file's facts. Pure: the same facts always give the same findings.
public enum Analyzer {
    public static let rules: [any Rule] = [
        TrackLengthMismatch(), StartOffset(), PrimingNotSignalled(), FirstFrameNotKeyframe(), TimestampGap(),
        MoovAtEnd(), TooShortToLoop(), NotPlayableOnTarget(), SeamAudioClick(), SeamVisualJump(), Rotation(),
        EmptyTrackRule(), MovieDurationMismatch(), IrregularAudioDurations(),
    ]

    /// Every id a rule reports, and `unreadable` (what --disable and .loopprep.json may name).
    public static var allIDs: [String] { (rules.flatMap(\.ids) + [.unreadable]).map(\.rawValue) }

    /// A rule's threshold as `.loopprep.json` may set it.
    public struct Threshold: Sendable {
        public var defaultValue: Double
        public var range: ClosedRange<Double>
        public var unit: String
    }

    /// The rules whose limit a project may set, by id.
    public static let thresholds: [String: Threshold] = [
        RuleID.seamVisualJump.rawValue: Threshold(
            defaultValue: SeamVisualJump.floor, range: 0...255,
            unit: "mean luma or colour difference of 255 below which the seam is not a cut"),
        RuleID.seamAudioClick.rawValue: Threshold(
            defaultValue: SeamAudioClick.threshold, range: 0...2,
            unit: "jump in full scale above which the seam clicks"),
    ]

    /// Worst first, then by track and rule id, so output is stable.
    public static func findings(in clip: ClipFacts, options: AnalysisOptions = .init()) -> [Finding] {
        let off = Set(options.disabled ?? [])
        return rules.flatMap { $0.check(clip, options) }.filter { !off.contains($0.rule) }.sorted(by: order)
    }

    public static func order(_ a: Finding, _ b: Finding) -> Bool {
        if a.severity != b.severity { return a.severity > b.severity }
        if a.track != b.track { return (a.track ?? -1) < (b.track ?? -1) }
        return a.rule < b.rule
    }
}
