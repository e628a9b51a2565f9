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

    /// `--format json`: the results with the tool and its version, as every report carries them.
    struct Document: Encodable {
        var schemaVersion = 1
        var tool = "loopprep"
        var version = Report.toolVersion
        var ffmpeg = FFmpegLibraries.description
        var command = "loop"
        var files: [LoopReport]
    }

    func run() async throws {
        Console.configureFFmpegLog(verbose: report.verbose)
        let temporaries = TemporaryFiles()
        let signals = Console.cleanUpOnSignals { temporaries.removeAll() }
        defer { withExtendedLifetime(signals) {} }
        let items = Inputs.collect(paths).filter(batch.keeps)
        // One clip and an output that is not a folder (no trailing slash, not an existing folder): the output is the
        // loop itself; otherwise a folder that gets each clip's loop under its own name.
        let single = items.count == 1 && !(output.map(OutputTarget.namesAFolder) ?? false)
        try OutputTarget.check(output, file: single ? output : nil, outputs: items.count, dryRun: write.dryRun)
        var request = LoopRequest(minimum: min, maximum: max, top: top, pick: pick, crossfade: crossfade)
        request.pictures = html != nil
        request.force = write.force
        request.forWeb = webPlayer.enabled
        request.analysis = report.applied(
            AnalysisOptions(), settings: try project.settings(verbose: report.verbose), target: project.target)
        let (output, dryRun, loopRequest, web) = (output, write.dryRun, request, webPlayer.enabled)
        if items.isEmpty && batch.shard == nil {
            Console.stderr("loopprep: error: no media found in \(paths.joined(separator: ", "))\n")
            throw ExitCode(ExitStatus.unreadable.rawValue)
        }
        // Every loop and web player claimed before any work: two clips never share one.
        let destinations = items.map { item in
            output.map { single ? $0 : ($0 as NSString).appendingPathComponent(item.relativePath) }
        }
        let claims = try Destinations.claim(
            zip(items, destinations).flatMap { item, destination -> [OutputClaims.Claim] in
                guard let destination else { return [] }
                return [OutputClaims.Claim(destination, input: item.path)]
                    + (web ? Destinations.webPlayer(destination, input: item.path) : [])
            })
        // One clip on a terminal: the search says how far it is (a batch's bar counts the clips instead).
        let activity = items.count == 1 && Console.stderrIsTTY ? Activity() : nil
        let passedOver = PassedOver()
        let results = Batch.run(items, jobs: batch.jobs, label: "searching") { item -> LoopReport? in
            let destination = output.map { single ? $0 : ($0 as NSString).appendingPathComponent(item.relativePath) }
            var result = LoopCut.loop(
                item.path, request: loopRequest, to: destination, dryRun: dryRun, temporaries: temporaries,
                claim: { claims.claim(OutputClaims.Claim($0, input: item.path)) },
                progress: activity?.reporter(for: item.path))
            activity?.finish()
            if web, result.error == nil, let written = result.output {
                switch WebPlayerOption.package(written, temporaries: temporaries) {
                case .success(let page): result.webPlayer = page
                case .failure(let failure): result.webPlayerError = failure.reason
                }
            }
            // A file found in a folder that is not media is passed over, as analyze and fix do.
            return result.unreadable && !item.explicit ? passedOver.pass(item.path) : result
        }.compactMap { $0 }
        passedOver.say()
        if results.isEmpty && batch.shard == nil {
            Console.stderr("loopprep: error: no media found in \(paths.joined(separator: ", "))\n")
            throw ExitCode(ExitStatus.unreadable.rawValue)
        }
        var full = Report(command: "loop", options: request.analysis, files: results.map(\.file))
        full.ffmpeg = FFmpegLibraries.description
        switch report.format {
        case .json:
            Console.stdout(
                String(decoding: try StitchText.encoder.encode(Document(files: results)), as: UTF8.self) + "\n")
        case .text: for r in results { Console.stdout(LoopText.text(r)) }
        default: try Output.render(full, format: report.format, failOn: report.failOn, to: Console.stdout)
        }
        Output.diagnose(full, options: report)
        try Output.writeExtra(full, options: report)
        if let html {
            var settings = ["loops of \(min) to \(max)", "top \(top)", "pick \(pick)"]
            if let crossfade { settings.append("crossfade \(crossfade)") }
            try Data(LoopText.page(results, settings: settings, path: html).utf8).write(
                to: URL(fileURLWithPath: html), options: .atomic)
        }
        // A written loop exits 0 whatever its findings (the clip's own codec, reported) unless --fail-on says
        // otherwise; a loop not written ("no repeat found", a refused cut) exits 1 (the README's table).
        throw ExitCode(full.exitStatus(failOn: report.failOnGiven ?? .never).rawValue)
    }
}
