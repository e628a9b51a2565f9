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

extension RuleID {
    /// What the rule finds, in one line (SARIF's rule descriptions, `analyze --help`).
    public var meaning: String {
        switch self {
        case .audioLongerThanVideo: "the audio runs past the video's end: the player waits for it, or loops over a hole"
        case .videoLongerThanAudio: "the video runs past the audio's end: the loop plays silence at its end"
        case .startOffset: "a track starts after 0 (an empty edit, a B-frame delay): it restarts late every loop"
        case .primingNotSignalled: "AAC or MP3 priming not hidden: the encoder's silence plays at every loop"
        case .firstFrameNotKeyframe:
            "the first frame shown is not a keyframe: the player decodes from earlier, or shows garbage"
        case .timestampGap: "a hole or an overlap in a track's timestamps: a skip or inserted silence at that point"
        case .moovAtEnd: "the index (moov) is after the media: playback waits for the whole file"
        case .tooShortToLoop: "the clip is shorter than a queue looper needs to preload the next loop"
        case .notPlayableOnTarget: "a codec or container the target (apple, chrome, firefox, safari, web) cannot play"
        case .seamAudioClick: "the last audio sample is far from the first: a click at the loop point"
        case .seamVisualJump: "the last frame is unlike the first: a visible cut at the loop point"
        case .rotation: "the picture is displayed rotated by the container's matrix (information)"
        case .emptyTrack: "a declared audio or video track with no samples: players wait on it"
        case .movieDurationMismatch: "the movie header's length is not where the tracks end: looping waits or cuts"
        case .irregularAudioDurations:
            "audio frames stored with lengths other than the codec's: drift or inserted silence"
        case .unreadable: "the file cannot be read as media (empty, truncated, not media, no decoder)"
        case .fixFailed: "fix could not write a verified output"
        case .stitchFailed: "stitch could not write a verified output"
        case .loopFailed: "loop could not write a verified loop"
        }
    }

    /// What to do about it, in one line (SARIF's help text).
    public var remedy: String {
        switch self {
        case .audioLongerThanVideo, .videoLongerThanAudio, .startOffset, .primingNotSignalled, .timestampGap,
            .irregularAudioDurations, .movieDurationMismatch, .emptyTrack:
            "run `loopprep fix` on the file: it trims and signals the tracks losslessly and verifies the result"
        case .firstFrameNotKeyframe:
            "run `loopprep fix` (it starts at a keyframe; --reencode-head keeps the frames before it, H.264)"
        case .moovAtEnd: "run `loopprep fix`: it writes the index first"
        case .tooShortToLoop:
            "use a clip of at least the minimum loop length (--min-loop), or loop it twice in one file"
        case .notPlayableOnTarget: "re-encode to a codec and container the target plays (H.264 or HEVC with AAC in MP4)"
        case .seamAudioClick: "fade the audio at the seam, or find a better loop point: `loopprep loop`"
        case .seamVisualJump: "find a loop point where the picture repeats (`loopprep loop`), or --crossfade"
        case .rotation: "nothing, unless your player ignores display matrices"
        case .unreadable: "check the file: re-export it, or remove it from the folder"
        case .fixFailed, .stitchFailed, .loopFailed: "read the reason in the report; the input is left untouched"
        }
    }
}
