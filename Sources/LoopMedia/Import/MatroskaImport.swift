import LoopAnalysis
import LoopIndex

/// Matroska and WebM: blocks on a millisecond clock with no decode times (made from the presentation order)
/// and no durations (the step to the next block). Opus is laid on its sample clock from each packet's TOC
/// byte, the OpusHead's pre-skip and the end discard, Vorbis on its own from FFmpeg's Vorbis parser, FLAC and PCM
/// by their frames' lengths, AAC, MP3 and AC-3 a frame apart (SampleClock.fixedFrames), so a cut can be exact to
/// the sample.
enum MatroskaImport: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer.hasPrefix("matroska") }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let input = source.input
        // Opus on a clock coarser than its samples (Matroska's milliseconds).
        let opus = source.allStreams.filter {
            source.basics[$0].codec == "opus" && input.timeBase($0) != Rational(1, OpusSampleClock.rate)
        }
        // Vorbis the same way, its packet lengths from FFmpeg's Vorbis parser (short and long blocks).
        let vorbis = source.allStreams.filter { source.basics[$0].codec == "vorbis" }
        // FLAC the same way, each packet's length from its frame header (mkvmerge's blocks drift from it).
        let flac = source.allStreams.filter { source.basics[$0].codec == "flac" }
        // PCM the same way, each packet's length from its size (a browser's recording stamps its 10 ms packets
        // by its capture clock).
        let pcm = source.allStreams.reduce(into: [Int: Int64]()) { out, i in
            if source.basics[i].kind == .audio, let bytes = input.pcmFrameBytes(i) { out[i] = bytes }
        }
        // Fixed-frame audio (AAC, MP3, AC-3) the same way, each packet a frame long.
        let fixed = source.allStreams.filter {
            source.basics[$0].kind == .audio && !AudioFrames.candidates(codec: source.basics[$0].codec).isEmpty
        }
        let scan = try scanned(source, lengths: .init(opus: opus, vorbis: vorbis, flac: flac, pcm: pcm, fixed: fixed))
        var timelines = PacketScan.timelines(scan, basics: source.basics)
        for (i, timeline) in timelines where source.basics[i].kind == .video {
            var plausible = timeline
            plausible.samples = ImplausibleDurations.fix(timeline.samples)
            timelines[i] = plausible
        }
        for (i, packets) in scan.opus {
            guard let scanned = scan.timelines[i], let head = input.extradata(i), let preSkip = Opus.preSkip(head),
                let exact = OpusSampleClock.timeline(
                    scanned.samples, packets: packets, preSkip: preSkip,
                    codecDelay: input.initialPadding(i), timeBase: input.timeBase(i))
            else { continue }
            timelines[i] = exact
        }
        laid(&timelines, scan, source)
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: true)
    }

    /// Vorbis, FLAC, PCM and fixed-frame audio laid on their sample clocks, each packet's length known.
    static func laid(_ timelines: inout [Int: TrackTimeline], _ scan: PacketScan.Result, _ source: ImportSource) {
        let input = source.input
        // Vorbis (its warm-up packet first) and FLAC, each packet's length known, laid on the sample clock.
        typealias Lay = ([SampleTiming], [Int64?], Int64, Rational, Int64) -> TrackTimeline?
        let lays: [([Int: [OpusSampleClock.Packet]], Lay)] = [
            (scan.vorbis, { VorbisInMatroska.timeline($0, lengths: $1, rate: $2, timeBase: $3, discardEnd: $4) }),
            (scan.flac, { SampleClock.timeline($0, lengths: $1, rate: $2, timeBase: $3, discardEnd: $4) }),
            (scan.pcm, { SampleClock.timeline($0, lengths: $1, rate: $2, timeBase: $3, discardEnd: $4) }),
        ]
        for (streams, lay) in lays {
            for (i, packets) in streams {
                guard let scanned = scan.timelines[i], let rate = source.basics[i].sampleRate,
                    let exact = lay(
                        scanned.samples, packets.map(\.samples), Int64(rate), input.timeBase(i),
                        packets.last?.discard ?? 0)
                else { continue }
                timelines[i] = exact
            }
        }
        // (FFmpeg parses MP3 and AC-3 in Matroska and hands a DiscardPadding on with the frame before the one that
        // carries it: what it drops is counted from the last two.)
        for (i, packets) in scan.fixed {
            guard let scanned = scan.timelines[i], let rate = source.basics[i].sampleRate,
                let exact = SampleClock.fixedFrames(
                    scanned.samples, codec: source.basics[i].codec, rate: Int64(rate), timeBase: input.timeBase(i),
                    discardEnd: packets.suffix(2).map(\.discard).reduce(0, +))
            else { continue }
            timelines[i] = exact
        }
    }

    /// Every packet's timing, with Opus's, Vorbis's and FLAC's lengths. Blocks before 0 (a cut's warm-up or
    /// pre-roll packets) come out of FFmpeg's demuxer moved after 0 unless it has read the streams' information
    /// first, as its own tools do (-41 and -18 ms read as 0 and 23, then 5): a file whose audio's times run backwards
    /// is named (StreamInfoFirst), and the probe reads it again that way, streams and packets, as every later
    /// reading of it does.
    static func scanned(_ source: ImportSource, lengths: PacketScan.Lengths) throws -> PacketScan.Result {
        let scan = try PacketScan.read(
            source.input, streams: source.allStreams, basics: source.basics, lengths: lengths)
        if !source.input.streamInfoRead,
            source.allStreams.contains(where: { i in
                source.basics[i].kind == .audio && (scan.timelines[i]?.samples.map(\.pts) ?? []).isDescending
            })
        {
            StreamInfoFirst.require(source.input.path)
        }
        return scan
    }
}

extension Sequence where Element == Int64 {
    /// Some element is smaller than the one before it.
    var isDescending: Bool {
        var previous: Int64?
        for value in self {
            if let previous, value < previous { return true }
            previous = value
        }
        return false
    }
}
