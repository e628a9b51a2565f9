import ArgumentParser
import Dispatch
import Foundation
import LoopAnalysis
import LoopMedia

/// What every command does around its own work, in one place (swift-format's Frontend): FFmpeg's log, the temporary
/// files and the signals that remove them, the inputs found (none is an error), each input on the batch's threads
/// with the files passed over named once, and the end: the stream of reports or the whole report in the format
/// asked, and the exit code. A command brings only its options, its claims and its work on one input.
struct CommandRunner {
    /// What the batch's threads share.
    final class Shared: Sendable {
        let temporaries = TemporaryFiles()
        /// Outputs written whole, of how many: what an interruption says.
        let written = Locked((done: 0, of: 0))
        let passedOver = PassedOver()
    }

    let shared: Shared
    private let jobs: Int
    private let shard: Shard?
    private let signals: [any DispatchSourceSignal]

    /// The preamble: FFmpeg's log as --verbose asks, and on SIGINT or SIGTERM the temporaries removed (`counts`:
    /// the line says how many outputs were written).
    init(verbose: Bool, batch: BatchOptions? = nil, counts: Bool = false) {
        Console.configureFFmpegLog(verbose: verbose)
        (jobs, shard) = (batch?.jobs ?? 1, batch?.shard)
        let shared = Shared()
        self.shared = shared
        let done: @Sendable () -> String = { shared.written.withLock { "\($0.done) of \($0.of) written" } }
        signals = Console.cleanUpOnSignals(done: counts ? done : nil) { shared.temporaries.removeAll() }
    }

    var temporaries: TemporaryFiles { shared.temporaries }

    /// The inputs under `paths` that this shard keeps; none at all is an error (exit 2).
    func items(_ paths: [String]) throws -> [Inputs.Item] {
        let items = Inputs.collect(paths).filter { shard?.keeps($0) ?? true }
        if items.isEmpty && shard == nil { try Self.noMedia(paths) }
        return items
    }

    /// "no media found" (exit 2): the paths named hold no audio or video.
    static func noMedia(_ paths: [String]) throws -> Never {
        Console.stderr("loopprep: error: no media found in \(paths.joined(separator: ", "))\n")
        throw ExitCode(ExitStatus.unreadable.rawValue)
    }

    /// `work` on each item, on --jobs threads, the results in input order. A result `unreadable` says is not media
    /// is passed over where its file was found in a folder (named once after the batch) and reported where it was
    /// named; `take` streams a result and says whether it is kept. Nothing reported at all is "no media found".
    func each<R: Sendable>(
        _ items: [Inputs.Item], paths: [String], label: String,
        unreadable: @Sendable @escaping (R) -> Bool, take: @Sendable @escaping (R) -> Bool = { _ in true },
        work: @Sendable @escaping (Inputs.Item) -> R
    ) throws -> [R] {
        let (shared, reported) = (shared, Locked(0))
        shared.written.withLock { $0.of = items.count }
        DecoderThreads.share(files: min(jobs, items.count))
        let results = Batch.run(items, jobs: jobs, label: label) { item -> R? in
            let result = work(item)
            if unreadable(result) && !item.explicit { return shared.passedOver.pass(item.path) }
            reported.withLock { $0 += 1 }
            return take(result) ? result : nil
        }
        shared.passedOver.say()
        if reported.withLock({ $0 }) == 0 && shard == nil { try Self.noMedia(paths) }
        return results.compactMap { $0 }
    }

    /// The end of a batch of file reports: a slim stream's summary and its exit code, or the whole report emitted
    /// in the format asked and returned.
    func emit(
        _ files: [FileReport], command: String, options: AnalysisOptions, stream: ReportStream,
        report: ReportOptions
    ) throws -> Report {
        if let status = stream.finishSlim(failOn: report.failOn) { throw ExitCode(status.rawValue) }
        let full = Report(command: command, options: options, files: files)
        stream.finish(full)
        try Output.emit(full, options: report, streamed: stream.streamed)
        return full
    }

    /// Ends the run with `status`, the signal handlers kept until then.
    func exit(_ status: ExitStatus) throws -> Never {
        withExtendedLifetime(signals) {}
        throw ExitCode(status.rawValue)
    }
}
