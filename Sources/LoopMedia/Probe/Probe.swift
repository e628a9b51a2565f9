import CFFmpeg
import Foundation
import LoopAnalysis

/// File -> facts. Timing comes from the container index (MP4/MOV sample tables and edit lists, read directly)
/// or, for other containers, from packet headers; nothing here decodes.
public enum Probe {
    public static func facts(path: String) throws -> ClipFacts {
        try probe(path).facts
    }

    /// What a probe learns: the facts, the raw timelines they were computed from (plans need them), and an
    /// input positioned at the start for the seam check. The input is the probe's own when the index sufficed
    /// (no packet was read); after a packet scan the file is reopened, because rewinding a demuxer that has hit
    /// EOF is not reliable for every format (Matroska loses its first packets).
    public struct Result {
        public var facts: ClipFacts
        public var timelines: [Int: TrackTimeline]
        /// nil when the caller asked for none (fix: FFmpeg's own index of a long file is not kept while writing).
        public var input: InputFile?
        /// Top-level ISO-BMFF layout, when the file is one.
        var iso: ISOFile?
    }

    /// `locations`: keep every MP4/MOV sample's place in the file (fix writes from them).
    public static func probe(_ path: String, keepInput: Bool = true, locations: Bool = false) throws -> Result {
        let size = try fileSize(path)
        // Our index reader goes first: FFmpeg's mov demuxer allocates what a table claims before it finds the
        // bytes are not there (a 2 KB box claiming 2^27 entries cost it 1 GB); ours refuses such a file.
        let index = try ISOFile.read(path: path, fileSize: size, locations: locations)
        let input = try InputFile(path: path)
        let format = input.formatName
        // FFmpeg also opens text (tty), pictures (image2, *_pipe) and filter graphs: none of them is a clip.
        if format == "tty" || format == "image2" || format == "lavfi" || format.hasSuffix("_pipe") {
            throw MediaError("open", reason: "not a video or audio file (FFmpeg reads it as \(format))")
        }
        let iso = format.hasPrefix("mov,") ? index : nil
        if let iso, iso.dataEnd > size {
            throw MediaError("read index", reason: "truncated: the index points at \(iso.dataEnd) bytes but the file has \(size)")
        }
        var basics = (0..<input.streamCount).map { input.basics($0) }
        if basics.contains(where: { !isComplete($0) }) {
            try input.findStreamInfo()
            basics = (0..<input.streamCount).map { input.basics($0) }
        }
        guard basics.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("open", reason: "no audio or video track")
        }
        for b in basics where b.kind == .video || b.kind == .audio {
            guard hasDecoder(input, b.index) else { throw MediaError("open decoder", reason: "no decoder for codec \(b.codec) (track \(b.index))") }
        }

        var timelines: [Int: TrackTimeline] = [:]
        if let iso {
            for b in basics { if let id = b.trackID, let t = iso.tracks[id] { timelines[b.index] = t.timeline } }
            // iTunSMPB says the first audio track's priming and padding where no edit list does.
            if let gapless = iso.gapless, let audio = basics.first(where: { $0.kind == .audio }),
               let t = timelines[audio.index], let signalled = gaplessTimeline(t, gapless, rate: audio.sampleRate) {
                timelines[audio.index] = signalled
            }
        }
        let missing = basics.map(\.index).filter { timelines[$0] == nil }
        if !missing.isEmpty {
            let read = try PacketTimelines.read(input, streams: Set(missing), basics: basics)
            timelines.merge(read) { a, _ in a }
        }

        // MPEG-TS/PS and FLV clocks start anywhere: the earliest track's start is the file's 0.
        var origin: Rational?
        if ["mpegts", "mpeg", "flv", "mpegvideo"].contains(format) {
            let avTimelines = basics.filter { $0.kind == .video || $0.kind == .audio }.compactMap { timelines[$0.index] }
            if let first = avTimelines.compactMap({ $0.presentedRange()?.start }).min(), !first.isZero {
                origin = first
                for (i, t) in timelines { timelines[i] = t.shifted(by: -(first / t.timeBase).floor) }
            }
        }
        let tracks = basics.compactMap { b in timelines[b.index].flatMap { TrackFacts(basics: b, timeline: $0) } }
        guard tracks.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("read packets", reason: "no audio or video packets")
        }
        let empty = basics.filter { b in (b.kind == .video || b.kind == .audio) && !tracks.contains { $0.index == b.index } }
            .map { EmptyTrack(index: $0.index, kind: $0.kind, codec: $0.codec) }
        var facts = ClipFacts(path: path, container: containerName(format: format, iso: iso, path: path), formatName: format,
                              fileSize: size, moovBeforeMdat: iso?.moovBeforeMdat, movieTimescale: iso?.movieTimescale,
                              fragmented: iso?.fragmented, tracks: tracks, emptyTracks: empty)
        facts.movieDuration = iso.map { Rational($0.movieDuration, $0.movieTimescale) }
        if basics.contains(where: { $0.kind == .attachment && $0.codec != "ttf" && $0.codec != "otf" }) { facts.coverArt = true }
        facts.clockOrigin = origin
        // Plans work on the audio as the decoder plays it: frames of the codec's length, back to back.
        for track in tracks {
            if let frame = track.irregularDurations?.frameTicks, let t = timelines[track.index] { timelines[track.index] = AudioFrames.regular(t, frame: frame) }
        }
        let kept = keepInput ? (missing.isEmpty ? input : try InputFile(path: path)) : nil
        return Result(facts: facts, timelines: timelines, input: kept, iso: iso)
    }

    /// The skips iTunSMPB describes, for a track without a media edit; nil when the figures do not fit the track
    /// (more samples claimed than it holds), which is then read as if there were none.
    static func gaplessTimeline(_ t: TrackTimeline, _ g: ITunesGapless, rate: Int?) -> TrackTimeline? {
        guard t.edits?.contains(where: { $0.mediaTime != nil }) != true, let rate, rate > 0, let span = t.mediaSpan else { return nil }
        let perSample = Rational(1, Int64(rate)) / t.timeBase
        guard perSample.denominator == 1 else { return nil }
        let start = g.priming * perSample.numerator, length = g.length * perSample.numerator
        guard span.start + start + length <= span.end else { return nil }
        var out = t
        out.edits = [Edit(mediaTime: span.start + start, duration: Rational(g.length, Int64(rate)))]
        out.primingMethod = "iTunSMPB"
        return out
    }

    static func fileSize(_ path: String) throws -> Int64 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaError("open", reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw MediaError("open", reason: "is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw MediaError("open", reason: "permission denied") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw MediaError("open", reason: "empty file (0 bytes)") }
        return size
    }

    static func isComplete(_ b: TrackBasics) -> Bool {
        switch b.kind {
        case .video: (b.width ?? 0) > 0 && (b.height ?? 0) > 0
        case .audio: (b.sampleRate ?? 0) > 0 && (b.channels ?? 0) > 0
        default: true
        }
    }

    static func hasDecoder(_ input: InputFile, _ index: Int) -> Bool {
        avcodec_find_decoder(input.stream(index).pointee.codecpar.pointee.codec_id) != nil
    }

    /// "mov" for QuickTime files, "mp4" for the rest of ISO-BMFF, "webm" or "matroska", else FFmpeg's first name.
    static func containerName(format: String, iso: ISOFile?, path: String) -> String {
        if format.hasPrefix("mov,") { return iso?.majorBrand == "qt  " ? "mov" : "mp4" }
        if format.hasPrefix("matroska") { return isWebM(path) ? "webm" : "matroska" }
        return String(format.split(separator: ",").first ?? Substring(format))
    }

    /// The EBML header names the DocType near the start of the file.
    static func isWebM(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path), let head = try? file.read(upToCount: 64) else { return false }
        try? file.close()
        return head.range(of: Data("webm".utf8)) != nil
    }
}

/// Matroska SimpleBlocks carry no duration: a missing one is the step to the next packet in presentation
/// order, and the last packet's the commonest step.
func fillDurations(_ samples: [SampleTiming]) -> [SampleTiming] {
    guard samples.contains(where: { $0.duration <= 0 }) else { return samples }
    let order = samples.indices.sorted { samples[$0].pts < samples[$1].pts }
    var steps: [Int: Int64] = [:]
    for (a, b) in zip(order, order.dropFirst()) where samples[b].pts > samples[a].pts { steps[a] = samples[b].pts - samples[a].pts }
    var counts: [Int64: Int] = [:]
    for step in steps.values { counts[step, default: 0] += 1 }
    let common = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key ?? 0
    var out = samples
    for i in out.indices where out[i].duration <= 0 { out[i].duration = steps[i] ?? common }
    return out
}

/// Timelines from packet headers, for containers without an index we read ourselves. Reads the file once for
/// all streams; packet payloads are not looked at.
enum PacketTimelines {
    static func read(_ input: InputFile, streams: Set<Int>, basics: [TrackBasics]) throws -> [Int: TrackTimeline] {
        var samples: [Int: [SampleTiming]] = [:]
        var noPts: [Int: [Int]] = [:]
        var noDts = Set<Int>()
        var skipStart: [Int: Int64] = [:], skipEnd: [Int: Int64] = [:]
        let packet = try Packet()
        while try input.read(into: packet) {
            let i = packet.streamIndex
            guard streams.contains(i), let t = packet.pts ?? packet.dts else { continue }
            let tb = input.stream(i).pointee.time_base
            if let skip = packet.skipSamples, let rate = basics[i].sampleRate, rate > 0 {
                let ticks = { (n: Int64) in (Rational(n, Int64(rate)) / Rational(Int64(tb.num), Int64(tb.den))).rounded }
                if samples[i, default: []].allSatisfy(\.isDiscarded) && !packet.isDiscarded { skipStart[i] = ticks(skip.start) }
                skipEnd[i] = ticks(skip.end)
            } else {
                skipEnd[i] = 0
            }
            if packet.pts == nil { noPts[i, default: []].append(samples[i]?.count ?? 0) }
            if packet.dts == nil, packet.pts != nil { noDts.insert(i) }
            samples[i, default: []].append(SampleTiming(dts: packet.dts ?? t, pts: t, duration: max(packet.duration, 0),
                                                        isSync: packet.isKeyframe, isDiscarded: packet.isDiscarded))
        }
        // MPEG-PS writes a PTS only every few packets. Where every packet that has one shows the same reorder
        // delay (no B-frames), the others are presented that long after their decode time too.
        for (i, missing) in noPts {
            let lacking = Set(missing)
            let delays = Set(samples[i]!.indices.filter { !lacking.contains($0) }.map { samples[i]![$0].pts - samples[i]![$0].dts })
            guard delays.count == 1, let delay = delays.first else { continue }
            for n in missing { samples[i]![n].pts = samples[i]![n].dts + delay }
        }
        // Matroska video has no DTS: made from the presentation order (the copier uses the same ones).
        for i in noDts {
            let dts = decodeTimes(presentation: samples[i]!.map(\.pts))
            for n in samples[i]!.indices { samples[i]![n].dts = dts[n] }
        }
        var out: [Int: TrackTimeline] = [:]
        for (i, list) in samples {
            let tb = input.stream(i).pointee.time_base
            let timeBase = Rational(Int64(tb.num), Int64(max(tb.den, 1)))
            var start = skipStart[i] ?? 0
            // Opus in Matroska: the codec delay is not in side data; the decoder drops the header's pre-skip.
            if start == 0, basics[i].codec == "opus", let delay = basics[i].codecDelay, let rate = basics[i].sampleRate, rate > 0 {
                start = (Rational(delay, Int64(rate)) / timeBase).rounded
            }
            var timeline = TrackTimeline(timeBase: timeBase, samples: fillDurations(list), skipStart: start, skipEnd: skipEnd[i] ?? 0)
            // An MP3's LAME/Xing header says its encoder delay and padding (FFmpeg turns them into skip samples on
            // packets that start at 0): the file plays from its first real sample, at 0. Read as the edit it is.
            if basics[i].codec == "mp3", start > 0, let span = timeline.mediaSpan, span.start >= 0 {
                let end = Swift.max(span.end - timeline.skipEnd, span.start + start)
                timeline.edits = [Edit(mediaTime: span.start + start, duration: Rational(end - span.start - start) * timeBase)]
                timeline.skipStart = 0; timeline.skipEnd = 0
                timeline.primingMethod = "LAME header"
            }
            out[i] = timeline
        }
        return out
    }
}
