import Foundation

/// `.loopprep.json`: a project's own settings, found from the working folder upward, as linters find theirs.
///
///     {
///       "target": "web",
///       "min-loop": 2,
///       "disable": ["moov-at-end"],
///       "thresholds": { "seam-visual-jump": 10, "seam-audio-click": 0.1 },
///       "ignore": [ { "path": "legacy/**", "rules": ["seam-visual-jump"] }, { "path": "raw/" } ]
///     }
///
/// The command line wins over the file for `--target` and `--min-loop`; `--disable` adds to `disable`. An
/// `ignore` entry without `rules` skips the files it matches when a folder is searched (a file named on the
/// command line is still analysed).
public struct ProjectConfig: Sendable, Equatable {
    public static let fileName = ".loopprep.json"

    public struct Ignore: Sendable, Equatable {
        public var path: PathPattern
        /// nil: the whole file.
        public var rules: [String]?
    }

    public var target: Target?
    public var minimumLoopSeconds: Rational?
    public var disabled: [String] = []
    public var thresholds: [String: Double] = [:]
    public var ignores: [Ignore] = []

    public init() {}

    /// What a config file says, or one sentence on what is wrong with it.
    public static func parse(_ bytes: [UInt8]) throws(ConfigError) -> ProjectConfig {
        let root = try StrictJSON.parse(bytes)
        guard case .object(let object) = root else { throw ConfigError("must hold one JSON object") }
        let keys = ["target", "min-loop", "disable", "thresholds", "ignore"]
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) && $0 != "$schema" }) {
            throw ConfigError("has an unknown key \"\(unknown)\" (keys: \(keys.joined(separator: ", ")))")
        }
        var config = ProjectConfig()
        if let value = object["target"] {
            guard case .string(let name) = value, let target = Target(rawValue: name) else {
                throw ConfigError(
                    "\"target\" must be one of \(Target.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            config.target = target
        }
        if let value = object["min-loop"] {
            // Decimal seconds, exactly as written, or the command line's syntax ("2s", "800ms").
            let seconds: Rational? =
                switch value {
                case .number(let n): Rational(decimal: n)
                case .string(let text): TimeAmount(text)?.fixedSeconds
                default: nil
                }
            guard let seconds, seconds >= .zero, seconds < Rational(86_400) else {
                throw ConfigError(
                    "\"min-loop\" must be a time under a day in seconds or milliseconds (1, \"1s\", \"800ms\")")
            }
            config.minimumLoopSeconds = seconds
        }
        if let value = object["disable"] {
            config.disabled = try ruleList(value, "\"disable\"")
        }
        if let value = object["thresholds"] {
            guard case .object(let table) = value else {
                throw ConfigError("\"thresholds\" must be an object of rule: number")
            }
            for (rule, raw) in table {
                guard let limit = Analyzer.thresholds[rule] else {
                    throw ConfigError(
                        """
                        \"thresholds\" names \"\(rule)\", which has none (rules with a threshold: \
                        \(Analyzer.thresholds.keys.sorted().joined(separator: ", ")))
                        """
                    )
                }
                guard case .number(let v) = raw, limit.range.contains(v) else {
                    throw ConfigError(
                        """
                        \"thresholds\".\"\(rule)\" must be a number from \(limit.range.lowerBound) to \
                        \(limit.range.upperBound) (\(limit.unit))
                        """
                    )
                }
                config.thresholds[rule] = v
            }
        }
        if let value = object["ignore"] {
            guard case .array(let entries) = value else {
                throw ConfigError("\"ignore\" must be a list of { \"path\": ..., \"rules\": [...] }")
            }
            for entry in entries {
                guard case .object(let e) = entry, case .string(let path)? = e["path"], !path.isEmpty,
                    e.keys.allSatisfy({ $0 == "path" || $0 == "rules" })
                else {
                    throw ConfigError(
                        "each \"ignore\" entry must be { \"path\": \"pattern\" } with an optional \"rules\" list")
                }
                var rules: [String]?
                if let listed = e["rules"] { rules = try ruleList(listed, "\"ignore\" \"\(path)\" \"rules\"") }
                config.ignores.append(Ignore(path: PathPattern(path), rules: rules))
            }
        }
        return config
    }

    /// For a file at `relativePath` (to the config's folder): nil when an entry skips it whole, else the rules
    /// not checked on it.
    public func ignoredRules(at relativePath: String) -> Set<String>? {
        var rules: Set<String> = []
        for ignore in ignores where ignore.path.matches(relativePath) {
            guard let listed = ignore.rules else { return nil }
            rules.formUnion(listed)
        }
        return rules
    }

    /// The pattern of the first entry that skips the file at `relativePath` whole, or nil.
    public func skippingPattern(at relativePath: String) -> String? {
        ignores.first { $0.rules == nil && $0.path.matches(relativePath) }?.path.text
    }

    /// The options with this file's settings under the command line's (`target`, `minimumLoopSeconds`: nil when
    /// the command line did not set them).
    public func applied(to options: AnalysisOptions, target: Target?, minimumLoopSeconds: Rational?) -> AnalysisOptions
    {
        var o = options
        o.target = target ?? self.target ?? o.target
        o.minimumLoopSeconds = minimumLoopSeconds ?? self.minimumLoopSeconds ?? o.minimumLoopSeconds
        o = o.disabling(disabled)
        if !thresholds.isEmpty { o.thresholds = thresholds }
        return o
    }

    private static func ruleList(_ value: JSON, _ name: String) throws(ConfigError) -> [String] {
        guard case .array(let items) = value else { throw ConfigError("\(name) must be a list of rule names") }
        let list = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        guard list.count == items.count else { throw ConfigError("\(name) must be a list of rule names") }
        if let unknown = list.first(where: { !Analyzer.allIDs.contains($0) }) {
            throw ConfigError(
                "\(name) names \"\(unknown)\", no such rule (rules: \(Analyzer.allIDs.joined(separator: ", ")))")
        }
        return list
    }
}

/// A JSON document as written, so that a boolean is never read as a number nor a number as a string.
enum JSON: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])
}

/// What is wrong with a config file, as the end of a sentence that starts with its path.
public struct ConfigError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
