import LoopAnalysis
import LoopIndex

/// Timelines from packet headers, for containers without an index loopprep reads itself: one pass over the
/// file for all the streams asked, packet payloads not looked at (but Opus's TOC bytes where asked).
enum PacketScan {
    struct Result {
        var timelines: [Int: ScannedTimeline] = [:]
        /// Per stream asked for in `opus` (or `vorbis`): each packet's length in samples and end discard.
        var opus: [Int: [OpusSampleClock.Packet]] = [:]
        var vorbis: [Int: [OpusSampleClock.Packet]] = [:]
        /// Per stream asked for in `flac`: each packet's samples, from its frame header, and end discard.
        var flac: [Int: [OpusSampleClock.Packet]] = [:]
    }

    static func read(
        _ input: InputFile, streams: Set<Int>, basics: [TrackBasics], opus: Set<Int> = [], vorbis: Set<Int> = [],
        flac: Set<Int> = []
    ) throws -> Result {
        var out = Result()
        let packet = try Packet()
        var parsers: [Int: VorbisParser] = [:]
        for i in vorbis { parsers[i] = input.extradata(i).flatMap { VorbisParser(extradata: $0) } }
        while try input.read(into: packet) {
            let i = packet.streamIndex
            guard streams.contains(i), let t = packet.pts ?? packet.dts else { continue }
            let timeBase = input.timeBase(i)
            var scanned = out.timelines[i] ?? ScannedTimeline(timeBase: timeBase, samples: [])
            if opus.contains(i) {
                out.opus[i, default: []].append(
                    OpusSampleClock.Packet(
                        samples: packet.withBytes(Opus.samples), discard: packet.skipSamples?.end ?? 0))
            }
            if flac.contains(i) {
                out.flac[i, default: []].append(
                    OpusSampleClock.Packet(
                        samples: packet.withBytes(FLACFrame.samples), discard: packet.skipSamples?.end ?? 0))
            }
            if let parser = parsers[i] {
                out.vorbis[i, default: []].append(
                    OpusSampleClock.Packet(samples: parser.samples(packet), discard: packet.skipSamples?.end ?? 0))
            }
            if let skip = packet.skipSamples, let rate = basics[i].sampleRate, rate > 0 {
                let ticks = { (n: Int64) in (Rational(n, Int64(rate)) / timeBase).rounded }
                // The first presented packet's skip is the priming; the last packet's end skip the padding.
                if scanned.samples.allSatisfy(\.isDiscarded) && !packet.isDiscarded {
                    scanned.skipStart = ticks(skip.start)
                }
                scanned.skipEnd = ticks(skip.end)
            } else {
                scanned.skipEnd = 0
            }
            if packet.pts == nil { scanned.missingPresentation.append(scanned.samples.count) }
            if packet.dts == nil, packet.pts != nil { scanned.missingDecode = true }
            // FFmpeg's Ogg demuxer times the last packet up to the last granule position with 32-bit arithmetic:
            // a granule before the packet's own start (a stream-copied cut) comes as a duration near 2^32. The
            // stream ends there; the packet's length is left to be filled in.
            var duration = max(packet.duration, 0)
            if duration > Int64(Int32.max), Int32(truncatingIfNeeded: duration) < 0 {
                scanned.endsAt = t + Int64(Int32(truncatingIfNeeded: duration))
                duration = 0
            }
            scanned.samples.append(
                SampleTiming(
                    dts: packet.dts ?? t, pts: t, duration: duration, isSync: packet.isKeyframe,
                    isDiscarded: packet.isDiscarded))
            out.timelines[i] = scanned
        }
        return out
    }

    /// The timelines every container starts from (ScannedTimeline.timeline): Opus's pre-skip from its codec
    /// delay where no skip samples said it.
    static func timelines(_ result: Result, basics: [TrackBasics]) -> [Int: TrackTimeline] {
        result.timelines.reduce(into: [:]) { out, entry in
            let b = basics[entry.key]
            out[entry.key] = entry.value.timeline(
                codecDelay: b.codec == "opus" ? b.codecDelay : nil, sampleRate: b.sampleRate)
        }
    }
}
