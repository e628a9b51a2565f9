import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia
import Synchronization

/// `--shard K/N`: a stable split of the walked inputs. A file's shard is the FNV-1a hash of its path relative to
/// the argument it was found under, modulo N, so adding files elsewhere moves no file to another shard, and K
/// counts from 0 (a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`).
struct Shard: ExpressibleByArgument, Sendable, Equatable {
    var index: Int
    var count: Int

    init?(argument: String) {
        let parts = argument.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (0..<n).contains(k) else {
            return nil
        }
        index = k
        count = n
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
    private let lock = Mutex(())

    init(command: String, options: AnalysisOptions, sink: @escaping @Sendable (String) -> Void) {
        self.command = command
        self.options = options
        self.sink = sink
    }

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
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

    /// Reads JSON Lines back: the file objects.
    static func files(_ text: String) throws -> (command: String, options: AnalysisOptions, files: [FileReport]) {
        struct Row: Decodable {
            var kind: String
            var command: String
            var options: AnalysisOptions
            var file: FileReport?
        }
        var command = "analyze"
        var options = AnalysisOptions()
        var files: [FileReport] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            let row = try JSONDecoder().decode(Row.self, from: Data(line.utf8))
            command = row.command
            options = row.options
            if row.kind == "file", let file = row.file { files.append(file) }
        }
        return (command, options, files)
    }
}

/// SARIF 2.1.0 for GitHub code scanning: one run, loopprep as the driver with its rules, one result per finding
/// (and per failed fix), at the file's path.
enum SARIFFormat {
    static func render(_ report: Report) -> String {
        let used = Set(
            report.files.flatMap { f in
                f.findings.map(\.rule) + (f.fixFailure != nil ? [RuleID.fixFailed.rawValue] : [])
            }
        )
        let rules: [[String: Any]] = Set(Analyzer.allIDs + [RuleID.fixFailed.rawValue, RuleID.unreadable.rawValue])
            .filter {
                used.contains($0)
            }.sorted()
            .map {
                [
                    "id": $0, "name": $0, "shortDescription": ["text": "loopprep rule \($0)"],
                    "helpUri": "https://github.com/loopprep/loopprep#rules",
                ]
            }
        var results: [[String: Any]] = []
        for file in report.files {
            func result(_ rule: String, _ level: String, _ message: String) -> [String: Any] {
                [
                    "ruleId": rule, "level": level, "message": ["text": message],
                    "locations": [["physicalLocation": ["artifactLocation": ["uri": uri(file.path)]]]],
                ]
            }
            if let failure = file.fixFailure { results.append(result(RuleID.fixFailed.rawValue, "error", failure)) }
            for f in file.findings {
                let level =
                    switch f.severity {
                    case .error: "error"
                    case .warning: "warning"
                    case .info: "note"
                    }
                results.append(result(f.rule, level, f.message + " (fix: " + f.hint + ")"))
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
                ]
            ],
        ]
        let data =
            (try? JSONSerialization.data(
                withJSONObject: doc, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A relative path as a URI reference (SARIF's artifactLocation.uri): percent-encoded, slashes kept.
    static func uri(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlPathAllowed) ?? path
    }
}
