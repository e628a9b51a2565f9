public enum Severity: String, Codable, Sendable, Comparable, CaseIterable {
    case info, warning, error

    public var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One stutter cause found in one file (or one track of it).
public struct Finding: Codable, Sendable, Equatable {
    /// Stable kebab-case id, e.g. "audio-longer-than-video".
    public var rule: String
    public var severity: Severity
    /// FFmpeg stream index of the track concerned, if the finding is about one track.
    public var track: Int?
    /// One line, with the measured figures.
    public var message: String
    /// What to do about it.
    public var hint: String
    /// The measured figures by name (ms, samples, frames...), for machines.
    public var figures: [String: Double]

    public init(
        rule: String, severity: Severity, track: Int? = nil, message: String, hint: String,
        figures: [String: Double] = [:]
    ) {
        self.rule = rule
        self.severity = severity
        self.track = track
        self.message = message
        self.hint = hint
        self.figures = figures
    }

    /// The message and its hint in one line, as annotations and one-line formats say it ("... (fix: ...)"); the
    /// message alone where it says its own remedy (an unreadable file's precise cause).
    public var messageWithHint: String { hint.isEmpty ? message : "\(message) (fix: \(hint))" }
}

/// Where the loops play: Apple's AVFoundation (iOS, tvOS, macOS), or browsers' `<video>`. `web` is what all
/// three browsers play (docs/playability.md gives the tables and their sources).
public enum Target: String, Codable, Sendable, CaseIterable {
    case apple, web, chrome, firefox, safari

    /// A browser: players there may ignore edit lists (fix --target bakes the video's trims).
    public var isBrowser: Bool { self != .apple }
}

public struct AnalysisOptions: Codable, Sendable, Equatable {
    public var target: Target
    /// Clips shorter than this need several items in a queue looper.
    public var minimumLoopSeconds: Rational
    public var seamChecks: Bool
    /// Rules not reported (--disable), sorted; nil: none.
    public var disabled: [String]?
    /// Rule thresholds set by `.loopprep.json` (rule id: value); a rule not named keeps its default.
    public var thresholds: [String: Double]?
    /// The `.loopprep.json` these options came from, as found; nil: none.
    public var config: String?

    public init(target: Target = .apple, minimumLoopSeconds: Rational = .one, seamChecks: Bool = true) {
        self.target = target
        self.minimumLoopSeconds = minimumLoopSeconds
        self.seamChecks = seamChecks
    }

    /// These options with `rules` also not reported.
    public func disabling(_ rules: some Sequence<String>) -> AnalysisOptions {
        var o = self
        let all = Set(disabled ?? []).union(rules)
        o.disabled = all.isEmpty ? nil : all.sorted()
        return o
    }

    /// A rule's threshold: the configured one, else its default.
    public func threshold(_ rule: RuleID) -> Double {
        thresholds?[rule.rawValue] ?? Analyzer.thresholds[rule.rawValue]?.defaultValue ?? 0
    }
}

/// A stutter rule: a pure function of a file's facts.
public protocol Rule: Sendable {
    /// The ids this rule can report.
    var ids: [RuleID] { get }
    func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding]
}
