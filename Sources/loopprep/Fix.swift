import ArgumentParser
import Dispatch
import Foundation
import LoopAnalysis
import LoopIndex
import LoopMedia

enum ConvertTarget: String, ExpressibleByArgument, CaseIterable { case mp4, mov }

/// `--keep`: the track a designed loop is made of.
enum KeptTrack: String, ExpressibleByArgument, CaseIterable { case video }

struct Fix: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Trim every track to the shortest, exactly and losslessly; start on a keyframe; moov first; verify.",
        discussion: """
            Outputs keep the input's container and its path relative to the folder it was found in. Every output is \
            re-probed before it is kept; one that still has a length, start, priming, keyframe, moov or gap finding \
            is discarded and its input reported as failed (exit 1). Otherwise fix exits 0 when every file was written \
            and verified or needed nothing: findings it cannot change (a codec the target does not play) are \
            reported and fail the run only under --fail-on; a dry run's exit code describes the inputs.
            """)

    @OptionGroup var inputs: InputPaths

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Folder for the repaired files.", valueName: "dir"), completion: .directory)
    var output: String?

    @Flag(name: .customLong("in-place"), help: "Replace each input atomically, only after its output verified clean.")
    var inPlace = false

    @Flag(name: .customLong("dry-run"), help: "Print the plan per track and write nothing.")
    var dryRun = false

    @Flag(name: [.customLong("force"), .customShort("y")], help: "Replace an output that exists (never an input).")
    var force = false

    @Option(
        help: ArgumentHelp(
            """
            Encoder priming, in samples, to hide where the file does not signal it (default: AAC 1024 as FFmpeg \
            writes it, Apple writes 2112; MP3 1105, LAME's 576 plus the decoder's 529).
            """,
            valueName: "samples"))
    var priming: Int64?

    @Option(
        help: ArgumentHelp(
            "Repeat a clip shorter than TIME whole, the fewest times that reach it (audio re-encoded).",
            valueName: "time"))
    var unroll: TimeAmount?

    @Option(
        help: ArgumentHelp(
            "Repeat every clip exactly N times (audio re-encoded as one stream; video stays stream-copied).",
            valueName: "n"))
    var loops: Int?

    @Option(
        name: .customLong("seam-fade"),
        help: ArgumentHelp(
            """
            Fade the audio out and in over TIME at the loop point (audio re-encoded, never video): 10ms, 0.01s. \
            A bare number is refused: it meant milliseconds before every option read seconds.
            """,
            valueName: "time"))
    var seamFade: String?

    /// --seam-fade as a time (validated).
    var seamFadeTime: Rational? { seamFade.flatMap { TimeAmount($0)?.fixedSeconds } }

    @Flag(
        name: .customLong("reencode-head"),
        help:
            """
            Keep a start inside a GOP by re-encoding the frames before the next keyframe (H.264), instead of \
            starting at that keyframe.
            """
    )
    var reencodeHead = false

    @Flag(
        name: .customLong("reencode-audio"),
        help:
            """
            Encode the audio again (same codec) where its container cannot say a trim around copied frames: an \
            MP3 gets a LAME header with its delay and padding.
            """
    )
    var reencodeAudio = false

    @Option(
        name: .customLong("to"),
        help: ArgumentHelp(
            """
            Write Matroska, WebM, MPEG-TS, FLV and AVI inputs as this container beside them (mp4 or mov), whose \
            edit lists say any trim; a MOV (or QuickTime-brand .m4v) becomes an MP4 with --to mp4, an MP4 a MOV with \
            --to mov. Default: MP4, MOV, Matroska and WebM stay as they are, the others become MP4 (MOV for PCM).
            """,
            valueName: "container"))
    var to: ConvertTarget?

    @Option(
        help: ArgumentHelp(
            """
            The video is the loop: audio that ends before it plays to its end, then silence to the video's end \
            (audio re-encoded), instead of the picture being cut to the audio.
            """,
            valueName: "video"))
    var keep: KeptTrack?

    @Flag(
        name: .customLong("drop-audio"),
        help: "Leave the audio out: a muted background loop, every frame of the video kept (AVPlayerLooper loops it).")
    var dropAudio = false

    @OptionGroup var seam: SeamOption

    @OptionGroup var webPlayer: WebPlayerOption

    @OptionGroup var report: ReportOptions

    @OptionGroup var batch: BatchOptions

    @OptionGroup var project: ConfigOptions

    func validate() throws {
        if inPlace && output != nil { throw ValidationError("use either -o DIR or --in-place, not both") }
        if !inPlace && output == nil && !dryRun {
            throw ValidationError("name an output folder with -o DIR (or use --in-place or --dry-run)")
        }
        guard (0...8192).contains(priming ?? 0) else {
            throw ValidationError("--priming must be between 0 and 8192 samples")
        }
        if unroll != nil && loops != nil { throw ValidationError("use either --unroll or --loops, not both") }
        if keep != nil && dropAudio {
            throw ValidationError("use either --keep video (pads the audio) or --drop-audio (leaves it out), not both")
        }
        if let unroll, !(unroll.fixedSeconds.map { $0 > .zero && $0 <= Rational(3600) } ?? false) {
            throw ValidationError("--unroll takes a time above 0 and up to an hour, in seconds or milliseconds")
        }
        if let loops, !(1...10_000).contains(loops) { throw ValidationError("--loops takes a count from 1 to 10000") }
        if let seamFade {
            if Double(seamFade) != nil {
                throw ValidationError("--seam-fade needs a unit: \(seamFade)ms (or seconds: 0.01s)")
            }
            guard let fade = TimeAmount(seamFade)?.fixedSeconds, fade >= Rational(1, 1000), fade <= Rational(5) else {
                throw ValidationError("--seam-fade takes a time from 1ms to 5s (10ms, 0.01s)")
            }
        }
    }

    func run() async throws {
        Console.configureFFmpegLog(verbose: report.verbose)
        let temporaries = TemporaryFiles()
        // What an interruption says: how many outputs were already written (whole, verified).
        let written = Locked((done: 0, of: 0))
        let signals = Console.cleanUpOnSignals(
            done: { written.withLock { "\($0.done) of \($0.of) written" } }, { temporaries.removeAll() })
        defer { withExtendedLifetime(signals) {} }

        let settings = try project.settings(verbose: report.verbose)
        // The output is described as analyze describes it, its seam measured unless --no-seam.
        let analysis = report.applied(
            AnalysisOptions(seamChecks: seam.measured), settings: settings, target: project.target)
        var fixOptions = FixOptions(
            assumedPriming: priming, unrollTo: unroll?.fixedSeconds,
            loops: loops, seamFade: seamFadeTime, reencodeHead: reencodeHead,
            bakeVideo: analysis.target.isBrowser)
        fixOptions.reencodeAudio = reencodeAudio
        fixOptions.keepVideo = keep == .video
        fixOptions.dropAudio = dropAudio
        fixOptions.convertTo = to?.rawValue
        let options = fixOptions
        let items = Inputs.collect(inputs.paths).filter { batch.keeps($0) && !settings.skips($0) }
        if items.isEmpty && batch.shard == nil {
            Console.stderr("loopprep: error: no media found in \(inputs.paths.joined(separator: ", "))\n")
            throw ExitCode(ExitStatus.unreadable.rawValue)
        }
        // One clip and an -o that names a media file (not a folder, not one that exists as a folder): that file is
        // the output (`fix one.mov -o one-fixed.mov`), not a folder of that name.
        let outputFile = output.flatMap { o in
            items.count == 1 && !OutputTarget.namesAFolder(o)
                && Inputs.mediaExtensions.contains((o as NSString).pathExtension.lowercased()) ? o : nil
        }
        try OutputTarget.check(output, file: outputFile, outputs: items.count, dryRun: dryRun)
        let (outputDir, inPlace, dryRun, webPlayer, force) = (output, inPlace, dryRun, webPlayer.enabled, force)
        // fix exits by what it did: 0 when every file was written and verified or needed nothing. Findings fix
        // cannot change (a codec the target does not play) are reported, and fail the run only under --fail-on.
        // A dry run writes nothing: its findings and exit code describe the inputs, as analyze's do.
        var exiting = report
        if !dryRun { exiting.failOnGiven = report.failOnGiven ?? .never }
        let report = exiting
        let stream = ReportStream(command: "fix", options: analysis, report: report)
        written.withLock { $0.of = items.count }
        // Two outputs with one stem in one folder (hero.mp4, hero.webm) get web players named in full.
        let clashing = WebPlayerOption.qualified(
            items.map { Self.destination($0, outputDir: outputDir, inPlace: inPlace, file: outputFile) })
        // Every output and web player claimed before any work: two inputs never share one (a dry run says so too).
        let claims = try Destinations.claim(
            items.flatMap { item -> [OutputClaims.Claim] in
                let destination = Self.destination(item, outputDir: outputDir, inPlace: inPlace, file: outputFile)
                let likely = Destinations.likely(destination, to: options.convertTo)
                return [OutputClaims.Claim(likely, input: item.path)]
                    + (webPlayer
                        ? Destinations.webPlayer(likely, input: item.path, qualified: clashing.contains(destination))
                        : [])
            })
        let passedOver = PassedOver()
        let reports = Batch.run(items, jobs: batch.jobs, label: dryRun ? "planning" : "fixing") {
            item -> FileReport? in
            let (fileAnalysis, ignored) = settings.options(analysis, for: item.path)
            guard
                var result = Self.fixOne(
                    item, outputDir: outputDir, outputFile: outputFile, inPlace: inPlace, dryRun: dryRun, force: force,
                    options: options,
                    analysis: fileAnalysis,
                    claim: { claims.claim(OutputClaims.Claim($0, input: item.path)) },
                    accepts: webPlayer ? { WebPlayerOption.planRefusal($0) } : nil, temporaries: temporaries)
            else { return passedOver.pass(item.path) }
            result.ignoredRules = ignored
            if webPlayer, !dryRun {
                Self.addWebPlayer(
                    &result,
                    qualified: clashing.contains(
                        Self.destination(item, outputDir: outputDir, inPlace: inPlace, file: outputFile)),
                    temporaries: temporaries)
            }
            if !dryRun, result.fix?.status == .fixed || result.fix?.status == .unchanged {
                written.withLock { $0.done += 1 }
            }
            return stream.take(result) ? result : nil
        }
        passedOver.say()
        // Files were found but none of them is media (a folder of text or pictures): nothing was reported.
        if stream.files == 0 && batch.shard == nil {
            Console.stderr("loopprep: error: no media found in \(inputs.paths.joined(separator: ", "))\n")
            throw ExitCode(ExitStatus.unreadable.rawValue)
        }
        if let status = stream.finishSlim(failOn: report.failOn) { throw ExitCode(status.rawValue) }
        let full = Report(command: "fix", options: analysis, files: reports.compactMap { $0 })
        stream.finish(full)
        try Output.emit(full, options: report, streamed: stream.streamed)
        throw ExitCode(full.exitStatus(failOn: report.failOn).rawValue)
    }

    /// The web player beside a written (or unchanged, copied) output; a failure fails the file, its output kept.
    static func addWebPlayer(_ result: inout FileReport, qualified: Bool = false, temporaries: TemporaryFiles) {
        guard var fix = result.fix, fix.status == .fixed || fix.status == .unchanged, let output = fix.output else {
            return
        }
        switch WebPlayerOption.package(output, qualified: qualified, temporaries: temporaries) {
        case .success(let web): fix.webPlayer = web
        case .failure(let failure):
            fix.status = .failed
            fix.reason = failure.reason
        }
        result.fix = fix
    }

    /// Where an item's output goes (before a conversion names it .mp4): in place, under -o, or beside itself. In
    /// place, a symbolic link's target is replaced and the link kept: a link is the file it points to.
    static func destination(_ item: Inputs.Item, outputDir: String?, inPlace: Bool, file: String? = nil) -> String {
        if let file { return file }
        if inPlace {
            return RemoteFile.isRemote(item.path)
                ? item.path : URL(fileURLWithPath: item.path).resolvingSymlinksInPath().path
        }
        return outputDir.map { ($0 as NSString).appendingPathComponent(item.relativePath) } ?? item.path
    }

    static func fixOne(
        _ item: Inputs.Item, outputDir: String?, outputFile: String? = nil, inPlace: Bool, dryRun: Bool, force: Bool,
        options: FixOptions,
        analysis: AnalysisOptions,
        claim: ((String) -> String?)? = nil, accepts: ((FixPlan) -> String?)? = nil,
        temporaries: TemporaryFiles
    ) -> FileReport? {
        let destination = Self.destination(item, outputDir: outputDir, inPlace: inPlace, file: outputFile)
        if !inPlace && !dryRun && OutputPath.sameFile(item.path, destination) {
            // An output that cannot be written, as in every command: exit 1 (the input was read).
            return FileReport(
                path: item.path, facts: nil, findings: [],
                fix: FixOutcome(
                    status: .failed, reason: "write output: the output would overwrite the input (use --in-place)"))
        }
        if RemoteFile.isRemote(item.path), outputDir == nil {
            return ClipAnalysis.unreadable(
                path: item.path,
                error: MediaError("write output", reason: "a URL has no folder to write beside: name one with -o"))
        }
        let source: String
        do { source = try RemoteFile.localCopy(of: item.path, beside: destination, temporaries: temporaries) } catch {
            return ClipAnalysis.unreadable(path: item.path, error: error)
        }
        defer { if source != item.path { temporaries.remove(source) } }
        var result = ClipFix.fix(
            source, to: destination, options: options, analysis: analysis, dryRun: dryRun, force: force,
            accepts: accepts, claim: claim, temporaries: temporaries)
        result.path = item.path
        return (result.error == nil || item.explicit) ? result : nil
    }
}
