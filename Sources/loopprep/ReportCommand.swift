import ArgumentParser
import Foundation
import LoopAnalysis

/// `loopprep report`: merges reports (JSON or JSON Lines, e.g. one per shard) into one, in any format. The
/// files are in path order, as one run over all of them would list them, so merging the shards of a folder
/// gives the same bytes as analyzing the folder at once.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Merge JSON or JSON Lines reports (one per shard) into one report.")

    @Argument(
        help: "Reports written with --format json or --format jsonl.", completion: .file(extensions: ["json", "jsonl"]))
    var files: [String]

    @OptionGroup var report: ReportOptions

    @Option(
        help: ArgumentHelp(
            "Also write the merged report as one self-contained HTML page (without seam strips: reports carry none).",
            valueName: "file"), completion: .file(extensions: ["html"]))
    var html: String?

    /// One report read back: what made it, and its files.
    struct Shard {
        var path: String
        var command: String
        var options: AnalysisOptions
        var files: [FileReport]
    }

    /// Why a shard cannot be merged: one sentence naming it (and the line), exit 2.
    struct Refusal: Error {
        var message: String
    }

    func run() throws {
        var shards: [Shard] = []
        do {
            shards = try files.map(Self.read)
            try Self.check(shards)
        } catch let refusal as Refusal {
            Console.stderr("loopprep: error: \(refusal.message)\n")
            throw ExitCode(ExitStatus.unreadable.rawValue)
        }
        let first = shards.first
        let full = Report(
            command: first?.command ?? "analyze", options: first?.options ?? AnalysisOptions(),
            files: shards.flatMap(\.files))
        try Output.emit(full, options: report)
        // The page says it is a merge, and of what (a reader of one page cannot otherwise tell a shard's).
        let merged =
            shards.count > 1
            ? ["merged by loopprep report from \(shards.count) reports: \(shards.map(\.path).joined(separator: ", "))"]
            : ["read by loopprep report from \(shards.first?.path ?? "standard input")"]
        try Pictures.write(full, strips: [:], folder: nil, html: html, notes: merged)
        throw ExitCode(full.exitStatus(failOn: report.failOn).rawValue)
    }

    /// A JSON report or JSON Lines (`-`: standard input). JSON Lines must be whole: every line a report line,
    /// the last one its summary (a run that was killed leaves none, or a cut-off line).
    static func read(_ path: String) throws -> Shard {
        try parse(try bytes(path), name: path == "-" ? "standard input" : path)
    }

    /// A report's bytes (`-`: standard input).
    static func bytes(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let read = FileManager.default.contents(atPath: path) else {
            let why = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "no such file"
            throw Refusal(message: "cannot read the report \(path): \(why)")
        }
        return read
    }

    /// A JSON report or JSON Lines, read from `data` (`name`: where it came from, as the refusals say it).
    static func parse(_ data: Data, name: String) throws -> Shard {
        if let whole = try? JSONDecoder().decode(Report.self, from: data) {
            return Shard(path: name, command: whole.command, options: whole.options, files: whole.files)
        }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let last = lines.lastIndex { !$0.isEmpty }
        guard let last else { throw Refusal(message: "\(name) is empty: not a loopprep report") }
        var shard = Shard(path: name, command: "analyze", options: AnalysisOptions(), files: [])
        var summary = false
        for (index, line) in lines.enumerated() where !line.isEmpty {
            guard let row = try? JSONDecoder().decode(JSONLines.Row.self, from: Data(line.utf8)) else {
                if index == lines.firstIndex(where: { !$0.isEmpty }) {
                    throw Refusal(message: "\(name) is neither a loopprep JSON report nor JSON Lines")
                }
                if index == last && !text.hasSuffix("\n") {
                    throw Refusal(
                        message: """
                            \(name) is cut off at line \(index + 1): the run that wrote it did not finish \
                            (run that shard again)
                            """)
                }
                throw Refusal(message: "\(name) line \(index + 1) is not a loopprep report line")
            }
            guard !summary else {
                throw Refusal(message: "\(name) line \(index + 1) follows the summary line: two reports in one file?")
            }
            if index > 0, row.command != shard.command || row.options != shard.options {
                throw Refusal(message: "\(name) line \(index + 1) was made by another run than line 1")
            }
            shard.command = row.command
            shard.options = row.options
            if row.kind == "file", let file = row.file { shard.files.append(file) }
            if row.kind == "summary" { summary = true }
        }
        guard summary else {
            throw Refusal(
                message: """
                    \(name) has no summary line: the run that wrote it did not finish (run that shard again)
                    """)
        }
        return shard
    }

    /// Shards merge when one run could have written them all: the same command and settings, each file once.
    static func check(_ shards: [Shard]) throws {
        guard let first = shards.first else { return }
        for shard in shards.dropFirst() {
            if shard.command != first.command {
                throw Refusal(
                    message: "\(shard.path) is a \(shard.command) report and \(first.path) a \(first.command) report")
            }
            if shard.options.target != first.options.target {
                throw Refusal(
                    message: """
                        \(shard.path) was made for the \(shard.options.target.rawValue) target and \(first.path) for \
                        \(first.options.target.rawValue): merge reports made with the same settings
                        """)
            }
            if shard.options != first.options {
                throw Refusal(
                    message: """
                        \(shard.path) and \(first.path) were made with different rules or thresholds: merge reports \
                        made with the same settings
                        """)
            }
        }
        var seen: [String: String] = [:]
        for shard in shards {
            for file in shard.files {
                if let other = seen[file.path] {
                    let twice = other == shard.path ? " (given twice)" : ""
                    throw Refusal(
                        message: "\(file.path) is in both \(other) and \(shard.path)\(twice): give each shard once")
                }
                seen[file.path] = shard.path
            }
        }
    }
}
