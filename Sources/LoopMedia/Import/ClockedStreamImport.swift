import LoopAnalysis

/// MPEG-TS, MPEG-PS, FLV and raw MPEG video: packet headers on a clock that starts anywhere (MPEG-PS with a
/// presentation time only every few packets, filled in on the frame grid); the earliest track's start is the
/// file's 0 (ClockOrigin).
enum ClockedStreamImport: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { ["mpegts", "mpeg", "flv", "mpegvideo"].contains(demuxer) }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let scan = try PacketScan.read(source.input, streams: source.allStreams, basics: source.basics)
        let (timelines, origin) = ClockOrigin.rebased(
            PacketScan.timelines(scan, basics: source.basics), tracks: source.mediaStreams)
        return Imported(timelines: timelines, clockOrigin: origin, readPackets: true)
    }
}
