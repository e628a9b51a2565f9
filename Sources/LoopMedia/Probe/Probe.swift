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
            throw MediaError(
                "read index", reason: "truncated: the index points at \(iso.dataEnd) bytes but the file has \(size)")
        }
        let basics = (0..<input.streamCount).map { input.basics($0) }
        guard basics.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("open", reason: "no audio or video track")
        }
        for b in basics where b.kind == .video || b.kind == .audio {
            guard hasDecoder(input, b.index) else {
                throw MediaError("open decoder", reason: "no decoder for codec \(b.codec) (track \(b.index))")
            }
        }

        var timelines: [Int: TrackTimeline] = [:]
        if let iso {
            for b in basics { if let id = b.trackID, let t = iso.tracks[id] { timelines[b.index] = t.timeline } }
            // iTunSMPB says the first audio track's priming and padding where no edit list does.
            if let gapless = iso.gapless, let audio = basics.first(where: { $0.kind == .audio }),
                let t = timelines[audio.index], let signalled = gaplessTimeline(t, gapless, rate: audio.sampleRate)
            {
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
            let avTimelines = basics.filter { $0.kind == .video || $0.kind == .audio }.compactMap {
                timelines[$0.index]
            }
            if let first = avTimelines.compactMap({ $0.presentedRange()?.start }).min(), !first.isZero {
                origin = first
                for (i, t) in timelines { timelines[i] = t.shifted(by: -(first / t.timeBase).floor) }
            }
        }
        let tracks = basics.compactMap { b in timelines[b.index].flatMap { TrackFacts(basics: b, timeline: $0) } }
        guard tracks.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("read packets", reason: "no audio or video packets")
        }
        let empty = basics.filter { b in
            (b.kind == .video || b.kind == .audio) && !tracks.contains { $0.index == b.index }
        }
        .map { EmptyTrack(index: $0.index, kind: $0.kind, codec: $0.codec) }
        var facts = ClipFacts(
            path: path, container: containerName(format: format, iso: iso, path: path), formatName: format,
            fileSize: size, moovBeforeMdat: iso?.moovBeforeMdat, movieTimescale: iso?.movieTimescale,
            fragmented: iso?.fragmented, tracks: tracks, emptyTracks: empty)
        facts.movieDuration = iso.map { Rational($0.movieDuration, $0.movieTimescale) }
        // Matroska and WebM: the Segment's Duration, what browsers give the file, as the demuxer read it (in
        // milliseconds, the usual TimestampScale, whose tick is the rule's tolerance).
        if facts.isMatroska, let declared = input.declaredDuration {
            facts.movieDuration = declared
            facts.movieTimescale = 1000
        }
        if basics.contains(where: { $0.kind == .attachment && $0.codec != "ttf" && $0.codec != "otf" }) {
            facts.coverArt = true
        }
        facts.clockOrigin = origin
        // Plans work on the audio as the decoder plays it: frames of the codec's length, back to back.
        for track in tracks {
            if let frame = track.irregularDurations?.frameTicks, let t = timelines[track.index] {
                timelines[track.index] = AudioFrames.regular(t, frame: frame)
            }
        }
        let kept = keepInput ? (missing.isEmpty ? input : try InputFile(path: path)) : nil
        return Result(facts: facts, timelines: timelines, input: kept, iso: iso)
    }

    /// The skips iTunSMPB describes, for a track without a media edit; nil when the figures do not fit the track
    /// (more samples claimed than it holds), which is then read as if there were none.
    static func gaplessTimeline(_ t: TrackTimeline, _ g: ITunesGapless, rate: Int?) -> TrackTimeline? {
        guard t.edits?.contains(where: { $0.mediaTime != nil }) != true, let rate, rate > 0, let span = t.mediaSpan
        else { return nil }
        let perSample = Rational(1, Int64(rate)) / t.timeBase
        guard perSample.denominator == 1 else { return nil }
        let start = g.priming * perSample.numerator
        let length = g.length * perSample.numerator
        guard span.start + start + length <= span.end else { return nil }
        var out = t
        out.edits = [Edit(mediaTime: span.start + start, duration: Rational(g.length, Int64(rate)))]
        out.primingMethod = "iTunSMPB"
        return out
    }

    static func fileSize(_ path: String) throws -> Int64 {
        if RemoteFile.isRemote(path) {
            do { return try RemoteFile(path).size } catch {
                throw MediaError("open", reason: "cannot fetch it: \(MediaError.describe(error))")
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaError("open", reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw MediaError("open", reason: "is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaError("open", reason: "permission denied")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw MediaError("open", reason: "empty file (0 bytes)") }
        return size
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
        guard let head = try? ISOFile.source(path).read(at: 0, count: 64) else { return false }
        return Data(head).range(of: Data("webm".utf8)) != nil
    }
}

/// Matroska SimpleBlocks carry no duration: a missing one is the step to the next packet in presentation
/// order, and the last packet's the commonest step.
func fillDurations(_ samples: [SampleTiming]) -> [SampleTiming] {
    guard samples.contains(where: { $0.duration <= 0 }) else { return samples }
    let order = samples.indices.sorted { samples[$0].pts < samples[$1].pts }
    var steps: [Int: Int64] = [:]
    for (a, b) in zip(order, order.dropFirst()) where samples[b].pts > samples[a].pts {
        steps[a] = samples[b].pts - samples[a].pts
    }
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
        var skipStart: [Int: Int64] = [:]
        var skipEnd: [Int: Int64] = [:]
        // Opus on Matroska's millisecond clock: each packet's exact length in samples, and its exact end discard.
        let demuxer = String(cString: input.context.pointee.iformat.pointee.name)
        let matroska = demuxer.hasPrefix("matroska")
        let ogg = demuxer == "ogg"
        let exactOpus = Set(
            streams.filter {
                matroska && basics[$0].codec == "opus" && input.stream($0).pointee.time_base.den != Opus.rate
            })
        var opus: [Int: [(samples: Int64?, discard: Int64)]] = [:]
        let packet = try Packet()
        while try input.read(into: packet) {
            let i = packet.streamIndex
            guard streams.contains(i), let t = packet.pts ?? packet.dts else { continue }
            if exactOpus.contains(i) {
                opus[i, default: []].append((packet.withBytes(Opus.samples), packet.skipSamples?.end ?? 0))
            }
            let tb = input.stream(i).pointee.time_base
            if let skip = packet.skipSamples, let rate = basics[i].sampleRate, rate > 0 {
                let ticks = { (n: Int64) in (Rational(n, Int64(rate)) / Rational(Int64(tb.num), Int64(tb.den))).rounded
                }
                if samples[i, default: []].allSatisfy(\.isDiscarded) && !packet.isDiscarded {
                    skipStart[i] = ticks(skip.start)
                }
                // Ogg's last granule position ends the stream: FFmpeg already shortened the last packet to it,
                // and the discard it attaches as well would trim the same samples twice.
                skipEnd[i] = ogg ? 0 : ticks(skip.end)
            } else {
                skipEnd[i] = 0
            }
            if packet.pts == nil { noPts[i, default: []].append(samples[i]?.count ?? 0) }
            if packet.dts == nil, packet.pts != nil { noDts.insert(i) }
            samples[i, default: []].append(
                SampleTiming(
                    dts: packet.dts ?? t, pts: t, duration: max(packet.duration, 0),
                    isSync: packet.isKeyframe, isDiscarded: packet.isDiscarded))
        }
        // MPEG-PS writes a PTS only every few packets.
        for (i, missing) in noPts {
            if let filled = MissingPresentation.fill(samples[i]!, missing: missing) { samples[i] = filled }
        }
        // Matroska video has no DTS: made from the presentation order (the copier uses the same ones).
        for i in noDts {
            let dts = decodeTimes(presentation: samples[i]!.map(\.pts))
            for n in samples[i]!.indices { samples[i]![n].dts = dts[n] }
        }
        var out: [Int: TrackTimeline] = [:]
        for (i, list) in samples {
            if let lengths = opus[i], let head = input.extradata(i), let preSkip = Opus.preSkip(head),
                let exact = OpusTimeline.exact(
                    list, lengths: lengths, preSkip: preSkip,
                    codecDelay: Int64(input.stream(i).pointee.codecpar.pointee.initial_padding),
                    input.stream(i).pointee.time_base)
            {
                out[i] = exact
                continue
            }
            let tb = input.stream(i).pointee.time_base
            let timeBase = Rational(Int64(tb.num), Int64(max(tb.den, 1)))
            var start = skipStart[i] ?? 0
            // Opus in Matroska: the codec delay is not in side data; the decoder drops the header's pre-skip.
            if start == 0, basics[i].codec == "opus", let delay = basics[i].codecDelay, let rate = basics[i].sampleRate,
                rate > 0
            {
                start = (Rational(delay, Int64(rate)) / timeBase).rounded
            }
            var timeline = TrackTimeline(
                timeBase: timeBase, samples: fillDurations(list), skipStart: start, skipEnd: skipEnd[i] ?? 0)
            // An MP3's LAME/Xing header says its encoder delay and padding (FFmpeg turns them into skip samples on
            // packets that start at 0): the file plays from its first real sample, at 0. Read as the edit it is.
            if basics[i].codec == "mp3", start > 0, let span = timeline.mediaSpan, span.start >= 0 {
                let end = Swift.max(span.end - timeline.skipEnd, span.start + start)
                timeline.edits = [
                    Edit(mediaTime: span.start + start, duration: Rational(end - span.start - start) * timeBase)
                ]
                timeline.skipStart = 0
                timeline.skipEnd = 0
                timeline.primingMethod = "LAME header"
            }
            if ogg, basics[i].codec == "vorbis" { timeline = VorbisInOgg.timeline(timeline) }
            out[i] = timeline
        }
        return out
    }
}

/// Opus in Matroska, on the sample clock (1/48000). Block times are whole milliseconds (a 2.5 ms frame, a 6.5 ms
/// codec delay cannot be placed), but each packet's length in samples is in its TOC byte, the pre-skip in the
/// OpusHead and the end discard in samples: laid end to end from the first block, every sample has its exact
/// time, and a cut can be exact. A block more than one tick from where the samples before it end starts anew
/// there (a real hole); within one it is the muxer's rounding (FFmpeg rounds 0.5 ms either way).
enum OpusTimeline {
    /// `codecDelay`: the track's CodecDelay in samples (0 without one); `preSkip`: the OpusHead's.
    static func exact(
        _ list: [SampleTiming], lengths: [(samples: Int64?, discard: Int64)], preSkip: Int64, codecDelay delay: Int64,
        _ tb: AVRational
    ) -> TrackTimeline? {
        guard list.count == lengths.count, !list.isEmpty, tb.num > 0, tb.den > 0 else { return nil }
        let toSamples = Rational(Int64(tb.num) * Opus.rate, Int64(tb.den))
        // FFmpeg's Matroska demuxer moves each block back by the CodecDelay, rounded to its clock: undo the
        // rounding, so a block's first sample sits at block time - CodecDelay exactly.
        let rounding = (Rational(delay) / toSamples).rounded * toSamples.numerator / toSamples.denominator - delay
        var out: [SampleTiming] = []
        var next: Int64?
        for (timing, length) in zip(list, lengths) {
            guard let n = length.samples else { return nil }
            let fromBlock = (Rational(timing.pts) * toSamples).rounded + rounding
            let start = next.map { abs($0 - fromBlock) <= toSamples.rounded ? $0 : fromBlock } ?? fromBlock
            out.append(
                SampleTiming(
                    dts: start, pts: start, duration: n, isSync: timing.isSync, isDiscarded: timing.isDiscarded))
            next = start + n
        }
        return TrackTimeline(
            timeBase: Rational(1, Opus.rate), samples: out, skipStart: preSkip, skipEnd: lengths.last?.discard ?? 0)
    }
}

/// Presentation times MPEG-PS leaves out (it writes a PTS only every few packets, often not on I and P frames).
enum MissingPresentation {
    /// Where every packet that has a PTS shows the same reorder delay (no B-frames, audio), the others are
    /// presented that long after their decode time too. Otherwise (B-frames), every frame has a place on the
    /// frame grid from the earliest known PTS; the known ones take theirs, and the others (I and P frames, which
    /// are shown in the order they are decoded) take the free places in decode order. nil when the packets do
    /// not fit one grid that way.
    static func fill(_ samples: [SampleTiming], missing: [Int]) -> [SampleTiming]? {
        let lacking = Set(missing)
        let known = samples.indices.filter { !lacking.contains($0) }
        var out = samples
        let delays = Set(known.map { samples[$0].pts - samples[$0].dts })
        if delays.count == 1, let delay = delays.first {
            for n in missing { out[n].pts = samples[n].dts + delay }
            return out
        }
        var steps: [Int64: Int] = [:]
        for (a, b) in zip(samples, samples.dropFirst()) where b.dts > a.dts { steps[b.dts - a.dts, default: 0] += 1 }
        guard let step = steps.max(by: { $0.value < $1.value })?.key, step > 0,
            let first = known.map({ samples[$0].pts }).min()
        else { return nil }
        var free = Set((0..<Int64(samples.count)).map { first + $0 * step })
        for n in known {
            guard free.remove(samples[n].pts) != nil else { return nil }
        }
        let places = free.sorted()
        guard places.count == missing.count else { return nil }
        for (n, pts) in zip(missing.sorted(), places) {
            guard pts >= samples[n].dts else { return nil }
            out[n].pts = pts
        }
        return out
    }
}

/// Vorbis in Ogg. The first audio packet decodes to nothing (it only starts the overlap), though FFmpeg's
/// demuxer gives it a length (a quarter block, 128 samples); the stream's last granule position counts the
/// samples from the first real one. So FFmpeg's clock runs that length ahead of the content, and its decoder,
/// trimming the end to the granule on that clock, drops as many real samples (libvorbis plays them).
enum VorbisInOgg {
    /// The timeline as libvorbis plays it: the first packet's length is not presented, the end comes that much
    /// later on FFmpeg's clock, and the first real sample is at 0.
    static func timeline(_ t: TrackTimeline) -> TrackTimeline {
        guard t.skipStart == 0, t.samples.count > 1, let phantom = t.samples.first?.duration, phantom > 0 else {
            return t
        }
        var out = t
        out.samples[out.samples.count - 1].duration += phantom
        out.skipStart = phantom
        return out.shifted(by: -phantom)
    }

    /// Whether FFmpeg's end trim must be taken off a stream's packets before decoding (the timeline says it).
    static func decodesPastTheEnd(_ input: InputFile, stream: Int) -> Bool {
        String(cString: input.context.pointee.iformat.pointee.name) == "ogg"
            && input.stream(stream).pointee.codecpar.pointee.codec_id == AV_CODEC_ID_VORBIS
    }
}
