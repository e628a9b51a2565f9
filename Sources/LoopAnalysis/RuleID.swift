/// Every id a finding can carry, one enum used everywhere (the JSON, SARIF and diagnostics spell it as its raw
/// value, kebab-case).
public enum RuleID: String, CaseIterable, Codable, Sendable, Comparable {
    case audioLongerThanVideo = "audio-longer-than-video"
    case videoLongerThanAudio = "video-longer-than-audio"
    case startOffset = "start-offset"
    case primingNotSignalled = "priming-not-signalled"
    case firstFrameNotKeyframe = "first-frame-not-keyframe"
    case timestampGap = "timestamp-gap"
    case moovAtEnd = "moov-at-end"
    case tooShortToLoop = "too-short-to-loop"
    case notPlayableOnTarget = "not-playable-on-target"
    case seamAudioClick = "seam-audio-click"
    case seamVisualJump = "seam-visual-jump"
    case rotation = "rotation"
    case emptyTrack = "empty-track"
    case movieDurationMismatch = "movie-duration-mismatch"
    case irregularAudioDurations = "irregular-audio-durations"
    /// A file that cannot be read at all (the media layer's, not a rule's).
    case unreadable = "unreadable"
    /// An output fix, stitch or loop could not make (a failed repair, in CI formats).
    case fixFailed = "fix-failed"
    case stitchFailed = "stitch-failed"
    case loopFailed = "loop-failed"

    public static func < (a: RuleID, b: RuleID) -> Bool { a.rawValue < b.rawValue }
}

extension Finding {
    public init(
        rule: RuleID, severity: Severity, track: Int? = nil, message: String, hint: String,
        figures: [String: Double] = [:]
    ) {
        self.init(rule: rule.rawValue, severity: severity, track: track, message: message, hint: hint, figures: figures)
    }

    /// The rule as the enum (nil for an id from elsewhere: a report read back from another version).
    public var ruleID: RuleID? { RuleID(rawValue: rule) }
}
