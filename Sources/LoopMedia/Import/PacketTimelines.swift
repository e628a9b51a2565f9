import CFFmpeg
import LoopAnalysis

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
