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
        /// Per stream asked for in `pcm` (its bytes per sample frame): each packet's samples, from its size.
        var pcm: [Int: [OpusSampleClock.Packet]] = [:]
        /// Per stream asked for in `fixed` (fixed-frame audio: AAC, MP3, AC-3): each packet's end discard, its
        /// length left to the codec's frame.
        var fixed: [Int: [OpusSampleClock.Packet]] = [:]

        /// A packet's length in samples, where its stream was asked for: Opus's from its TOC byte, FLAC's from
        /// its frame header, Vorbis's from FFmpeg's parser, PCM's from its size.
        mutating func appendLengths(_ packet: Packet, stream i: Int, asked: Lengths, vorbis: VorbisParser?) {
            let discard = packet.skipSamples?.end ?? 0
            if asked.opus.contains(i) {
                self.opus[i, default: []].append(.init(samples: packet.withBytes(Opus.samples), discard: discard))
            }
            if asked.flac.contains(i) {
                self.flac[i, default: []].append(.init(samples: packet.withBytes(FLACFrame.samples), discard: discard))
            }
            if let vorbis {
                self.vorbis[i, default: []].append(.init(samples: vorbis.samples(packet), discard: discard))
            }
            if asked.fixed.contains(i) { self.fixed[i, default: []].append(.init(samples: nil, discard: discard)) }
            if let frameBytes = asked.pcm[i] {
                let whole = Int64(packet.size) % frameBytes == 0
                self.pcm[i, default: []].append(
                    .init(samples: whole ? Int64(packet.size) / frameBytes : nil, discard: discard))
            }
        }
    }

    /// The streams whose packets' lengths are read, by how: Opus's TOC bytes, Vorbis's parser, FLAC's frame
    /// headers, PCM's sizes (the bytes of one sample frame), fixed-frame audio's end discards.
    struct Lengths {
        var opus: Set<Int> = []
        var vorbis: Set<Int> = []
        var flac: Set<Int> = []
        var pcm: [Int: Int64] = [:]
        var fixed: Set<Int> = []
    }

    static func read(_ input: InputFile, streams: Set<Int>, basics: [TrackBasics], lengths: Lengths = .init()) throws
        -> Result
    {
        var out = Result()
        let packet = try Packet()
        var parsers: [Int: VorbisParser] = [:]
        for i in lengths.vorbis { parsers[i] = input.extradata(i).flatMap { VorbisParser(extradata: $0) } }
        while try input.read(into: packet) {
            let i = packet.streamIndex
            guard streams.contains(i), let t = packet.pts ?? packet.dts else { continue }
            let timeBase = input.timeBase(i)
            var scanned = out.timelines[i] ?? ScannedTimeline(timeBase: timeBase, samples: [])
            out.appendLengths(packet, stream: i, asked: lengths, vorbis: parsers[i])
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
