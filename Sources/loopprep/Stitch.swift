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
            nothing.
            """)

    @Argument(help: "Clips and folders (a folder's clips in natural order: clip2 before clip10).", completion: .file())
    var inputs: [String] = []

    @Option(
        help: ArgumentHelp(
            "A JSON playlist: {\"clips\": [{\"path\": \"a.mp4\", \"in\": 1.0, \"out\": 4.5, \"transition\": {\"type\": \"crossfade\", \"duration\": 0.5}}], \"loop\": false}",
            valueName: "file"), completion: .file(extensions: ["json"]))
    var playlist: String?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp(
            "The stitched file: .mp4 or .mov, or .webm (or .mkv) for VP8/VP9/AV1 clips with Opus audio.",
            valueName: "file"), completion: .file(extensions: ["mp4", "mov", "webm", "mkv"]))
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Transition at every join: none, or any of FFmpeg's xfade transitions by name (fade, wipeleft, slideleft, circleopen, dissolve, pixelize, radial, ...: the README lists all 46); crossfade, fade-black and slide-left/right/up/down are fade, fadeblack and slideleft... .",
            valueName: "name"))
    var transition: TransitionKind = .none

    @Option(
        name: .customLong("audio-curve"),
        help: ArgumentHelp(
            "The audio's fade curve under a transition, by acrossfade's names (tri, qsin, esin, hsin, log, ipar, qua, cub, squ, cbr, par, exp, iqsin, ihsin, dese, desi, losi, sinc, isinc, nofade). qsin keeps the power constant.",
            valueName: "curve"))
    var audioCurve: FadeCurve = .qsin

    @Option(help: "Transition length in seconds (rounded to whole frames).")
    var duration: Double = 0.5

    @Flag(help: "Also join the last clip back into the first, so the file itself loops seamlessly.")
    var loop = false

    @Flag(
        help:
            "Re-encode every clip to the first clip's format (size, pixel format, frame rate, audio rate and channels) instead of refusing clips that differ."
    )
    var normalize = false

    @Option(
        help: ArgumentHelp(
            "With --normalize: the codec to encode in (h264, hevc, vp8, vp9, av1), where it is not the first clip's.",
            valueName: "codec"))
    var codec: String?

    @Flag(name: .customLong("dry-run"), help: "Print the timeline and write nothing.")
    var dryRun = false

    @Flag(name: [.customLong("force"), .customShort("y")], help: "Replace the output if it exists.")
    var force = false

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

    @Option(help: "Report format: text, json, junit or github.")
    var format: OutputFormat = .text

    @Flag(help: "Show FFmpeg's own log on stderr.")
    var verbose = false

    func validate() throws {
        guard !inputs.isEmpty || playlist != nil else {
            throw ValidationError("name clips, a folder, or --playlist FILE")
        }
        guard inputs.isEmpty || playlist == nil else {
            throw ValidationError("use either clips or --playlist, not both")
        }
        guard output != nil || dryRun else {
            throw ValidationError("name the output with -o OUT.mp4 (or use --dry-run)")
        }
        guard duration > 0 && duration <= 60 else { throw ValidationError("--duration takes seconds between 0 and 60") }
        if let codec {
            guard normalize else { throw ValidationError("--codec re-encodes every clip: use it with --normalize") }
            guard ["h264", "hevc", "vp8", "vp9", "av1"].contains(codec) else {
                throw ValidationError("--codec takes h264, hevc, vp8, vp9 or av1")
            }
        }
    }

    /// A refusal: the sentences on stderr, and with --format json a document on stdout too.
    func refuse(_ lines: [String], status: ExitStatus) throws -> Never {
        for line in lines { Console.stderr(line + "\n") }
        if format == .json {
            struct Refusal: Encodable {
                var tool = "loopprep"
                var command = "stitch"
                var output: String?
                var error: String
                var details: [String]
            }
            let doc = Refusal(output: output, error: lines.first ?? "refused", details: Array(lines.dropFirst()))
            Console.stdout(String(decoding: (try? StitchReport.encoder.encode(doc)) ?? Data(), as: UTF8.self) + "\n")
        }
        throw ExitCode(status.rawValue)
    }

    func run() async throws {
        Console.configureFFmpegLog(verbose: verbose)
        let temporaries = TemporaryFiles()
        let signals = Console.cleanUpOnSignals { temporaries.removeAll() }
        defer { withExtendedLifetime(signals) {} }

        let (paths, requests, looping, points) = try resolve()
        if paths.isEmpty {
            try refuse(["loopprep: error: no media found in \(inputs.joined(separator: ", "))"], status: .unreadable)
        }
        // Never over an input; an existing file only when asked.
        if let output, !dryRun {
            if let input = paths.first(where: { ClipFix.sameFile($0, output) }) {
                try refuse(
                    ["loopprep: error: the output \(output) is the input \(input) (nothing written)"], status: .findings
                )
            }
            if FileManager.default.fileExists(atPath: output), !force {
                try refuse(
                    ["loopprep: error: \(output) exists: --force (or -y) replaces it (nothing written)"],
                    status: .findings)
            }
        }
        var prepared: [PreparedClip] = []
        var unreadable: [String] = []
        for (i, path) in paths.enumerated() {
            let (inPoint, outPoint) = points[i]
            do { prepared.append(try Stitcher.prepare(path, in: inPoint, out: outPoint, normalize: normalize)) } catch {
                unreadable.append("\(path): \(MediaError.describe(error))")
            }
        }
        guard unreadable.isEmpty else { try refuse(unreadable, status: .unreadable) }
        let differences = Stitcher.differences(prepared, normalizing: normalize, codec: codec)
        guard differences.isEmpty else {
            try refuse(
                [
                    normalize
                        ? "loopprep: error: the clips differ in what --normalize cannot change (nothing written):"
                        : "loopprep: error: the clips differ, so they cannot be joined by stream copy (nothing written; --normalize re-encodes them):"
                ]
                    + differences.map { "  " + $0 }, status: .findings)
        }
        let timeline: StitchTimeline
        do {
            timeline = try Stitcher.timeline(prepared, transitions: requests, loop: looping, normalize: normalize)
        } catch {
            try refuse(["loopprep: error: \(MediaError.describe(error))"], status: .findings)
        }
        var result = StitchReport(output: dryRun ? nil : output, timeline: timeline)
        // The render plan, before anything is written: what cannot be rendered is said by a dry run too.
        var plan: StitchRenderPlan?
        do { plan = try Stitcher.plan(prepared, timeline: timeline, normalize: normalize, codec: codec) } catch {
            result.error = MediaError.whileWriting(error)
        }
        // Said before anything is written: a clip that cannot be copied is re-encoded whole.
        result.reencoded = (plan?.reencodedWhole ?? []).map { i in
            "\(prepared[i].path) is re-encoded whole: its parameter sets differ from \(prepared[0].path)'s (another encoder, or other settings), so its frames cannot be copied beside them"
        }
        // A WebM is meant for browsers: its findings are the web target's.
        let outputOptions = AnalysisOptions(
            target: output.map { Stitcher.outputFormat($0) == "webm" } == true ? .web : .apple)
        if !dryRun, let output, let plan {
            do {
                let bar = Progress(total: 0, label: "stitching")
                let facts = try Stitcher.write(
                    prepared, timeline: timeline, plan: plan, to: output, temporaries: temporaries,
                    normalize: normalize,
                    audioCurve: audioCurve, codec: codec
                ) { done, total in
                    bar.show(done, of: total, "\(done == 0 ? "starting" : "part \(done + 1)")")
                }
                bar.finish()
                result.facts = facts
                result.findings = Analyzer.findings(in: facts, options: outputOptions)
            } catch {
                result.error = MediaError.whileWriting(error)
            }
        }
        if let html {
            var files: [FileReport] = []
            var strips: [String: [UInt8]] = [:]
            if result.error == nil, let output, !dryRun {
                let (report, strip) = ClipAnalysis.report(path: output, options: outputOptions, picture: true)
                files.append(report)
                strips[output] = strip
            }
            let page = HTMLReport.render(
                Report(command: "stitch", options: outputOptions, files: files), strips: strips, timeline: timeline,
                notes: result.reencoded)
            let url = URL(fileURLWithPath: html)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(page.utf8).write(to: url, options: .atomic)
        }
        if let manifest, result.error == nil {
            try Data(try StitchReport.encoder.encode(Manifest(timeline, output: output))).write(
                to: URL(fileURLWithPath: manifest), options: .atomic)
        }
        switch format {
        case .json: Console.stdout(String(decoding: try StitchReport.encoder.encode(result), as: UTF8.self) + "\n")
        case .text: Console.stdout(result.text)
        case .junit: Console.stdout(JUnitFormat.render(result.asReport, failOn: .error))
        case .github: Console.stdout(GitHubFormat.render(result.asReport))
        case .jsonl: Console.stdout(JSONLines.render(result.asReport))
        case .sarif: Console.stdout(SARIFFormat.render(result.asReport))
        }
        if let error = result.error {
            Console.stderr("\(output ?? "output"): error: [stitch-failed] \(error)\n")
            throw ExitCode(ExitStatus.findings.rawValue)
        }
    }

    /// Clips and per-join transitions from the command line or the playlist.
    func resolve() throws -> ([String], [TransitionRequest], Bool, [(Rational?, Rational?)]) {
        let seconds = Rational(Int64((duration * 1000).rounded()), 1000)
        if let playlist {
            let list = try Playlist.load(playlist)
            let base = (playlist as NSString).deletingLastPathComponent
            let paths = list.clips.map {
                $0.path.hasPrefix("/") || base.isEmpty ? $0.path : (base as NSString).appendingPathComponent($0.path)
            }
            let looping = list.loop ?? loop
            let joins = looping ? list.clips.count : list.clips.count - 1
            let requests = (0..<joins).map { j in
                list.clips[j].transition.map {
                    TransitionRequest(kind: $0.type, duration: Rational(Int64(($0.duration ?? duration) * 1000), 1000))
                }
                    ?? TransitionRequest(kind: transition, duration: seconds)
            }
            let ms = { (v: Double?) in v.map { Rational(Int64(($0 * 1000).rounded()), 1000) } }
            return (paths, requests, looping, list.clips.map { (ms($0.in), ms($0.out)) })
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
        return (
            paths, Array(repeating: TransitionRequest(kind: transition, duration: seconds), count: joins), loop,
            Array(repeating: (nil, nil), count: paths.count)
        )
    }
}

/// clip2 before clip10: digit runs compare as numbers.
enum NaturalOrder {
    static func less(_ a: String, _ b: String) -> Bool {
        let x = chunks(a)
        let y = chunks(b)
        for (p, q) in zip(x, y) where p != q {
            if let m = Int(p), let n = Int(q) { return m != n ? m < n : p < q }
            return p < q
        }
        return x.count < y.count
    }
    static func chunks(_ s: String) -> [String] {
        var out: [String] = []
        var current = ""
        for c in s {
            if let last = current.last, last.isNumber != c.isNumber {
                out.append(current)
                current = ""
            }
            current.append(c)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}

struct Playlist: Decodable {
    struct Clip: Decodable {
        struct Transition: Decodable {
            var type: TransitionKind
            var duration: Double?
        }
        var path: String
        var transition: Transition?
        var `in`: Double?
        var out: Double?
    }
    var clips: [Clip]
    var loop: Bool?

    /// Reads and checks a playlist; every problem is one line naming the file.
    static func load(_ path: String) throws -> Playlist {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(path): cannot read the playlist")
        }
        let list: Playlist
        do { list = try JSONDecoder().decode(Playlist.self, from: data) } catch {
            throw ValidationError("\(path): not a playlist (\(Self.describe(error)))")
        }
        guard !list.clips.isEmpty else { throw ValidationError("\(path): the playlist has no clips") }
        for (i, clip) in list.clips.enumerated() {
            if let a = clip.in, let b = clip.out, a >= b {
                throw ValidationError(
                    "\(path): clip \(i + 1) (\(clip.path)) has its in point at or after its out point")
            }
            if let a = clip.in, a < 0 {
                throw ValidationError("\(path): clip \(i + 1) (\(clip.path)) has a negative in point")
            }
            if let d = clip.transition?.duration, !(d > 0 && d <= 60) {
                throw ValidationError("\(path): clip \(i + 1): transition duration must be between 0 and 60 s")
            }
        }
        let base = (path as NSString).deletingLastPathComponent
        for clip in list.clips {
            let full =
                clip.path.hasPrefix("/") || base.isEmpty
                ? clip.path : (base as NSString).appendingPathComponent(clip.path)
            guard FileManager.default.fileExists(atPath: full) else {
                throw ValidationError("\(path): clip \(clip.path) does not exist")
            }
        }
        return list
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.debugDescription
        case DecodingError.keyNotFound(let k, _): return "missing \"\(k.stringValue)\""
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "wrong value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "\(error)"
        }
    }
}

/// Each clip's and transition's place in the output, in seconds and frames.
struct Manifest: Encodable {
    struct Entry: Encodable {
        var start: Double
        var end: Double
        var startFrame: Int
        var endFrame: Int
    }
    struct ClipItem: Encodable {
        var path: String
        var place: Entry
    }
    struct JoinItem: Encodable {
        var from: String
        var to: String
        var kind: TransitionKind
        var frames: Int
        var place: Entry
    }
    var schemaVersion = 1
    var tool = "loopprep"
    var version = Report.toolVersion
    var output: String?
    var frameRate: Rational
    var frames: Int
    var duration: Double
    var loop: Bool
    var clips: [ClipItem]
    var transitions: [JoinItem]

    init(_ t: StitchTimeline, output: String?) {
        func entry(_ s: Span) -> Entry {
            Entry(start: s.start.doubleValue, end: s.end.doubleValue, startFrame: s.startFrame, endFrame: s.endFrame)
        }
        self.output = output
        frameRate = t.frameRate
        frames = t.frames
        duration = t.duration.doubleValue
        loop = t.loop
        clips = t.clips.map { ClipItem(path: $0.path, place: entry($0.span)) }
        transitions = t.joins.map {
            JoinItem(
                from: t.clips[$0.from].path, to: t.clips[$0.to].path, kind: $0.kind, frames: $0.frames,
                place: entry($0.span))
        }
    }
}

struct StitchReport: Encodable {
    var schemaVersion = 1
    var tool = "loopprep"
    var version = Report.toolVersion
    var ffmpeg = FFmpegLibraries.description
    var output: String?
    var timeline: StitchTimeline
    var facts: ClipFacts?
    var findings: [Finding] = []
    /// Clips re-encoded whole rather than copied, each with why.
    var reencoded: [String] = []
    var error: String?

    init(output: String?, timeline: StitchTimeline) {
        self.output = output
        self.timeline = timeline
    }

    static let encoder = JSONFormat.encoder()

    /// The output as a one-file report, for the JUnit and GitHub renderers (a failure is a failed repair).
    var asReport: Report {
        let file = FileReport(
            path: output ?? "(dry run)", facts: facts, findings: findings,
            fix: error.map { FixOutcome(status: .failed, output: output, reason: $0) })
        return Report(command: "stitch", options: .init(), files: [file])
    }

    var text: String {
        let t = timeline
        var out =
            "timeline: \(t.clips.count) clips, \(Figures.seconds(t.duration)) = \(t.frames) frames at \(t.frameRate) fps"
        if let n = t.samples, let r = t.sampleRate { out += " = \(n) samples at \(r) Hz" }
        out += t.loop ? ", loops\n" : "\n"
        for (i, c) in t.clips.enumerated() {
            out +=
                "  \(Figures.decimal(c.span.start, places: 3))-\(Figures.decimal(c.span.end, places: 3)) s  frames \(c.span.startFrame)-\(c.span.endFrame)  \(c.path)\n"
            for j in t.joins where j.from == i && j.frames > 0 {
                out +=
                    "    \(j.kind.rawValue) into \(t.clips[j.to].path): \(Figures.decimal(j.span.start, places: 3))-\(Figures.decimal(j.span.end, places: 3)) s (\(j.frames) frames)\n"
            }
        }
        for note in reencoded { out += "note: \(note)\n" }
        if let error {
            out += "NOT WRITTEN: \(error)\n"
        } else if let output, let facts {
            out +=
                "wrote \(output): "
                + facts.tracks.filter { $0.kind == .video || $0.kind == .audio }.map { TextFormat.describe($0) }.joined(
                    separator: "; ") + "\n"
            for f in findings { out += "  \(f.severity.rawValue) [\(f.rule)] \(f.message)\n" }
        } else {
            out += "dry run: nothing written\n"
        }
        return out
    }
}
