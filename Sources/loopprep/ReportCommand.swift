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

    func run() throws {
        var merged: [FileReport] = []
        var command = "analyze"
        var options = AnalysisOptions()
        for path in files {
            // A shard that cannot be read is an input that cannot be read: one line, exit 2.
            guard let data = FileManager.default.contents(atPath: path) else {
                let why = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "no such file"
                Console.stderr("loopprep: error: cannot read the report \(path): \(why)\n")
                throw ExitCode(ExitStatus.unreadable.rawValue)
            }
            if let whole = try? JSONDecoder().decode(Report.self, from: data) {
                merged += whole.files
                command = whole.command
                options = whole.options
            } else {
                do {
                    let lines = try JSONLines.files(String(decoding: data, as: UTF8.self))
                    merged += lines.files
                    command = lines.command
                    options = lines.options
                } catch {
                    Console.stderr("loopprep: error: \(path) is neither a loopprep JSON report nor JSON Lines\n")
                    throw ExitCode(ExitStatus.unreadable.rawValue)
                }
            }
        }
        let full = Report(command: command, options: options, files: merged)
        try Output.emit(full, options: report)
        try Pictures.write(full, strips: [:], folder: nil, html: html)
        throw ExitCode(full.exitStatus(failOn: report.failOn).rawValue)
    }
}
