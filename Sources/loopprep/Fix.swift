import ArgumentParser
import Dispatch
import Foundation
import LoopAnalysis
import LoopMedia

struct Fix: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Trim every track to the shortest, exactly and losslessly; start on a keyframe; moov first; verify.",
        discussion: """
        Outputs keep the input's container and its path relative to the folder it was found in. Every output is
        re-probed before it is kept; one that still has a length, start, priming, keyframe, moov or gap finding
        is discarded and its input reported as failed (exit 1).
        """)

    @Argument(help: "Files and folders (folders are searched recursively; hidden files are skipped).")
    var paths: [String]

    @Option(name: [.customShort("o"), .customLong("output")], help: "Folder for the repaired files.")
    var output: String?

    @Flag(name: .customLong("in-place"), help: "Replace each input atomically, only after its output verified clean.")
    var inPlace = false

    @Flag(name: .customLong("dry-run"), help: "Print the plan per track and write nothing.")
    var dryRun = false

    @Option(help: "AAC priming, in samples, to hide where the file does not signal it (FFmpeg: 1024, Apple: 2112).")
    var priming: Int64 = 1024

    @Option(help: "Playback target for the findings reported on the outputs: apple or web.")
    var target: Target = .apple

    @OptionGroup var report: ReportOptions

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("name at least one file or folder") }
        if inPlace && output != nil { throw ValidationError("use either -o DIR or --in-place, not both") }
        if !inPlace && output == nil && !dryRun { throw ValidationError("name an output folder with -o DIR (or use --in-place or --dry-run)") }
        guard (0...8192).contains(priming) else { throw ValidationError("--priming must be between 0 and 8192 samples") }
    }

    func run() async throws {
        Console.configureFFmpegLog(verbose: report.verbose)
        let temporaries = TemporaryFiles()
        let signals = Console.cleanUpOnSignals { temporaries.removeAll() }
        defer { withExtendedLifetime(signals) {} }

        let options = FixOptions(assumedPriming: priming)
        let analysis = AnalysisOptions(target: target, seamChecks: false)
        let items = Inputs.collect(paths)
        let (outputDir, inPlace, dryRun) = (output, inPlace, dryRun)
        let reports = Batch.run(items, jobs: report.jobs, label: dryRun ? "planning" : "fixing") { item -> FileReport? in
            let destination = inPlace ? item.path : (outputDir.map { ($0 as NSString).appendingPathComponent(item.relativePath) } ?? item.path)
            if !inPlace && !dryRun && Self.sameFile(item.path, destination) {
                return ClipAnalysis.unreadable(path: item.path, error: MediaError("write output", reason: "the output would overwrite the input (use --in-place)"))
            }
            let result = ClipFix.fix(item.path, to: destination, options: options, analysis: analysis, dryRun: dryRun, temporaries: temporaries)
            return (result.error == nil || item.explicit) ? result : nil
        }
        let full = Report(command: "fix", options: analysis, files: reports.compactMap { $0 })
        try Output.emit(full, options: report)
        throw ExitCode(full.exitStatus(failOn: report.failOn).rawValue)
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        let x = URL(fileURLWithPath: a).standardizedFileURL.resolvingSymlinksInPath().path
        let y = URL(fileURLWithPath: b).standardizedFileURL.resolvingSymlinksInPath().path
        return x == y
    }
}
