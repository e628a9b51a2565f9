import LoopAnalysis
import LoopIndex

/// Ogg: granule positions. The last one ends the stream: FFmpeg already shortened the last packet to it, and
/// the end discard it attaches as well would trim the same samples twice, so it is not counted. Vorbis is
/// read as libvorbis plays it (VorbisInOgg), its packets laid by their block sizes.
enum OggImport: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer == "ogg" }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let pages = Self.beginnings(source.input.path)
        try refuseUnread(pages)
        // Vorbis packet lengths from FFmpeg's Vorbis parser (short and long blocks).
        let asked = PacketScan.Lengths(vorbis: source.allStreams.filter { source.basics[$0].codec == "vorbis" })
        let scan: PacketScan.Result
        do {
            scan = try PacketScan.read(source.input, streams: source.allStreams, basics: source.basics, lengths: asked)
        } catch let error as MediaError where pages.ogm > 0 {
            // VLC's OGM: a codec header written as a data packet, an empty packet on the last page; FFmpeg's OGM
            // reader gives up there.
            throw MediaError(
                "read",
                reason: """
                    an OGM file (a codec Ogg does not define, in OGM's old headers) that FFmpeg cannot read to its \
                    end (FFmpeg: \(error.reason)); remux it into Matroska from its source and \
                    fix that
                    """)
        }
        var timelines = PacketScan.timelines(scan, basics: source.basics)
        // FLAC in Ogg cut by stream copy (`ffmpeg -ss ... -c copy cut.ogg`): the first page holds a whole FLAC
        // frame that starts before the cut, and its granule says so (it counts fewer samples than its packets
        // hold). FFmpeg's Ogg demuxer times that page from 0 all the same and plays the samples before the cut,
        // so the next page overlaps it; players that follow the granules skip them. No output can be both.
        for b in source.basics where b.codec == "flac" {
            guard let samples = timelines[b.index]?.samples.sorted(by: { $0.dts < $1.dts }) else { continue }
            for (a, next) in zip(samples, samples.dropFirst()).prefix(64) where a.pts + a.duration > next.pts {
                let early = a.pts + a.duration - next.pts
                let rate = Int64(max(b.sampleRate ?? 1, 1))
                throw MediaError(
                    "read",
                    reason: """
                        an Ogg FLAC stream that starts \(early) samples (\(early * 1000 / rate) ms) before 0, as a \
                        stream-copied cut leaves it: FFmpeg plays those samples and players that follow the Ogg \
                        granules skip them, so no output plays alike everywhere; cut it again by re-encoding the \
                        audio (or cut the FLAC file, not its Ogg copy)
                        """)
            }
        }
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

    /// The files no reading of which is the clip: chained, damaged, or with a stream that names no codec.
    static func refuseUnread(_ pages: (links: Int, unnamed: Int, ogm: Int, damaged: Int)) throws {
        // A chained Ogg: FFmpeg reads its links as one stream whose times start again at each.
        if pages.links > 1 {
            throw MediaError(
                "read",
                reason: """
                    a chained Ogg: \(pages.links) streams one after another in one file (each starts its clock again), \
                    which loopprep does not fix as one clip; split it into one file per link and fix each
                    """)
        }
        // Pages whose checksum fails: bytes changed after the file was written (a bad copy, a tool that broke its
        // framing). FFmpeg and every player skip such a page and what it holds: the clip has lost that much.
        if pages.damaged > 0 { throw MediaError("read", reason: Self.damaged(pages.damaged)) }
        // A stream whose first packet says no codec (VLC's Dirac: an empty header packet) is one FFmpeg reads as
        // data and every other reader skips: fixing the rest would drop it without a word.
        if pages.unnamed > 0 {
            throw MediaError(
                "read",
                reason: """
                    \(pages.unnamed == 1 ? "one of its streams starts" : "\(pages.unnamed) of its streams start") \
                    with a header packet that names no codec (the muxer wrote it empty), so neither FFmpeg nor a \
                    player can read it; mux the clip again from its source (VLC writes Dirac in Ogg so)
                    """)
        }
    }

    /// The first packets' openings of the codecs Ogg carries that FFmpeg reads (Skeleton's index among them).
    static let headers: [[UInt8]] = [
        "fishead\0", "\u{1}vorbis", "OpusHead", "\u{80}theora", "BBCD\0", "KW-DIRAC", "Speex   ", "\u{7F}FLAC", "fLaC",
        "PCM     ", "CELT    ", "\u{1}video", "\u{1}audio", "\u{1}text", "\u{80}kate", "OVP80", "CMML\0",
    ].map { $0.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } }

    /// OGM's stream headers: a codec Ogg itself does not define (MPEG-4, H.264, MP3, text).
    static let ogmHeaders = headers.filter { $0.first == 1 && $0 != Array("\u{1}vorbis".utf8) }

    /// The links of a local Ogg file (groups of beginning-of-stream pages, each after pages of data: 1 for a file
    /// that is not chained, or that cannot be walked page by page) and the streams whose first packet opens with
    /// no codec's header, and those with OGM's, and the whole pages whose checksum fails. Reads every page.
    static func beginnings(_ path: String) -> (links: Int, unnamed: Int, ogm: Int, damaged: Int) {
        guard !RemoteFile.isRemote(path), let file = try? LocalFile(path) else { return (1, 0, 0, 0) }
        var offset: Int64 = 0
        var links = 0
        var unnamed = 0
        var ogm = 0
        var damaged = 0
        var previousStarted = false
        while offset + 27 <= file.size, let header = try? file.read(at: offset, count: 27 + 255 + 8),
            header.count >= 27
        {
            // Bytes that are no page (a tag or a torn page between two files joined by cat): a reader finds the
            // next page by its capture pattern, as the Ogg specification (RFC 3533) has it, and so does this walk.
            guard header[0..<4].elementsEqual("OggS".utf8) else {
                guard let next = Self.nextPage(file, after: offset) else { break }
                offset = next
                continue
            }
            let segments = Int(header[26])
            guard header.count >= 27 + segments else { break }
            let end = offset + Int64(27 + segments + header[27..<(27 + segments)].reduce(0) { $0 + Int($1) })
            // A page is whole where its checksum holds (whatever follows it: the next page, a tag, the file's end).
            // One that fails it (torn between two files joined by cat, or bytes changed since) is passed over, as
            // readers do: damage, where it is no chain's seam; a page the file's end cuts off is not read.
            guard end <= file.size else { break }
            guard let page = try? file.read(at: offset, count: Int(end - offset)), OggChecksum.holds(page: page) else {
                damaged += 1
                guard let next = Self.nextPage(file, after: offset) else { break }
                offset = next
                continue
            }
            let starts = header[5] & 0x02 != 0
            if starts && !previousStarted { links += 1 }
            previousStarted = starts
            if starts {
                let opening = Array(header.dropFirst(27 + segments).prefix(8))
                if segments == 0 || header[27] == 0 || !headers.contains(where: { opening.starts(with: $0) }) {
                    unnamed += 1
                }
                if ogmHeaders.contains(where: { opening.starts(with: $0) }) { ogm += 1 }
            }
            offset = end
        }
        return (max(links, 1), unnamed, ogm, damaged)
    }

    /// Pages of a local file that begins as an Ogg whose checksum fails (0 for any other file).
    static func damagedPages(_ path: String) -> Int {
        guard !RemoteFile.isRemote(path), let file = try? LocalFile(path),
            (try? file.read(at: 0, count: 4))?.elementsEqual("OggS".utf8) == true
        else { return 0 }
        return beginnings(path).damaged
    }

    /// Damaged pages, in words.
    static func damaged(_ count: Int) -> String {
        let (fail, hold) = count == 1 ? ("fails its", "it holds") : ("fail their", "they hold")
        return """
            damaged: \(count) of its Ogg pages \(fail) checksum (bytes changed after it was written), so FFmpeg \
            and every player skip what \(hold); export or download it again
            """
    }

    /// Where the next "OggS" starts after `offset`, nil where none follows.
    static func nextPage(_ file: LocalFile, after offset: Int64) -> Int64? {
        let pattern = Array("OggS".utf8)
        var at = offset + 1
        while at + 4 <= file.size, let chunk = try? file.read(at: at, count: 1 << 16), chunk.count >= 4 {
            if let i = (0...(chunk.count - 4)).first(where: { chunk[$0..<$0 + 4].elementsEqual(pattern) }) {
                return at + Int64(i)
            }
            at += Int64(chunk.count - 3)
        }
        return nil
    }
}
