import Foundation
import LoopAnalysis
import LoopIndex

/// A loop-ready file made ready for a gapless web loop (docs/web-player.md): the media Media Source Extensions
/// appends again and again (a fragmented MP4 built from an MP4, or the WebM itself), a manifest of the exact
/// figures, the player module and a page. Built from the verified output only, and itself read back by FFmpeg
/// before it is kept: every file appears whole or not at all.
public enum WebPackage {
    /// The player module's file name, one per folder, shared by every page in it.
    public static let playerName = PlayerAssets.moduleName

    /// The name every file of an output's package starts with: its stem, or its whole name when `qualified`.
    static func stem(_ output: String, qualified: Bool) -> String {
        let leaf = (output as NSString).lastPathComponent
        return qualified ? leaf : (leaf as NSString).deletingPathExtension
    }

    /// The page and the manifest a package beside `output` is written to (its media are named after the manifest),
    /// known before anything is written: a run claims them with its outputs (OutputClaims).
    public static func names(_ output: String, qualified: Bool = false) -> (page: String, manifest: String) {
        let folder = (output as NSString).deletingLastPathComponent
        let name = stem(output, qualified: qualified)
        let place = { (leaf: String) in folder.isEmpty ? leaf : folder + "/" + leaf }
        return (place(name + ".html"), place(name + ".web.json"))
    }

    /// Writes the package for the loop-ready file `output` (already verified) beside it, or into `folder` (analyze's
    /// report: the clip looped as it is, its page and manifest pointing back at it).
    /// `qualified`: the page and its files are named after the output's whole name (hero.webm.html), where
    /// another output of the run has the same stem (hero.mp4 beside hero.webm: one page would replace the other).
    public static func write(
        _ output: String, into folder: String? = nil, qualified: Bool = false, temporaries: TemporaryFiles
    ) throws -> WebPlayerOutput {
        // The probe's own opening serves the configuration records too (no second opening for them).
        let probed = try Probe.probe(output, keepInput: true)
        let facts = probed.facts
        let folder = folder ?? (output as NSString).deletingLastPathComponent
        let leaf = (output as NSString).lastPathComponent
        var names = Names(folder: folder, stem: stem(output, qualified: qualified))
        let tracks = facts.tracks.filter { $0.kind == .video || $0.kind == .audio }
        guard let main = facts.mainVideo ?? facts.mainAudio else {
            throw MediaError("web player", reason: "\(leaf) has no audio or video track to loop")
        }
        let webm = facts.isMatroska && Probe.isWebM(output)
        try refusal(facts, timelines: probed.timelines, webm: webm, file: leaf)
        let described = try describe(
            tracks, input: try probed.input ?? InputFile.rawMedia(output), facts: facts, webm: webm)
        if !folder.isEmpty {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw MediaError("web player", reason: "cannot make \(folder): \(MediaError.describe(error))")
            }
        }
        // The loop-ready file as the manifest names it (the fallback, a WebM appended as it is): inside the folder
        // the page is served from, where a browser can fetch it (analyze's report folder gets a copy).
        names.fallback = try inside(folder, output, temporaries: temporaries)
        let (loop, media, notes) =
            webm
            ? try webmMedia(output, probed, tracks, described, names, main: main, temporaries: temporaries)
            : try mp4Media(output, probed, tracks, described, names, main: main, temporaries: temporaries)
        let (manifest, page, player) = (
            names.place(names.stem + ".web.json"), names.place(names.stem + ".html"),
            names.place(playerName)
        )
        try writeText(try manifestJSON(loop), to: manifest, temporaries: temporaries)
        try writeText(
            PlayerAssets.page(title: names.stem, manifest: (manifest as NSString).lastPathComponent), to: page,
            temporaries: temporaries)
        try writeText(PlayerAssets.module, to: player, temporaries: temporaries)
        var written = WebPlayerOutput(page: page, manifest: manifest, media: media, player: player, loop: loop)
        written.notes = notes + appendedAsEncoded(tracks, loop: loop)
        return written
    }

    /// Where the player's files go, the stem they are named after, and the loop-ready file as the manifest names
    /// it (its fallback).
    struct Names {
        let folder: String
        let stem: String
        var fallback = ""
        func place(_ leaf: String) -> String { folder.isEmpty ? leaf : folder + "/" + leaf }
        /// A track's media file: NAME.web.video0.webm.
        func track(_ track: TrackFacts, _ suffix: String) -> String {
            place("\(stem).web.\(track.kind == .video ? "video" : "audio")\(track.index)\(suffix)")
        }
    }

    /// A WebM's media: fix started every track at 0. Opus is encoded again loop-continuously where its length
    /// allows (ContinuousOpus), each track in a WebM of its own; else the WebM is appended as it is, Opus's pre-skip
    /// in its CodecDelay.
    static func webmMedia(
        _ output: String, _ probed: Probe.Result, _ tracks: [TrackFacts], _ described: [WebLoop.Track],
        _ names: Names, main: TrackFacts, temporaries: TemporaryFiles
    ) throws -> (WebLoop, media: [String], notes: [String]) {
        let file = names.fallback
        var placed = zip(described, tracks).map { $0.starting(at: $1.startSeconds) }
        let plans = zip(tracks, placed).map { track, web in
            track.codec == "opus" && web.sampleRate == Int(Opus.rate)
                ? web.samples.flatMap { ContinuousOpus.plan(samples: $0) } : nil
        }
        let notes = encodedAgain(tracks, plans)
        guard plans.contains(where: { $0 != nil }) else {
            let loop = WebLoop(
                sources: [.init(media: file, mime: WebLoop.mime(container: "webm", tracks: placed))],
                fallback: file, origin: main.startSeconds, length: main.durationSeconds, tracks: placed)
            return (loop, [output], notes)
        }
        var sources: [WebLoop.Source] = []
        var media: [String] = []
        for (i, track) in tracks.enumerated() {
            let path = names.track(track, ".webm")
            var first: (path: String, lead: Rational)?
            if let plan = plans[i] {
                let start = names.track(track, ".first.webm")
                let lead = try WebMTracks.continuousOpus(
                    output, track: track, plan: plan, to: path, first: start, temporaries: temporaries)
                first = (start, lead)
                media.append(start)
                placed[i].primingSamples = 0
                placed[i].loopContinuous = true
            } else {
                try WebMTracks.copy(output, track: track, to: path, temporaries: temporaries)
            }
            media.append(path)
            sources.append(
                .init(
                    media: (path as NSString).lastPathComponent,
                    mime: WebLoop.mime(container: "webm", tracks: [placed[i]]), loops: plans[i]?.loops,
                    first: first.map { ($0.path as NSString).lastPathComponent }, firstLead: first?.lead))
        }
        let loop = WebLoop(
            sources: sources, fallback: file, origin: main.startSeconds, length: main.durationSeconds, tracks: placed)
        return (loop, media, notes)
    }

    /// Each Opus track encoded again loop-continuously, said.
    static func encodedAgain(_ tracks: [TrackFacts], _ plans: [ContinuousOpus?]) -> [String] {
        zip(tracks, plans).compactMap { track, plan -> String? in
            guard let plan else { return nil }
            let group = plan.loops > 1 ? ", \(plan.loops) loops an append" : ""
            return """
                \(Figures.trackName(track)) is encoded again for the web copy over the loop repeated \
                (\(plan.frameSize * 1000 / Opus.rate) ms frames\(group)), so a browser's decoder wraps without \
                a seam; the loop-ready file keeps its own encoding
                """
        }
    }

    /// An MP4's media: each track fragmented into an MP4 of its own, from the clip's origin.
    static func mp4Media(
        _ output: String, _ probed: Probe.Result, _ tracks: [TrackFacts], _ described: [WebLoop.Track],
        _ names: Names, main: TrackFacts, temporaries: TemporaryFiles
    ) throws -> (WebLoop, media: [String], notes: [String]) {
        let file = names.fallback
        let origin = Fragmenter.origin(probed.facts, timelines: probed.timelines)
        let placed = described.map { $0.starting(at: origin) }
        var sources: [WebLoop.Source] = []
        var media: [String] = []
        for (track, web) in zip(tracks, placed) {
            let path = names.track(track, ".mp4")
            try Fragmenter.write(
                output, track: track, timelines: probed.timelines, origin: origin, to: path, temporaries: temporaries)
            media.append(path)
            sources.append(
                .init(media: (path as NSString).lastPathComponent, mime: WebLoop.mime(container: "mp4", tracks: [web])))
        }
        let loop = WebLoop(
            sources: sources, fallback: file, origin: origin, length: main.durationSeconds, tracks: placed)
        return (loop, media, [])
    }

    /// Opus and Vorbis appended as they were encoded ring at every wrap in a browser: said per track.
    static func appendedAsEncoded(_ tracks: [TrackFacts], loop: WebLoop) -> [String] {
        let continuous = Set(zip(tracks, loop.tracks).filter { $1.loopContinuous == true }.map { $0.0.index })
        return tracks.filter {
            ($0.codec == "opus" || $0.codec == "vorbis") && !continuous.contains($0.index)
        }.map { track in
            let why =
                track.codec == "opus" ? " (its loop is no whole number of 5 ms frames within 30 s of loops)" : ""
            return """
                \(Figures.trackName(track)) is appended as it was encoded\(why): its first packets were \
                encoded from a cold start, so a browser that decodes them right after the loop's end rings for \
                about 15 ms at every wrap (up to 5 dB, measured in Chromium); Opus in a loop of whole frames and \
                AAC in MP4 wrap cleanly
                """
        }
    }

    /// Why a written file cannot get a web player, thrown in words: a container MSE does not take, or a video
    /// that stores frames after its loop's last shown one.
    static func refusal(_ facts: ClipFacts, timelines: [Int: TrackTimeline], webm: Bool, file: String) throws {
        guard webm || facts.isISO else {
            throw MediaError(
                "web player",
                reason: """
                    browsers append only MP4 and WebM through Media Source Extensions, and \(file) is \
                    \(facts.container.name.uppercased()); fix it with --to mp4 for a web player
                    """)
        }
        // An append window keeps frames by when they are shown: a frame stored past the loop's end (decoded for
        // the frames before it, hidden by an edit list) would be dropped, and the frames that need it with it.
        for track in facts.videoTracks {
            let stored = timelines[track.index]?.samples.count ?? 0
            if let shown = track.frameCount, stored > shown {
                throw MediaError(
                    "web player",
                    reason: """
                        \(Figures.trackName(track)) stores \(stored - shown) frame\(stored - shown == 1 ? "" : "s") \
                        after the loop's last (decoded for the frames before it, hidden by the edit list), which \
                        a browser's append window drops with the frames that need it; write the loop with \
                        --target web (fix re-encodes the last GOP so no frame is needed after the end)
                        """)
            }
        }
    }

    /// Each track as the manifest gives it (codecs strings from the configuration records), at start 0.
    static func describe(_ tracks: [TrackFacts], input: InputFile, facts: ClipFacts, webm: Bool) throws
        -> [WebLoop.Track]
    {
        try tracks.map { track in
            guard
                let codecs = CodecStrings.string(
                    codec: track.codec, extradata: input.extradata(track.index), webm: webm)
            else {
                throw MediaError(
                    "web player",
                    reason: """
                        \(CodecStrings.webPlayerTakes); \(Figures.trackName(track)) in \
                        \(facts.container.name.uppercased()) \
                        is not one of them
                        """)
            }
            return WebLoop.Track(
                kind: track.kind, codec: track.codec, codecs: codecs, length: track.durationSeconds,
                frames: track.kind == .video ? track.frameCount : nil,
                sampleRate: track.kind == .audio ? track.sampleRate : nil,
                primingSamples: track.kind == .audio ? track.priming?.samples : nil)
        }
    }

    /// `output` as the manifest in `folder` names it: where it lies outside the folder (analyze's report, whose
    /// players sit in REPORT.web/), a link to it, else a copy, is placed in the folder, since a browser fetches
    /// nothing above the folder it is served.
    static func inside(_ folder: String, _ output: String, temporaries: TemporaryFiles) throws -> String {
        let path = relative(output, from: folder)
        guard path.hasPrefix("../") else { return path }
        let leaf = (output as NSString).lastPathComponent
        let copy = folder.isEmpty ? leaf : folder + "/" + leaf
        let temp = try temporaries.make(beside: copy)
        defer { temporaries.remove(temp) }
        if link(output, temp) != 0 {
            do { try FileManager.default.copyItem(atPath: output, toPath: temp) } catch {
                throw MediaError(
                    "web player", reason: "cannot copy \(leaf) beside its page: \(MediaError.describe(error))")
            }
        }
        try temporaries.commit(temp, to: copy)
        return leaf
    }

    /// A relative path as a URL reference (each segment percent-encoded: `take #2?.web.json` is that file, not
    /// `take` with a fragment), for an HTML attribute a script resolves against the page.
    public static func urlReference(_ path: String) -> String { PlayerAssets.relativeURL(path) }

    /// `path` as seen from the folder `from` (both absolute or both relative to the working folder), with `..`.
    public static func relative(_ path: String, from folder: String) -> String {
        let base = URL(fileURLWithPath: folder.isEmpty ? "." : folder).standardizedFileURL.pathComponents
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        var common = 0
        while common < min(base.count, target.count) && base[common] == target[common] { common += 1 }
        let parts = Array(repeating: "..", count: base.count - common) + target[common...]
        return parts.joined(separator: "/")
    }

    static func manifestJSON(_ loop: WebLoop) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(loop), as: UTF8.self) + "\n"
    }

    static func writeText(_ text: String, to path: String, temporaries: TemporaryFiles) throws {
        let temp = try temporaries.make(beside: path)
        defer { temporaries.remove(temp) }
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: temp)) } catch {
            throw MediaError("write output", reason: "cannot write \(path): \(MediaError.describe(error))")
        }
        try temporaries.commit(temp, to: path)
    }
}

/// A plain MP4's tracks rewritten as fragmented MP4s, one per track (moov with mvex, a fragment per GOP or per
/// second, no edit list: Media Source Extensions ignores edit lists), every track's first presented instant moved
/// to one origin on the media's timeline: the AAC priming and a B-frame delay sit before it, at non-negative
/// times.
enum Fragmenter {
    /// Whole seconds (exact on every track's clock) that leave every track's earliest decode time at 0 or later.
    static func origin(_ facts: ClipFacts, timelines: [Int: TrackTimeline]) -> Rational {
        var lead = Rational.zero
        for track in facts.tracks where track.kind == .video || track.kind == .audio {
            guard let timeline = timelines[track.index], let range = timeline.presentedRange(),
                let first = timeline.samples.map(\.dts).min()
            else { continue }
            let earliest = first - compositionLead(timeline)
            lead = Rational.max(lead, (range.mediaStart - Rational(earliest)) * timeline.timeBase)
        }
        return Rational(lead.ceiling)
    }

    /// A track's largest negative composition offset (ticks; 0 for none).
    static func compositionLead(_ timeline: TrackTimeline) -> Int64 {
        max(0, timeline.samples.map { $0.dts - $0.pts }.max() ?? 0)
    }

    /// Writes `track` of `source` as a fragmented MP4 whose first presented instant is at `origin`.
    static func write(
        _ source: String, track: TrackFacts, timelines: [Int: TrackTimeline], origin: Rational, to path: String,
        temporaries: TemporaryFiles
    ) throws {
        guard let timeline = timelines[track.index], let range = timeline.presentedRange(),
            range.mediaStart.denominator == 1
        else {
            throw MediaError("web player", reason: "\(Figures.trackName(track)) has no whole first presented tick")
        }
        let start = range.mediaStart.numerator
        let temp = try temporaries.make(beside: path)
        defer { temporaries.remove(temp) }
        let reader = try PacketReader(path: source, windows: [PacketWindow(whole: track.index, timeline: timeline)])
        let output = try OutputFile(path: temp, format: .mp4)
        let out = try output.addStream(copying: reader.input, stream: track.index, keepTag: true)
        // frag_discont: the fragments keep the decode times given (FFmpeg would start them at 0 otherwise).
        try output.writeHeader(options: [
            "movflags": (track.kind == .video ? "frag_keyframe" : "")
                + "+empty_moov+default_base_moof+skip_trailer+frag_discont",
            "frag_duration": track.kind == .video ? "0" : "1000000", "use_editlist": "0",
            "avoid_negative_ts": "disabled",
        ])
        let clock = reader.timeBase(track.index)
        let shift = (origin / clock).rounded - start
        // Negative composition offsets (a video baked for players without edit lists) become positive ones: the
        // decode times move earlier by the largest, as FFmpeg's own demuxer reads them.
        let lead = compositionLead(timeline)
        // Audio keeps every frame's whole length, the last one's too (the plain MP4 stores it shortened to the
        // loop's end, which its edit list says): the append window trims what passes the loop's end, where a frame
        // stored short is played whole, its padding into the next loop.
        let frame =
            track.kind == .audio
            ? AudioFrames.frameTicks(codec: track.codec, sampleRate: track.sampleRate, timeline: timeline) : nil
        while let read = try reader.next() {
            read.packet.pts = read.pts + shift
            read.packet.dts = read.dts - lead + shift
            if let frame { read.packet.duration = frame }
            try output.write(read.packet, stream: out, timeBase: clock)
        }
        try output.finish()
        try check(temp, track: track, origin: origin)
        try temporaries.commit(temp, to: path)
    }

    /// FFmpeg's reading of the fragmented copy: a video's every frame, the first presented at the origin; audio
    /// from the origin less its priming. (Its end is not compared: a fragmented file's durations are the
    /// fragments', not the presented loop's, which the append window ends.)
    static func check(_ path: String, track: TrackFacts, origin: Rational) throws {
        let reading: IndependentReading
        do { reading = try FFmpegReading.read(path) } catch {
            throw MediaError(
                "web player",
                reason: """
                    FFmpeg cannot read the fragmented copy back: \(MediaError.describe(error)); please report the \
                    input
                    """)
        }
        guard let read = reading.tracks.first, let start = read.start else {
            throw MediaError("web player", reason: "\(Figures.trackName(track)) is missing from its fragmented MP4")
        }
        let rate = Int64(max(track.sampleRate ?? 1, 1))
        let priming = track.kind == .audio ? Rational(track.priming?.samples ?? 0, rate) : .zero
        let expected = origin - priming
        let tolerance = track.kind == .audio ? Rational(1, 2 * rate) : .zero
        if (start - expected).magnitude > tolerance || (track.kind == .video && read.frames != track.frameCount) {
            throw MediaError(
                "web player",
                reason: """
                    FFmpeg reads \(Figures.trackName(track)) of its fragmented MP4 from \(Figures.ms(start))\
                    \(read.frames.map { ", \($0) frames" } ?? ""), planned from \(Figures.ms(expected))\
                    \(track.frameCount.map { ", \($0) frames" } ?? ""); please report the input
                    """)
        }
    }
}

extension PacketWindow {
    /// Every packet of a track, on its timeline.
    init(whole stream: Int, timeline: TrackTimeline) {
        self.stream = stream
        origin = timeline.samples.first?.dts ?? 0
        compositionLead = Fragmenter.compositionLead(timeline)
        from = .min
        through = .max
    }
}
