import ArgumentParser
import Foundation
import LoopAnalysis
import LoopIndex
import LoopMedia

struct Analyze: AsyncParsableCommand {
    /// Each rule and what it finds, a paragraph each (`analyze --help`).
    static var ruleMeanings: String {
        Analyzer.allIDs.compactMap(RuleID.init(rawValue:)).map { "\($0.rawValue): \($0.meaning)." }
            .joined(separator: "\n\n")
    }

    static let configuration = CommandConfiguration(
        abstract: "Find every cause of a stuttering loop, per file and per track.",
        discussion: """
            Rules:

            \(ruleMeanings)

            A project sets its own target, minimum loop, disabled rules, seam thresholds \
            (\(Analyzer.thresholds.keys.sorted().joined(separator: ", "))) \
            and per-path ignores in a .loopprep.json, found in the working folder or above it; the command line wins.
            """)

    @OptionGroup var inputs: InputPaths

    @Option(
        name: .customLong("min-loop"),
        help: "Seconds below which a clip is too short for a queue looper. Default: .loopprep.json's, else 1.")
    var minLoop: TimeAmount?

    @OptionGroup var seam: SeamOption

    @Option(
        help: ArgumentHelp(
            "Also write one self-contained HTML report (findings, figures, seam strips).", valueName: "file"),
        completion: .file(extensions: ["html"]))
    var html: String?

    @Flag(
        name: .customLong("web-player"),
        help: """
            With --html: give each clip a "play loop" button that loops it as it is, gaplessly, with sound (the \
            seam as a web page would play it), its web player written into REPORT.web/ beside the report.
            """)
    var webPlayer = false

    @Option(
        name: .customLong("seam-images"),
        help: ArgumentHelp("Also write a seam strip PNG per clip into this folder.", valueName: "dir"),
        completion: .directory)
    var seamImages: String?

    @OptionGroup var report: ReportOptions

    @OptionGroup var batch: BatchOptions

    @OptionGroup var project: ConfigOptions

    func validate() throws {
        if !seam.measured && (html != nil || seamImages != nil) {
            throw ValidationError("--html and --seam-images need the seam checks: drop --no-seam")
        }
        if webPlayer && html == nil {
            throw ValidationError("--web-player puts a play button on the HTML report: give --html too")
        }
        if let minLoop, !(minLoop.fixedSeconds.map { $0 < Rational(86_400) } ?? false) {
            throw ValidationError("--min-loop takes a time under a day, in seconds or milliseconds (1, 1s, 800ms)")
        }
    }

    func run() async throws {
        let runner = CommandRunner(verbose: report.verbose, batch: batch)
        let settings = try project.settings(verbose: report.verbose)
        // --min-loop is typed in decimal: exactly what was typed.
        let options = report.applied(
            AnalysisOptions(seamChecks: seam.measured), settings: settings, target: project.target,
            minimumLoopSeconds: minLoop?.fixedSeconds)
        let collected = try runner.items(inputs.paths)
        let items = collected.filter { !settings.skips($0) }
        if items.isEmpty, !collected.isEmpty, batch.shard == nil {
            return try Self.allIgnored(collected.count, options: options, report: report)
        }
        let (picture, verbose) = (html != nil || seamImages != nil, report.verbose)
        let stream = ReportStream(command: "analyze", options: options, report: report, keepsFiles: picture)
        let results = try runner.each(
            items, paths: inputs.paths, label: "analyzing", unreadable: { $0.report.error != nil },
            take: { stream.take($0.report) },
            work: { Self.analyze($0, options: settings.options(options, for: $0.path), picture, verbose) })
        let full = try runner.emit(
            results.map(\.report), command: "analyze", options: options, stream: stream, report: report)
        // A range is judged by what it leaves, not by what it cures.
        let status =
            report.format == .ranges
            ? full.rangeExitStatus(failOn: report.failOn) : full.exitStatus(failOn: report.failOn)
        try runner.exit(writePictures(full, strips: results) || status != .clean ? status : .findings)
    }

    /// Files the project's settings ignore are not a failure (a pre-commit hook given only those): a note, an
    /// empty report, exit 0.
    static func allIgnored(_ count: Int, options: AnalysisOptions, report: ReportOptions) throws {
        let which = count == 1 ? "the file named is" : "all \(count) files named are"
        Console.stderr(
            "loopprep: note: nothing to analyze: \(which) ignored by the project's settings (.loopprep.json)\n")
        try Output.emit(Report(command: "analyze", options: options, files: []), options: report, streamed: false)
    }

    /// One file's report and seam strip (`picture`), under the options its path is given.
    static func analyze(
        _ item: Inputs.Item, options: (options: AnalysisOptions, ignored: [String]?), _ picture: Bool, _ verbose: Bool
    ) -> (report: FileReport, strip: [UInt8]?) {
        var (result, strip) = ClipAnalysis.report(path: item.path, options: options.options, picture: picture)
        result.ignoredRules = options.ignored
        if verbose, result.error == nil, RemoteFile.isRemote(item.path) {
            Console.stderr(
                "\(item.path): fetched \(RemoteFile.bytesFetched(item.path)) bytes of \(result.facts?.fileSize ?? 0)\n")
        }
        return (result, strip)
    }

    /// The seam pictures and the HTML report (with its web players) where asked: false where they could not be
    /// written (said on stderr; the run then fails).
    func writePictures(_ full: Report, strips results: [(report: FileReport, strip: [UInt8]?)]) -> Bool {
        var strips: [String: [UInt8]] = [:]
        for (file, strip) in results { if let strip { strips[file.path] = strip } }
        let players = webPlayer ? Self.players(full, html: html ?? "") : [:]
        do {
            try Pictures.write(full, strips: strips, folder: seamImages, html: html, players: players)
            return true
        } catch {
            Console.stderr(
                "loopprep: error: cannot write the pictures or the HTML report: \(MediaError.describe(error))\n")
            return false
        }
    }

    /// Each readable local clip's web player, in a folder of its own under REPORT.web/ (named as its seam
    /// picture is): the clip looped as it is. One that cannot have one is said on stderr; the report goes on.
    static func players(_ report: Report, html: String) -> [String: WebPlayerOutput] {
        let root = (html as NSString).deletingPathExtension + ".web"
        let clips = report.files.filter { $0.error == nil && !RemoteFile.isRemote($0.path) }.map(\.path)
        let names = Pictures.fileNames(clips)
        let temporaries = TemporaryFiles()
        var players: [String: WebPlayerOutput] = [:]
        for path in clips {
            let folder = root + "/" + String((names[path] ?? path).dropLast(".seam.png".count))
            do { players[path] = try WebPackage.write(path, into: folder, temporaries: temporaries) } catch {
                Console.stderr("\(path): no play button: \(MediaError.describe(error))\n")
            }
        }
        return players
    }
}
