import LoopAnalysis

/// A raw MP3 file: packet headers, and the LAME/Xing header's delay and padding (which FFmpeg's mp3 demuxer
/// turns into skip samples) read as the edit it is (LAMEGapless).
enum MP3Import: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer == "mp3" }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let scan = try PacketScan.read(source.input, streams: source.allStreams, basics: source.basics)
        var timelines = PacketScan.timelines(scan, basics: source.basics)
        for (i, t) in timelines where source.basics[i].codec == "mp3" { timelines[i] = LAMEGapless.timeline(t) }
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: true)
    }
}
