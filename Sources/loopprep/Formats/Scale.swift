import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

/// `--shard K/N`: a stable split of the walked inputs. A file's shard is the FNV-1a hash of its path relative to
/// the argument it was found under, modulo N, so adding files elsewhere moves no file to another shard, and K
/// counts from 0 (a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`).
struct Shard: ExpressibleByArgument, Sendable, Equatable {
    var index: Int
    var count: Int

    init?(argument: String) {
        guard let shard = try? Self.parse(argument) else { return nil }
        self = shard
    }

    private init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `K/N`, or what is wrong with it in words.
    static func parse(_ argument: String) throws -> Shard {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw ValidationError("give K/N, shard K of N, as 0/4")
        }
        guard n >= 1 else { throw ValidationError("N, the number of shards, must be 1 or more") }
        guard (0..<n).contains(k) else {
            throw ValidationError("K counts from 0 and must be under N (0 to \(n - 1))")
        }
        return Shard(index: k, count: n)
    }

    static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in s.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return h
    }

    func keeps(_ item: Inputs.Item) -> Bool { Int(Self.hash(item.relativePath) % UInt64(count)) == index }
}

/// `--format jsonl`: one self-contained object a line, written as each file is done (order of completion),
/// then a summary line. Schema (version `Report.currentSchemaVersion`):
/// `{"kind":"file","schemaVersion":1,"tool":"loopprep","version":"0.1.0","command":"analyze","file":{...as in the JSON
/// report}}` and last `{"kind":"summary",...,"summary":{...}}`.
final class JSONLines: Sendable {
    struct Line: Encodable {
        var kind: String
        var schemaVersion = Report.currentSchemaVersion
        var tool = "loopprep"
        var version = Report.toolVersion
        var ffmpeg = FFmpegLibraries.description
        var command: String
        var options: AnalysisOptions
        var file: FileReport?
        var summary: Report.Summary?
    }

    private let command: String
    private let options: AnalysisOptions
    private let sink: @Sendable (String) -> Void
    private let lock = Locked(())

    init(command: String, options: AnalysisOptions, sink: @escaping @Sendable (String) -> Void) {
        self.command = command
        self.options = options
        self.sink = sink
    }

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.userInfo[Refusal.wordsKey] = Refusal.words
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// One line: a file's object, or (file nil) the summary.
    static func line(command: String, options: AnalysisOptions, file: FileReport?, summary: Report.Summary?) -> String {
        let row = Line(
            kind: file == nil ? "summary" : "file", command: command, options: options, file: file, summary: summary)
        return String(decoding: (try? encoder().encode(row)) ?? Data(), as: UTF8.self) + "\n"
    }

    func write(_ file: FileReport) {
        let text = Self.line(command: command, options: options, file: file, summary: nil)
        lock.withLock { _ in sink(text) }
    }

    func finish(_ summary: Report.Summary) {
        let text = Self.line(command: command, options: options, file: nil, summary: summary)
        lock.withLock { _ in sink(text) }
    }

    /// The whole report as lines (not streamed: for --report jsonl=FILE and `loopprep report`).
    static func render(_ report: Report) -> String {
        report.files.map { line(command: report.command, options: report.options, file: $0, summary: nil) }.joined()
            + line(command: report.command, options: report.options, file: nil, summary: report.summary)
    }

    /// One line read back (`loopprep report`).
    struct Row: Decodable {
        var kind: String
        var command: String
        var options: AnalysisOptions
        var file: FileReport?
    }
}

/// SARIF 2.1.0 for GitHub code scanning: one run, loopprep as the driver with its rules, one result per finding
/// (and per failed fix), at the file's path.
enum SARIFFormat {
    static func render(_ report: Report) -> String {
        let used = Set(
            report.files.flatMap { f in
                f.findings.map(\.rule) + (f.fixFailure != nil ? [report.failureRule] : [])
            }
        )
        let rules: [[String: Any]] = Set(Analyzer.allIDs + [report.failureRule, RuleID.unreadable.rawValue])
            .filter {
                used.contains($0)
            }.sorted()
            .map { id -> [String: Any] in
                let rule = RuleID(rawValue: id)
                let meaning = rule?.meaning ?? "loopprep rule \(id)"
                let remedy = rule?.remedy ?? ""
                return [
                    "id": id, "name": id, "shortDescription": ["text": meaning],
                    "fullDescription": ["text": meaning],
                    "help": ["text": remedy, "markdown": "**\(id)**: \(meaning).\n\nWhat to do: \(remedy)."],
                    "helpUri": "https://github.com/loopprep/loopprep#why-loops-stutter",
                    "defaultConfiguration": ["level": Self.defaultLevel(rule)],
                ]
            }
        var results: [[String: Any]] = []
        for file in report.files {
            // A media file has no lines: the region is its first (code scanning needs one to place a result). The
            // fingerprint keeps a result's identity across runs: the file, the rule, the track.
            func result(_ rule: String, _ level: String, _ message: String, track: Int? = nil) -> [String: Any] {
                [
                    "ruleId": rule, "level": level, "message": ["text": message],
                    "locations": [
                        [
                            "physicalLocation": [
                                "artifactLocation": artifact(file.path),
                                "region": ["startLine": 1],
                            ]
                        ]
                    ],
                    "partialFingerprints": [
                        "loopprepFinding/v1": "\(file.path):\(rule):\(track.map(String.init) ?? "-")"
                    ],
                ]
            }
            if let failure = file.fixFailure { results.append(result(report.failureRule, "error", failure)) }
            for f in file.findings {
                let level =
                    switch f.severity {
                    case .error: "error"
                    case .warning: "warning"
                    case .info: "note"
                    }
                results.append(result(f.rule, level, f.messageWithHint, track: f.track))
            }
        }
        let doc: [String: Any] = [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [
                [
                    "tool": [
                        "driver": [
                            "name": "loopprep", "version": Report.toolVersion,
                            "informationUri": "https://github.com/loopprep/loopprep",
                            "rules": rules,
                        ]
                    ],
                    "results": results,
                    // Paths are relative to where loopprep ran: code scanning resolves them from the checkout.
                    "originalUriBaseIds": ["%SRCROOT%": ["uri": "file://" + Self.workingFolder]],
                ]
            ],
        ]
        let data =
            (try? JSONSerialization.data(
                withJSONObject: doc, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func defaultLevel(_ rule: RuleID?) -> String {
        switch rule {
        case .rotation: "note"
        case .unreadable, .fixFailed, .stitchFailed, .loopFailed, .notPlayableOnTarget: "error"
        default: "warning"
        }
    }

    /// The working folder as a URI with a trailing slash (SARIF requires one on a base).
    static var workingFolder: String {
        let cwd = FileManager.default.currentDirectoryPath
        let path = cwd.hasSuffix("/") ? cwd : cwd + "/"
        return path.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlPathAllowed) ?? path
    }

    /// Where a file is, for code scanning: relative to %SRCROOT% (the working folder) when it lies under it,
    /// else an absolute file URI.
    static func artifact(_ path: String) -> [String: String] {
        let cwd = FileManager.default.currentDirectoryPath
        let root = cwd.hasSuffix("/") ? cwd : cwd + "/"
        var relative = path
        if path.hasPrefix("/") {
            guard path.hasPrefix(root) else { return ["uri": "file://" + uri(path)] }
            relative = String(path.dropFirst(root.count))
        }
        while relative.hasPrefix("./") { relative.removeFirst(2) }
        return ["uri": uri(relative), "uriBaseId": "%SRCROOT%"]
    }

    /// A relative path as a URI reference (SARIF's artifactLocation.uri): percent-encoded, slashes kept.
    static func uri(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlPathAllowed) ?? path
    }
}

/// GitLab's Code Quality report (`artifacts: reports: codequality`): a JSON array, one issue per finding (and per
/// output that could not be made), at line 1 of the file's path relative to the working folder (the checkout),
/// with a fingerprint that keeps its identity across runs (the file, the rule, the track).
enum CodeQualityFormat {
    static func render(_ report: Report) -> String {
        var issues: [[String: Any]] = []
        for file in report.files {
            let path = relativePath(file.path)
            func issue(_ rule: String, _ severity: String, _ text: String, track: Int?) {
                issues.append([
                    "description": text, "check_name": rule, "severity": severity,
                    "fingerprint": fingerprint("\(path):\(rule):\(track.map(String.init) ?? "-")"),
                    "location": ["path": path, "lines": ["begin": 1]],
                ])
            }
            if let failure = file.fixFailure { issue(report.failureRule, "critical", failure, track: nil) }
            for f in file.findings {
                let severity: String
                switch f.severity {
                case _ where f.ruleID == .unreadable: severity = "blocker"
                case .error: severity = "critical"
                case .warning: severity = "major"
                case .info: severity = "info"
                }
                issue(f.rule, severity, f.messageWithHint, track: f.track)
            }
        }
        let data =
            (try? JSONSerialization.data(
                withJSONObject: issues, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A path relative to the working folder when it lies under it (GitLab places issues by repository path).
    static func relativePath(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let root = cwd.hasSuffix("/") ? cwd : cwd + "/"
        var relative = path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
        while relative.hasPrefix("./") { relative.removeFirst(2) }
        return relative
    }

    /// 64-bit FNV-1a, twice (two seeds), as 32 hex digits: stable across runs and machines.
    static func fingerprint(_ text: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var h = seed
            for byte in text.utf8 {
                h ^= UInt64(byte)
                h = h &* 0x100_0000_01b3
            }
            return h
        }
        let hex = [fnv(0xcbf2_9ce4_8422_2325), fnv(0x8422_2325_cbf2_9ce4)].map { String($0, radix: 16) }
        return hex.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
    }
}
