import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

/// `loopprep loop`: finds where a clip repeats and writes the best loop.
struct Loop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find where a clip repeats and write a seamless loop of it.",
        discussion: """
            The clip is decoded once at 64x36; every pair of frames (in, out) with out - in between --min and --max \
            seconds is compared, coarse to fine: the picture at the seam, the motion into and out of it, and the audio \
            there (the jump at the seam and the level). The best candidate is written with fix's lossless cut (H.264 \
            may start inside a GOP: the frames up to the next keyframe are re-encoded; other codecs start on a \
            keyframe), or with --crossfade its last D seconds blended into its first. The output is analyzed with its \
            seam measured.

            The scores are analyze's seam measures on the loop to be written; a candidate analyze would flag \
            (seam-visual-jump, seam-audio-click, at its thresholds or the project's) ranks after every one it would \
            not. When the chosen one would be flagged, loop says "no repeat found", writes nothing and exits 1, \
            unless --crossfade blends the seam.
            """)

    @Argument(help: "Clips, or folders of clips.", completion: .file())
    var paths: [String]

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("The loop (a file for one clip, else a folder).", valueName: "path"), completion: .file())
    var output: String?

    @Option(help: ArgumentHelp("Shortest loop: \(TimeAmount.help).", valueName: "time"))
    var min: TimeAmount = .seconds(.one)

    @Option(help: ArgumentHelp("Longest loop: \(TimeAmount.help).", valueName: "time"))
    var max: TimeAmount = .seconds(Rational(10))

    @Option(help: "How many candidates to report.")
    var top: Int = 5

    @Option(help: "Write candidate N of the ranking (1 is the best).")
    var pick: Int = 1

    @Option(
        help: ArgumentHelp(
            """
            Blend the loop's last TIME into its first (re-encodes that much), for footage that never quite \
            repeats: \(TimeAmount.help).
            """,
            valueName: "time"))
    var crossfade: TimeAmount?

    @OptionGroup var write: WriteOptions

    @OptionGroup var webPlayer: WebPlayerOption

    @Option(
        help: ArgumentHelp(
            """
            Also write a self-contained HTML page: every candidate's scores and its seam strip (the loop's last \
            frames, its first).
            """,
            valueName: "file"), completion: .file(extensions: ["html"]))
    var html: String?

    @OptionGroup var report: ReportOptions

    @OptionGroup var project: ConfigOptions

    @OptionGroup var batch: BatchOptions

    func validate() throws {
        try InputPaths.refuseStandardInput(paths)
        // Lengths in the same unit are checked here; seconds against frames once the clip's frame rate is known.
        var rangeOK = true
        switch (min, max) {
        case (.seconds(let a), .seconds(let b)): rangeOK = a > .zero && b >= a
        case (.frames(let a), .frames(let b)): rangeOK = a > 0 && b >= a
        default: break
        }
        guard rangeOK else { throw ValidationError("--min must be above 0 and --max at least --min") }
        guard top >= 1, pick >= 1, pick <= top else { throw ValidationError("--pick must be between 1 and --top") }
        var crossfadeOK = true
        switch (crossfade, min) {
        case (.seconds(let c), .seconds(let m)): crossfadeOK = c > .zero && c * 2 < m
        case (.frames(let c), .frames(let m)): crossfadeOK = c > 0 && c * 2 < m
        default: break
        }
        guard crossfadeOK else { throw ValidationError("--crossfade must be above 0 and under half of --min") }
        guard output != nil || write.dryRun else { throw ValidationError("name the output with -o (or use --dry-run)") }
    }

    func run() async throws {
        let runner = CommandRunner(verbose: report.verbose, batch: batch)
        let items = try runner.items(paths)
        let job = try job(items, runner: runner)
        let claims = try job.claims(items)
        // A written loop exits 0 whatever its findings (the clip's own codec, reported) unless --fail-on says
        // otherwise; a loop not written ("no repeat found", a refused cut) exits 1 (the README's table).
        var report = report
        report.failOnGiven = report.failOnGiven ?? .never
        // Each clip's record streamed (--format jsonl) as it is done, and kept where the HTML page needs it.
        let analysis = job.request.analysis
        let stream = ReportStream(command: "loop", options: analysis, report: report, keepsFiles: html != nil)
        let results = try runner.each(
            items, paths: paths, label: "searching", unreadable: { $0.error != nil }, take: stream.take,
            work: { job.loop($0, claims: claims) })
        let full = try runner.emit(results, command: "loop", options: analysis, stream: stream, report: report)
        if let html {
            var settings = ["loops of \(min) to \(max)", "top \(top)", "pick \(pick)"]
            if let crossfade { settings.append("crossfade \(crossfade)") }
            try Data(LoopText.page(full.files, settings: settings, path: html).utf8).write(
                to: URL(fileURLWithPath: html), options: .atomic)
        }
        try runner.exit(full.exitStatus(failOn: report.failOn))
    }

    /// What looping one clip needs, the same for every clip of the run; the output named is checked here.
    func job(_ items: [Inputs.Item], runner: CommandRunner) throws -> LoopJob {
        // One clip and an output that is not a folder (no trailing slash, not an existing folder): the output is the
        // loop itself; otherwise a folder that gets each clip's loop under its own name.
        let single = items.count == 1 && !(output.map(OutputTarget.namesAFolder) ?? false)
        try OutputTarget.check(output, file: single ? output : nil, outputs: items.count, dryRun: write.dryRun)
        // A blended loop is rendered as a reel is: in the container its name says.
        if single, crossfade != nil, let output {
            try OutputTarget.checkRendered(output, command: "loop --crossfade", what: "the loop")
        }
        var request = LoopRequest(minimum: min, maximum: max, top: top, pick: pick, crossfade: crossfade)
        request.pictures = html != nil
        request.force = write.force
        request.forWeb = webPlayer.enabled
        request.analysis = report.applied(
            AnalysisOptions(), settings: try project.settings(verbose: report.verbose), target: project.target)
        // One clip on a terminal: the search says how far it is (a batch's bar counts the clips instead).
        return LoopJob(
            output: output, single: single, dryRun: write.dryRun, webPlayer: webPlayer.enabled, request: request,
            activity: items.count == 1 && Console.stderrIsTTY ? Activity() : nil, shared: runner.shared)
    }
}

/// loop's work on one clip, the same for every clip of a run: where its loop goes, what it claims, the search
/// and the cut, and the web player beside it.
struct LoopJob: Sendable {
    let output: String?
    /// One clip whose -o names the loop itself.
    let single: Bool
    let dryRun: Bool
    let webPlayer: Bool
    let request: LoopRequest
    let activity: Activity?
    let shared: CommandRunner.Shared

    func destination(_ item: Inputs.Item) -> String? {
        guard let output else { return nil }
        if single { return output }
        let path = (output as NSString).appendingPathComponent(item.relativePath)
        // A blended loop is rendered as a reel is, in MP4, MOV, Matroska or WebM: a clip of another container
        // (an FLV, an AVI) gets its loop as an MP4 beside it, as fix names its conversions.
        guard request.crossfade != nil, Container(extension: (path as NSString).pathExtension)?.isRendered != true
        else { return path }
        return (path as NSString).deletingPathExtension + ".mp4"
    }

    /// Every loop and web player claimed before any work: two clips never share one.
    func claims(_ items: [Inputs.Item]) throws -> OutputClaims {
        try Destinations.claim(
            items.flatMap { item -> [OutputClaims.Claim] in
                guard let destination = destination(item) else { return [] }
                return [OutputClaims.Claim(destination, input: item.path)]
                    + (webPlayer ? Destinations.webPlayer(destination, input: item.path) : [])
            })
    }

    func loop(_ item: Inputs.Item, claims: OutputClaims) -> FileReport {
        var result = LoopCut.loop(
            item.path, request: request, to: destination(item), dryRun: dryRun, temporaries: shared.temporaries,
            claim: { claims.claim(OutputClaims.Claim($0, input: item.path)) },
            progress: activity?.reporter(for: item.path))
        activity?.finish()
        // What the dry run read of the clip, for `apply` (as fix's; a crossfaded loop's plan says it of its own).
        if dryRun, result.fix?.status == .planned {
            if result.loop?.blend == nil { result.fix?.input = try? InputFingerprint.of(item.path) }
            if webPlayer { result.fix?.webPlayerPlanned = true }
        }
        if webPlayer { WebPlayerOption.add(to: &result, qualified: false, temporaries: shared.temporaries) }
        return result
    }
}
