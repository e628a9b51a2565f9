import LoopAnalysis

/// Ogg: granule positions. The last one ends the stream: FFmpeg already shortened the last packet to it, and
/// the end discard it attaches as well would trim the same samples twice, so it is not counted. Vorbis is
/// read as libvorbis plays it (VorbisInOgg), its packets laid by their block sizes.
enum OggImport: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer == "ogg" }

    static func timelines(_ source: ImportSource) throws -> Imported {
        // Vorbis packet lengths from FFmpeg's Vorbis parser (short and long blocks).
        let vorbis = source.allStreams.filter { source.basics[$0].codec == "vorbis" }
        let scan = try PacketScan.read(source.input, streams: source.allStreams, basics: source.basics, vorbis: vorbis)
        var timelines = PacketScan.timelines(scan, basics: source.basics)
        for (i, timeline) in timelines {
            var t = timeline
            // (A stream that ends before its last packets, endsAt, keeps the trim of the packet holding its end.)
            let ends = scan.timelines[i]?.endsAt == nil
            if ends { t.skipEnd = 0 }
            if source.basics[i].codec == "vorbis" {
                let lengths = scan.vorbis[i]?.map(\.samples)
                t = VorbisInOgg.timeline(ends ? lengths.flatMap { VorbisInOgg.laid(t, lengths: $0) } ?? t : t)
            }
            timelines[i] = t
        }
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: true)
    }
}
