import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

extension TransitionKind: ExpressibleByArgument {}
extension FadeCurve: ExpressibleByArgument {}

struct Stitch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "One seamless file from many clips, with pre-rendered transitions, re-encoding only what they touch.",
        discussion: """
            Clip bodies are stream-copied; each join is re-encoded from the outgoing clip's last keyframe before the \
            transition to the incoming clip's first keyframe after it. Audio is decoded, cut to each clip's exact \
            samples, crossfaded and encoded once. Clips must match in codec, size, frame rate, time base, parameter \
            sets, audio codec, sample rate and channels (or take --normalize); stitch names the difference and writes \
            nothing. A clip whose parameter sets clash with the first clip's (another encoder, or its settings) is \
            re-encoded whole, and the report says which.
            """)

    @Argument(help: "Clips and folders (a folder's clips in natural order: clip2 before clip10).", completion: .file())
    var inputs: [String] = []

    @Option(
        help: ArgumentHelp(
            """
            A JSON playlist: {\"clips\": [{\"path\": \"a.mp4\", \"in\": 1.0, \"out\": 4.5, \"transition\": \
            {\"type\": \"crossfade\", \"duration\": 0.5}}], \"loop\": false}
            """,
            valueName: "file"), completion: .file(extensions: ["json"]))
    var playlist: String?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp(
            "The stitched file: .mp4 or .mov; .webm for VP8/VP9/AV1 clips with Opus audio; .mkv for clips with Opus, "
                + "FLAC or PCM audio.",
            valueName: "file"), completion: .file(extensions: ["mp4", "mov", "webm", "mkv"]))
    var output: String?

    @Option(
        help: ArgumentHelp(
            """
            Transition at every join: none, or any of FFmpeg's xfade transitions by name (\
            \(TransitionKind.xfadeNames.joined(separator: ", "))); crossfade, fade-black and \
            slide-left/right/up/down are fade, fadeblack and slideleft...; slide alone is slide-left.
            """,
            valueName: "name"))
    var transition: TransitionKind = .none

    @Option(
        name: .customLong("audio-curve"),
        help: ArgumentHelp(
            """
            The audio's fade curve under a transition, by acrossfade's names (tri, qsin, esin, hsin, log, ipar, \
            qua, cub, squ, cbr, par, exp, iqsin, ihsin, dese, desi, losi, sinc, isinc, nofade). qsin keeps the \
            power constant.
            """,
            valueName: "curve"))
    var audioCurve: FadeCurve = .qsin

    @Option(
        help: ArgumentHelp("Transition length (rounded to whole frames): \(TimeAmount.help).", valueName: "time"))
    var duration: TimeAmount = .seconds(Rational(1, 2))

    @Flag(help: "Also join the last clip back into the first, so the file itself loops seamlessly.")
    var loop = false

    @Flag(
        help:
            """
            Re-encode every clip to the first clip's format (size, pixel format, frame rate, colour, display \
            orientation, audio rate and channels) instead of refusing clips that differ.
            """
    )
    var normalize = false

    @Option(
        help: ArgumentHelp(
            "With --normalize: the codec to encode in (h264, hevc, vp8, vp9, av1), where it is not the first clip's.",
            valueName: "codec"))
    var codec: String?

    @OptionGroup var write: WriteOptions

    @OptionGroup var webPlayer: WebPlayerOption

    @OptionGroup var seam: SeamOption

    @Option(
        help: ArgumentHelp(
            "Write each clip's and transition's place in the output (seconds and frames) as JSON.", valueName: "file"),
        completion: .file(extensions: ["json"]))
    var manifest: String?

    @Option(
        help: ArgumentHelp(
            "Also write a self-contained HTML report: the timeline as a picture, the output's findings and seam strip.",
            valueName: "file"), completion: .file(extensions: ["html"]))
    var html: String?

    @OptionGroup var report: ReportOptions

    @OptionGroup var project: ConfigOptions

    func validate() throws {
        try InputPaths.refuseStandardInput(inputs)
        guard !inputs.isEmpty || playlist != nil else {
            throw ValidationError("name clips, a folder, or --playlist FILE")
        }
        guard inputs.isEmpty || playlist == nil else {
            throw ValidationError("use either clips or --playlist, not both")
        }
        guard output != nil || write.dryRun else {
            throw ValidationError("name the output with -o OUT.mp4 (or use --dry-run)")
        }
        if !seam.measured && html != nil {
            throw ValidationError("--html draws the reel's seam: drop --no-seam")
        }
        if let output, OutputTarget.namesAFolder(output) {
            let example = (output as NSString).appendingPathComponent("reel.mp4")
            throw ValidationError("-o \(output) is a folder: stitch writes one file; name it (-o \(example))")
        }
        // The reel's container is its name's: one stitch cannot write (an .avi) is refused, not written as an MP4.
        if let output {
            try OutputTarget.checkRendered(output, command: "stitch", what: "the reel")
        }
        let durationOK: Bool
        switch duration {
        case .seconds(let s): durationOK = s > .zero && s <= Rational(60)
        case .frames(let n): durationOK = n >= 1
        }
        guard durationOK else {
            throw ValidationError("--duration takes a time above 0 and up to 60 s (0.5, 500ms, 12f)")
        }
        if let codec {
            guard normalize else { throw ValidationError("--codec re-encodes every clip: use it with --normalize") }
            guard ["h264", "hevc", "vp8", "vp9", "av1"].contains(codec) else {
                throw ValidationError("--codec takes h264, hevc, vp8, vp9 or av1")
            }
        }
    }

    func run() async throws {
        let runner = CommandRunner(verbose: report.verbose)
        let request = try request()
        var result: StitchReport
        do {
            let bar = Progress(total: 0, label: "stitching")
            result = try Stitcher.stitch(request, temporaries: runner.temporaries) { done, total in
                bar.show(done, of: total, "\(done == 0 ? "starting" : "part \(done + 1)")")
            }
            bar.finish()
        } catch { try refuse(error) }
        try writeBeside(&result, analysis: request.analysis, temporaries: runner.temporaries)
        try Self.finish(result, analysis: request.analysis, options: report, runner: runner)
    }

    /// The reel's record through the runner, as every command ends: the report in the format asked (text by
    /// StitchText), a line on stderr for a refusal, and the exit: a written output exits 0 whatever its findings
    /// unless --fail-on says otherwise (they are the clips' own codecs and the container the name asked for).
    static func finish(
        _ result: StitchReport, analysis: AnalysisOptions, options: ReportOptions, runner: CommandRunner
    ) throws -> Never {
        var exiting = options
        exiting.failOnGiven = options.failOnGiven ?? .never
        let stream = ReportStream(command: "stitch", options: analysis, report: exiting)
        let record = result.record
        let full = try runner.emit(
            stream.take(record) ? [record] : [], command: "stitch", options: analysis, stream: stream,
            report: exiting)
        try runner.exit(full.exitStatus(failOn: exiting.failOn))
    }

    /// The stitch asked for: the clips and joins, the output (none in a dry run) and how it is analyzed, every file
    /// it writes claimed.
    func request() throws -> StitchRequest {
        var request = try resolve()
        if request.clips.isEmpty {
            try refuse(.unreadable("loopprep: error: no media found in \(inputs.joined(separator: ", "))"))
        }
        try OutputTarget.check(output, file: output, outputs: 1, dryRun: write.dryRun)
        // The web player's no-go for the reel's container, before any work (its codecs are said after the write).
        if webPlayer.enabled, let output,
            let refusal = WebPlayerEligibility.containerRefusal(output, remedy: "name the reel .mp4")
        {
            try refuse(refusal)
        }
        try claimFiles(clips: request.clips.map(\.path))
        request.output = write.dryRun ? nil : output
        request.named = output
        request.force = write.force
        request.webPlayerRemedy = webPlayer.enabled ? "name the reel .mp4" : nil
        request.normalize = normalize
        request.codec = codec
        request.audioCurve = audioCurve
        // The target: --target, else the project's .loopprep.json, else the web for a WebM and Apple otherwise.
        // The output must play there, or it is not kept.
        request.analysis = report.applied(
            AnalysisOptions(
                target: output.map { Stitcher.outputFormat($0) == .webm } == true ? .web : .apple,
                seamChecks: seam.measured),
            settings: try project.settings(verbose: report.verbose), target: project.target)
        return request
    }

    /// What is written beside the output: its web player, the --html page and the --manifest.
    func writeBeside(_ result: inout StitchReport, analysis: AnalysisOptions, temporaries: TemporaryFiles) throws {
        // The report is the written output's, its seam measured, as Stitcher described it; the --html page draws
        // its seam strip from one more reading of it.
        var analyzed: (report: FileReport, strip: [UInt8]?)?
        if html != nil, result.refusal == nil, let written = result.output, !write.dryRun {
            analyzed = ClipAnalysis.report(path: written, options: analysis, picture: true)
        }
        if webPlayer.enabled, result.refusal == nil, let output = result.output {
            switch WebPlayerOption.package(output, temporaries: temporaries) {
            case .success(let web): result.webPlayer = web
            case .failure(let failure): result.webPlayerRefusal = failure
            }
        }
        try writePictures(result, analyzed: analyzed, analysis: analysis)
        if let manifest, result.refusal == nil {
            try Data(try StitchText.encoder.encode(StitchManifest(result.reel.timeline, output: output))).write(
                to: URL(fileURLWithPath: manifest), options: .atomic)
        }
    }

    /// Every file the run writes has a name of its own and is none of the clips: the output,
    /// --manifest, --html and the web player's page and manifest, checked before any work.
    func claimFiles(clips: [String]) throws {
        guard let output else { return }
        var claims = [OutputClaims.Claim(output, input: "the stitch", what: "output")]
        if let manifest { claims.append(OutputClaims.Claim(manifest, input: "the stitch", what: "--manifest")) }
        if let html { claims.append(OutputClaims.Claim(html, input: "the stitch", what: "--html page")) }
        if webPlayer.enabled { claims += Destinations.webPlayer(output, input: "the stitch") }
        for claim in claims.dropFirst() {
            if let clip = clips.first(where: { OutputPath.sameFile($0, claim.path) }) {
                Console.stderr(
                    "loopprep: error: the stitch's \(claim.what) \(claim.path) is the clip \(clip); nothing done\n")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
        _ = try Destinations.claim(claims)
    }

    /// The HTML page: the timeline as a picture, the output's findings and seam strip.
    /// `analyzed`: the written output's analysis, with its strip.
    func writePictures(
        _ result: StitchReport, analyzed: (report: FileReport, strip: [UInt8]?)?, analysis: AnalysisOptions
    ) throws {
        guard let html else { return }
        var files: [FileReport] = []
        var strips: [String: [UInt8]] = [:]
        if let analyzed, let output {
            files.append(analyzed.report)
            strips[output] = analyzed.strip
        }
        let players = result.webPlayer.flatMap { web in output.map { [$0: web] } } ?? [:]
        let page = HTMLReport.render(
            Report(command: "stitch", options: analysis, files: files), strips: strips, timeline: result.reel.timeline,
            notes: result.reel.reencoded, players: players, page: html)
        let url = URL(fileURLWithPath: html)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(page.utf8).write(to: url, options: .atomic)
    }

    /// A refusal: the sentences on stderr, and in any format but text the report on stdout too.
    func refuse(_ refusal: Refusal) throws -> Never { try Self.refuse(refusal, output: output, format: report.format) }

    /// A refusal of the stitch `output` names (nil: a dry run naming none), said in `format`.
    static func refuse(_ refusal: Refusal, output: String?, format: OutputFormat) throws -> Never {
        // The library's sentence, headed here as every command's errors are (an unreadable clip's line names it).
        let unreadable = refusal.cause == .unreadable
        var lines = refusal.lines
        if !unreadable, let first = lines.first { lines[0] = "loopprep: error: " + first }
        for line in lines { Console.stderr(line + "\n") }
        if format != .text {
            // The reel's record in the report's format (JSON, JSON Lines, JUnit...), as a planned one's: one
            // sentence, a head ending in a colon then its details, or the lines (one a clip), each trimmed.
            let trimmed = refusal.lines.map { $0.trimmingCharacters(in: .whitespaces) }
            let words =
                trimmed.first?.hasSuffix(":") == true && trimmed.count > 1
                ? trimmed[0] + " " + trimmed.dropFirst().joined(separator: "; ") : trimmed.joined(separator: "; ")
            let name = output ?? ReelRecord.unnamed
            let file =
                unreadable
                ? FileReport.unreadable(path: name, reason: words)
                : FileReport(
                    path: name, facts: nil, findings: [],
                    fix: FixOutcome(status: .failed, output: output, refusal: .worded(refusal.cause, words)))
            var report = Report(command: "stitch", options: AnalysisOptions(), files: [file])
            report.ffmpeg = FFmpegLibraries.description
            try Output.render(report, format: format, failOn: .error, to: Console.stdout)
        }
        throw ExitCode(unreadable ? ExitStatus.unreadable.rawValue : ExitStatus.findings.rawValue)
    }

    /// --duration in seconds: frames are counted at the first clip's frame rate (its index says it).
    func transitionSeconds() throws -> Rational {
        guard case .frames(let n) = duration else { return duration.fixedSeconds ?? Rational(1, 2) }
        let first = playlist == nil ? Inputs.collect(inputs).first { $0.explicit }?.path : nil
        guard let first, let rate = (try? Probe.facts(path: first))?.mainVideo?.frameRate, rate > .zero else {
            throw ValidationError("--duration \(n)f: the first clip's frame rate is unknown; give seconds (0.5s)")
        }
        return Rational(Int64(n)) / rate
    }

    /// Clips and per-join transitions from the command line or the playlist.
    func resolve() throws -> StitchRequest {
        let seconds = TransitionRequest(kind: transition, duration: try transitionSeconds())
        if let playlist {
            do {
                return try Playlist.load(playlist).request(
                    base: (playlist as NSString).deletingLastPathComponent, transition: seconds, loop: loop,
                    frameRate: { (try? Probe.facts(path: $0))?.mainVideo?.frameRate })
            } catch let error as PlanError { throw ValidationError("\(playlist): \(error)") }
        }
        var paths: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue {
                paths += Inputs.collect([input]).filter(\.explicit).map(\.path).sorted { NaturalOrder.less($0, $1) }
            } else {
                paths.append(input)
            }
        }
        let joins = loop ? paths.count : max(paths.count - 1, 0)
        return StitchRequest(
            clips: paths.map { StitchRequest.Clip(path: $0) }, transitions: Array(repeating: seconds, count: joins),
            loop: loop, output: nil)
    }
}

extension Playlist {
    /// Reads and checks a playlist file; every problem is one line naming the file (a usage error, exit 64).
    static func load(_ path: String) throws -> Playlist {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(path): cannot read the playlist")
        }
        let list: Playlist
        do { list = try Playlist.parse(data) } catch { throw ValidationError("\(path): \(error)") }
        let base = (path as NSString).deletingLastPathComponent
        for clip in list.clips {
            let full =
                clip.path.hasPrefix("/") || base.isEmpty
                ? clip.path : (base as NSString).appendingPathComponent(clip.path)
            // A clip that is not there is an input that cannot be read (exit 2), not a usage error.
            guard FileManager.default.fileExists(atPath: full) else {
                Console.stderr("loopprep: error: \(path): clip \(clip.path) does not exist\n")
                throw ExitCode(ExitStatus.unreadable.rawValue)
            }
        }
        return list
    }
}
