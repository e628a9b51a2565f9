import LoopAnalysis
import LoopIndex

/// MPEG-TS, MPEG-PS, FLV and raw MPEG video: packet headers on a clock that starts anywhere (MPEG-PS with a
/// presentation time only every few packets, filled in on the frame grid); the earliest track's start is the
/// file's 0 (ClockOrigin).
enum ClockedStreamImport: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { ["mpegts", "mpeg", "flv", "mpegvideo"].contains(demuxer) }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let scan = try PacketScan.read(source.input, streams: source.allStreams, basics: source.basics)
        var (timelines, origin) = ClockOrigin.rebased(
            PacketScan.timelines(scan, basics: source.basics), tracks: source.mediaStreams)
        // Fixed-frame audio on FLV's milliseconds: on its sample clock, a frame apart, as the decoder plays it
        // (and as a converted MP4 lays it), so a cut and a hidden priming are whole samples.
        for (i, t) in timelines {
            let b = source.basics[i]
            guard b.kind == .audio, let rate = b.sampleRate,
                let frame = AudioFrames.samplesPerFrame(codec: b.codec, sampleRate: rate),
                let exact = AudioFrames.onSampleClock(t, rate: rate, frame: frame)
            else { continue }
            timelines[i] = exact
        }
        return Imported(timelines: timelines, clockOrigin: origin, readPackets: true)
    }
}
