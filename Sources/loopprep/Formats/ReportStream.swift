import Foundation
import LoopAnalysis
import LoopMedia

/// --format jsonl: each file's line as soon as it is done. When nothing else needs the files afterwards (no
/// extra --report, no pictures) the run is slim: each file's diagnostics go out with its line and only the
/// counts are kept, so memory stays flat however many files there are.
final class ReportStream: Sendable {
    private let lines: JSONLines?
    private let slim: Bool
    private let command: String
    private let options: AnalysisOptions
    private let quiet: Bool
    private let tally = Locked(Report.Tally())
    private let count = Locked(0)

    /// `keepsFiles`: the files are needed after the run whatever the format (analyze's pictures).
    init(command: String, options: AnalysisOptions, report: ReportOptions, keepsFiles: Bool = false) {
        lines = report.format == .jsonl ? JSONLines(command: command, options: options) { Console.stdout($0) } : nil
        slim = lines != nil && report.reports.isEmpty && !keepsFiles
        self.command = command
        self.options = options
        quiet = report.quiet
    }

    /// Streams one file; false when a slim run keeps nothing more of it.
    func take(_ result: FileReport) -> Bool {
        count.withLock { $0 += 1 }
        lines?.write(result)
        guard slim else { return true }
        if !quiet { Console.stderr(Diagnostics.render(Report(command: command, options: options, files: [result]))) }
        tally.withLock { $0.add(result) }
        return false
    }

    /// A slim run's end: the summary line, and the exit status from the counts (nil: not slim, the full report
    /// follows).
    func finishSlim(failOn: FailOn) -> ExitStatus? {
        guard slim else { return nil }
        let counted = tally.withLock { $0 }
        lines?.finish(counted.summary)
        return counted.exitStatus(failOn: failOn)
    }

    /// The summary line after the full report's files.
    func finish(_ full: Report) { lines?.finish(full.summary) }

    /// How many files were reported (none: the inputs held no media).
    var files: Int { count.withLock { $0 } }

    /// Whether the lines went to stdout already (the full report is not printed again).
    var streamed: Bool { lines != nil }
}
