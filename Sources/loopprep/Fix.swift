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
        let runner = CommandRunner(verbose: report.verbose, batch: batch, counts: true)
        let settings = try project.settings(verbose: report.verbose)
        // The output is described as analyze describes it, its seam measured unless --no-seam.
        let analysis = report.applied(
            AnalysisOptions(seamChecks: seam.measured), settings: settings, target: project.target)
        let items = try runner.items(inputs.paths).filter { !settings.skips($0) }
        if items.isEmpty && batch.shard == nil { try CommandRunner.noMedia(inputs.paths) }
        let job = try job(items, analysis: analysis, runner: runner)
        let report = exitingReport
        let stream = ReportStream(command: "fix", options: analysis, report: report)
        let claims = try job.claims(items)
        let reports = try runner.each(
            items, paths: inputs.paths, label: dryRun ? "planning" : "fixing", unreadable: { $0.error != nil },
            take: stream.take, work: { job.fix($0, settings.options(analysis, for: $0.path), claims: claims) })
        let full = try runner.emit(reports, command: "fix", options: analysis, stream: stream, report: report)
        try runner.exit(full.exitStatus(failOn: report.failOn))
    }

    /// fix exits by what it did: 0 when every file was written and verified or needed nothing. Findings fix
    /// cannot change (a codec the target does not play) are reported, and fail the run only under --fail-on.
    /// A dry run writes nothing: its findings and exit code describe the inputs, as analyze's do.
    var exitingReport: ReportOptions {
        var exiting = report
        if !dryRun { exiting.failOnGiven = report.failOnGiven ?? .never }
        return exiting
    }

    /// What fixing one input needs, the same for every input of the run; the output named is checked here.
    func job(_ items: [Inputs.Item], analysis: AnalysisOptions, runner: CommandRunner) throws -> FixJob {
        var options = FixOptions(
            assumedPriming: priming, unrollTo: unroll?.fixedSeconds, loops: loops, seamFade: seamFadeTime,
            reencodeHead: reencodeHead, bakeVideo: analysis.target.isBrowser)
        options.reencodeAudio = reencodeAudio
        options.keepVideo = keep == .video
        options.dropAudio = dropAudio
        options.convertTo = to.flatMap { Muxer(rawValue: $0.rawValue) }
        // One clip and an -o that names a media file (not a folder, not one that exists as a folder): that file is
        // the output (`fix one.mov -o one-fixed.mov`), not a folder of that name.
        let outputFile = output.flatMap { o in
            items.count == 1 && !OutputTarget.namesAFolder(o)
                && Inputs.mediaExtensions.contains((o as NSString).pathExtension.lowercased()) ? o : nil
        }
        try OutputTarget.check(output, file: outputFile, outputs: items.count, dryRun: dryRun)
        var job = FixJob(
            outputDir: output, outputFile: outputFile, inPlace: inPlace, dryRun: dryRun, force: force,
            webPlayer: webPlayer.enabled, options: options, shared: runner.shared)
        job.qualified = WebPlayerOption.qualified(items.map(job.destination))
        return job
    }
}
