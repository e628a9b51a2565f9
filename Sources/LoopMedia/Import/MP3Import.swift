import LoopAnalysis
import LoopIndex

/// A raw MP3 file: packet headers, and the LAME/Xing header's delay and padding read as the edit they are
/// (LAMEGapless), from the tag's own bytes (LAMETag; FFmpeg's skip samples where it cannot be read).
enum MP3Import: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer == "mp3" }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let scan = try PacketScan.read(source.input, streams: source.allStreams, basics: source.basics)
        var timelines = PacketScan.timelines(scan, basics: source.basics)
        // The file's first 64 KiB: an ID3v2 tag, then the first frame.
        let tag = Probe.head(source.input.path, count: 1 << 16).flatMap { LAMETag(fileStart: $0) }
        for (i, t) in timelines where source.basics[i].codec == "mp3" {
            let exact = tag.flatMap { tag in
                source.basics[i].sampleRate.flatMap {
                    LAMEGapless.timeline(t, delay: tag.delay, padding: tag.padding, rate: $0)
                }
            }
            timelines[i] = exact ?? LAMEGapless.timeline(t)
        }
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: true)
    }
}
