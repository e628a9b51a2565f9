import LoopAnalysis

/// Ogg: granule positions. The last one ends the stream: FFmpeg already shortened the last packet to it, and
/// the end discard it attaches as well would trim the same samples twice, so it is not counted. Vorbis is
/// read as libvorbis plays it (VorbisInOgg), its packets laid by their block sizes.
enum OggImport: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer == "ogg" }

    static func timelines(_ source: ImportSource) throws -> Imported {
        // A chained Ogg (issue 43, item 5): FFmpeg reads its links as one stream whose times start again at each.
        let links = Self.links(source.input.path)
        if links > 1 {
            throw MediaError(
                "read",
                reason: """
                    a chained Ogg: \(links) streams one after another in one file (each starts its clock again), \
                    which loopprep does not fix as one clip; split it into one file per link and fix each
                    """)
        }
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

    /// The links of a local Ogg file: groups of beginning-of-stream pages, each after pages of data (1 for a file
    /// that is not chained, or that cannot be walked page by page). Reads only the page headers.
    static func links(_ path: String) -> Int {
        guard !RemoteFile.isRemote(path), let file = try? LocalFile(path) else { return 1 }
        var offset: Int64 = 0
        var links = 0
        var previousStarted = false
        while offset + 27 <= file.size, let header = try? file.read(at: offset, count: 27 + 255), header.count >= 27,
            header[0..<4].elementsEqual("OggS".utf8)
        {
            let segments = Int(header[26])
            guard header.count >= 27 + segments else { break }
            let starts = header[5] & 0x02 != 0
            if starts && !previousStarted { links += 1 }
            previousStarted = starts
            offset += Int64(27 + segments + header[27..<(27 + segments)].reduce(0) { $0 + Int($1) })
        }
        return max(links, 1)
    }
}
