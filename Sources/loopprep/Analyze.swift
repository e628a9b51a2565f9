import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

struct Analyze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find every cause of a stuttering loop, per file and per track.",
        discussion: "Rules: \(Analyzer.allIDs.joined(separator: ", ")).")

    @Argument(help: "Files and folders (folders are searched recursively; hidden files are skipped).")
    var paths: [String]

    @Option(help: "Playback target whose codecs and containers count as playable: apple or web.")
    var target: Target = .apple

    @Option(name: .customLong("min-loop"), help: "Seconds below which a clip is too short for a queue looper.")
    var minLoop: Double = 1

    @Flag(name: .customLong("no-seam"), help: "Skip the seam checks (they decode the first and last frames).")
    var noSeam = false

    @OptionGroup var report: ReportOptions

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("name at least one file or folder") }
        guard minLoop >= 0, minLoop < 86_400 else { throw ValidationError("--min-loop must be between 0 and 86400 seconds") }
    }

    func run() async throws {
        Console.configureFFmpegLog(verbose: report.verbose)
        // --min-loop is typed in decimal; keep it exact to the millisecond.
        let options = AnalysisOptions(target: target, minimumLoopSeconds: Rational(Int64((minLoop * 1000).rounded()), 1000),
                                      seamChecks: !noSeam)
        let items = Inputs.collect(paths)
        let reports = Batch.run(items, jobs: report.jobs, label: "analyzing") { item in
            let result = ClipAnalysis.report(path: item.path, options: options)
            return (result.error == nil || item.explicit) ? result : nil
        }
        let full = Report(command: "analyze", options: options, files: reports.compactMap { $0 })
        try Output.emit(full, options: report)
        throw ExitCode(full.exitStatus(failOn: report.failOn).rawValue)
    }
}
