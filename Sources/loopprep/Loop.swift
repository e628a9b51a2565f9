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
            """)

    @Argument(help: "Clips, or folders of clips.", completion: .file())
    var paths: [String]

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("The loop (a file for one clip, else a folder).", valueName: "path"), completion: .file())
    var output: String?

    @Option(help: "Shortest loop, in seconds.")
    var min: Double = 1

    @Option(help: "Longest loop, in seconds.")
    var max: Double = 10

    @Option(help: "How many candidates to report.")
    var top: Int = 5

    @Option(help: "Write candidate N of the ranking (1 is the best).")
    var pick: Int = 1

    @Option(
        help: ArgumentHelp(
            "Blend the loop's last SECONDS into its first (re-encodes that much), for footage that never quite repeats.",
            valueName: "seconds"))
    var crossfade: Double?

    @Flag(name: .customLong("dry-run"), help: "Report the candidates and write nothing.")
    var dryRun = false

    @Option(help: "Report format: text or json.")
    var format: LoopFormat = .text

    @Option(
        help: ArgumentHelp(
            "Also write a self-contained HTML page: every candidate's scores and its seam strip (the loop's last frames, its first).",
            valueName: "file"), completion: .file(extensions: ["html"]))
    var html: String?

    @Option(help: ArgumentHelp("Clips searched in parallel.", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    enum LoopFormat: String, ExpressibleByArgument { case text, json }

    func validate() throws {
        guard min > 0, max >= min else { throw ValidationError("--min must be above 0 and --max at least --min") }
        guard top >= 1, pick >= 1, pick <= top else { throw ValidationError("--pick must be between 1 and --top") }
        if let crossfade {
            guard crossfade > 0, crossfade * 2 < min else {
                throw ValidationError("--crossfade must be above 0 and under half of --min")
            }
        }
        guard output != nil || dryRun else { throw ValidationError("name the output with -o (or use --dry-run)") }
    }

    struct Result: Encodable, Sendable {
        var path: String
        var candidates: [LoopCandidate] = []
        var chosen: Int?
        var output: String?
        var error: String?
        var findings: [Finding] = []
        /// Each candidate's seam strip (PNG), for --html.
        var strips: [[UInt8]] = []

        enum CodingKeys: String, CodingKey { case path, candidates, chosen, output, error, findings }
    }

    /// `--format json`: the results with the tool and its version, as every report carries them.
    struct Document: Encodable {
        var schemaVersion = 1
        var tool = "loopprep"
        var version = Report.toolVersion
        var ffmpeg = FFmpegLibraries.description
        var command = "loop"
        var files: [Result]
    }

    func run() async throws {
        Console.configureFFmpegLog(verbose: false)
        let temporaries = TemporaryFiles()
        let signals = Console.cleanUpOnSignals { temporaries.removeAll() }
        defer { withExtendedLifetime(signals) {} }
        let items = Inputs.collect(paths)
        let single = items.count == 1 && items[0].explicit
        let (output, min, max, top, pick, crossfade, dryRun, pictures) = (
            output, min, max, top, pick, crossfade, dryRun, html != nil
        )
        let results = Batch.run(items, jobs: jobs, label: "searching") { item -> Result in
            var result = Result(path: item.path)
            do {
                let s = try LoopSearch.signatures(item.path)
                let fps = s.frameRate ?? Rational(30)
                let frames = { (seconds: Double) in
                    Int((Rational(Int64((seconds * 1000).rounded()), 1000) * fps).rounded)
                }
                // H.264 may start inside a GOP (re-encoding the head); other codecs start on a keyframe.
                let options = LoopFinder.Options(
                    minFrames: frames(min), maxFrames: frames(max),
                    allowedIn: s.codec == "h264" || crossfade != nil ? nil : s.keyframes, top: top)
                result.candidates = LoopFinder.find(s.frames, times: s.times, end: s.end, options: options)
                if pictures { result.strips = try result.candidates.map { try LoopStrip.png(s.frames, $0) } }
                guard result.candidates.count >= pick else {
                    result.error = "no loop between \(min) and \(max) s fits in the clip"
                    return result
                }
                result.chosen = pick - 1
                guard !dryRun, let output else { return result }
                let destination = single ? output : (output as NSString).appendingPathComponent(item.relativePath)
                let crossfadeSeconds = crossfade.map { Rational(Int64(($0 * 1000).rounded()), 1000) }
                let report = LoopCut.write(
                    item.path, loop: result.candidates[pick - 1], to: destination, crossfade: crossfadeSeconds,
                    reencodeHead: s.codec == "h264", temporaries: temporaries)
                result.findings = report.findings
                if let reason = report.fix?.reason ?? report.error {
                    result.error = reason
                } else {
                    result.output = destination
                }
            } catch {
                result.error = MediaError.describe(error)
            }
            return result
        }
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(Document(files: results)), as: UTF8.self))
        case .text:
            for r in results { print(Self.text(r), terminator: "") }
        }
        if let html {
            var settings = ["loops of \(min) to \(max) s", "top \(top)", "pick \(pick)"]
            if let crossfade { settings.append("crossfade \(crossfade) s") }
            try Data(Self.page(results, settings: settings).utf8).write(
                to: URL(fileURLWithPath: html), options: .atomic)
        }
        let failed = results.contains { $0.error != nil }
        throw ExitCode(failed ? 1 : 0)
    }

    /// One page: per clip, the ranked candidates with their scores and seam strips; the chosen one marked.
    static func page(_ results: [Result], settings: [String], written: Date = Date()) -> String {
        func x(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        var out = """
            <!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>loopprep loop</title><style>
            body{font:14px/1.4 system-ui,sans-serif;margin:1em;max-width:60em}td,th{padding:.2em .6em;text-align:right}
            td:first-child,th:first-child{text-align:left}img{max-width:100%}h2{overflow-wrap:anywhere}.chosen{font-weight:bold}
            .scroll{overflow-x:auto}.meta{color:#666;font-size:.9em}
            </style></head><body><h1>loopprep loop</h1>
            <p class="meta">loopprep \(Report.toolVersion), written \(HTMLReport.stamp(written)). Settings: \(x(settings.joined(separator: ", "))).</p>
            <p>Scores: picture and motion are mean luma differences (0-255) at the seam; audio jump is of full scale;
            level in dB. Lower is better. Pick another with <code>--pick N</code>.</p>

            """
        for r in results {
            out += "<h2>\(x(r.path))</h2>"
            if let output = r.output { out += "<p>wrote \(x(output))</p>" }
            if let error = r.error { out += "<p>NOT WRITTEN: \(x(error))</p>" }
            for f in r.findings { out += "<p>\(f.severity.rawValue) [\(f.rule)] \(x(f.message))</p>" }
            out +=
                "<div class=\"scroll\"><table><tr><th>#</th><th>start s</th><th>end s</th><th>frames</th><th>picture</th><th>motion</th><th>audio jump</th><th>level dB</th><th>tone octaves</th></tr>"
            for (k, c) in r.candidates.enumerated() {
                out += String(
                    format:
                        "<tr%@><td>%d%@</td><td>%.3f</td><td>%.3f</td><td>%d</td><td>%.1f</td><td>%.1f</td><td>%.3f</td><td>%.1f</td><td>%.2f</td></tr>",
                    k == r.chosen ? " class=\"chosen\"" : "", k + 1, k == r.chosen ? " (chosen)" : "",
                    c.start.doubleValue, c.end.doubleValue,
                    c.frames, c.pictureDifference, c.motionDifference, c.audioJump, c.levelDifference, c.toneDifference)
            }
            out += "</table></div>"
            for (k, strip) in r.strips.enumerated() {
                out +=
                    "<figure><img alt=\"seam of candidate \(k + 1)\" src=\"data:image/png;base64,\(Data(strip).base64EncodedString())\"/>"
                    + "<figcaption>#\(k + 1): the loop's last three frames, then its first three</figcaption></figure>"
            }
        }
        return out + "</body></html>\n"
    }

    static func text(_ r: Result) -> String {
        var out = "\(r.path)\n"
        for (k, c) in r.candidates.enumerated() {
            out += String(
                format:
                    "  %@#%d  %.3f-%.3f s (frames %d-%d, %d frames): picture %.1f, motion %.1f, audio jump %.3f, level %.1f dB, tone %.2f octaves\n",
                k == r.chosen ? "*" : " ", k + 1, c.start.doubleValue, c.end.doubleValue, c.inFrame, c.outFrame - 1,
                c.frames,
                c.pictureDifference, c.motionDifference, c.audioJump, c.levelDifference, c.toneDifference)
        }
        if let output = r.output { out += "  wrote \(output)\n" }
        for f in r.findings { out += "  \(f.severity.rawValue) [\(f.rule)] \(f.message)\n" }
        if let error = r.error { out += "  NOT WRITTEN: \(error)\n" }
        return out
    }
}
