import Foundation
import LoopAnalysis
import LoopIndex

/// One track as the MP4 writer lays it out: which of the source's samples are copied (byte ranges), with the
/// output's decode durations and composition offsets, and the one edit that presents the cut.
struct TrackLayout {
    struct Entry: Equatable {
        var location: SampleLocation
        /// Decode duration in the track's ticks (the step to the next sample's decode time).
        var duration: Int64
        /// Composition offset (pts - dts), ticks; may be negative.
        var compositionOffset: Int64
        var isSync: Bool
        /// The sample's number in the source's index (for per-sample tables copied across: sdtp, sbgp).
        var sourceIndex: Int
        /// Bytes written instead of the source's (a timecode sample advanced to the new start).
        var replacement: [UInt8]? = nil
    }

    var trackID: Int
    var entries: [Entry]
    /// The edit: the first presented media time (ticks of the track) and the presented duration (movie ticks).
    var mediaTime: Int64
    var editDuration: Int64
    /// Uncompressed audio whose entries group frames (a frame per tick): written back a frame per sample.
    /// Write the sample description as hvc1 (from hev1; its parameter sets complete in the hvcC).
    var hvc1 = false
    var pcm: (frameBytes: Int64, sampleSizeField: UInt32)?

    var mediaDuration: Int64 { entries.reduce(0) { $0 + $1.duration } }
}

/// Writes an MP4/MOV from a plan, in one pass: a moov built from the kept samples' tables (the source's sample
/// descriptions, handler, language, matrix and user data copied as they are) with exact edit lists, written
/// first, then the media copied from the source as byte ranges (copy_file_range). What is planned is what is
/// written: no muxer shifts decode times, rewrites composition offsets or refuses a sample entry. The way
/// MP4Box and L-SMASH write, not FFmpeg's mov muxer.
enum MP4Writer {
    /// A chunk: consecutive entries of one track stored together.
    /// Compact (32 bytes): an hour of finely interleaved samples is 200,000 chunks.
    struct Chunk {
        private var trackIndex: Int32, first: Int32, end: Int32
        /// Decode time of its first sample, in its track's ticks (for interleaving).
        var startTicks: Int64
        var bytes: Int64

        init(track: Int, entries: Range<Int>, startTicks: Int64, bytes: Int64) {
            trackIndex = Int32(track)
            first = Int32(entries.lowerBound)
            end = Int32(entries.upperBound)
            self.startTicks = startTicks
            self.bytes = bytes
        }
        var track: Int { Int(trackIndex) }
        var entries: Range<Int> {
            get { Int(first)..<Int(end) }
            set {
                first = Int32(newValue.lowerBound)
                end = Int32(newValue.upperBound)
            }
        }
    }

    /// Brands that promise fragments or segments, which the written file no longer has.
    static let fragmentBrands: Set<FourCC> = [
        "iso5", "iso6", "iso7", "iso8", "iso9", "dash", "cmfc", "cmf2", "cmfs", "msdh", "msix", "dsms", "frag",
    ]

    /// The output's layout (MediaCopy writes it). `gapless`: the iTunSMPB figures of the output, written over the
    /// source's when it has them (a stale one would tell iTunes-family players to skip the wrong number of samples).
    /// `range`: where the output starts in the source and how long it is (seconds), to move Nero chapters.
    /// `alignFrom`: media of at least this many bytes is placed at the source's offset modulo 4096 (a free box
    /// pads the moov, at most 4103 bytes), so that on a filesystem that shares blocks between files (XFS, btrfs)
    /// copy_file_range shares them instead of copying; elsewhere it costs nothing.
    static func layout(
        iso: ISOFile, tracks: [TrackLayout], movieTimescale: Int64, gapless: ITunesGapless?,
        range: (start: Rational, length: Rational), alignFrom: Int64 = 4 << 20
    ) throws -> Layout {
        let byID = Dictionary(uniqueKeysWithValues: tracks.map { ($0.trackID, $0) })
        let timescales = tracks.map { iso.tracks[$0.trackID]?.timescale ?? 1 }
        let chunks = sourceOrder(tracks, timescales: timescales) ?? interleave(tracks, timescales: timescales)
        let payload = chunks.reduce(Int64(0)) { $0 + $1.bytes }
        let ftyp = fileType(iso)
        var moov = try movieBox(iso, tracks: byID, movieTimescale: movieTimescale)
        moov.edit(["udta"]) { udta in
            guard var p = udta.payload else { return }
            if let gapless { ITunesGapless.rewrite(&p, to: gapless) }
            udta.payload = NeroChapters.cut(p, start: range.start, length: range.length)
        }

        // Chunk offsets are fixed-width, so the moov's size does not depend on their values: the tables are built
        // once with 32-bit offsets (co64 if the file outgrows them) and the offsets filled in after.
        var tabled = try tableBoxes(moov, tracks: tracks, chunks: chunks, wide: false)
        let mdatHeader = payload + 8 > Int64(UInt32.max) ? 16 : 8
        let extras = iso.otherBoxes.reduce(Int64(0)) { $0 + Int64($1.bytes.count) }
        let wide = Int64(ftyp.count) + Int64(tabled.size) + extras + Int64(mdatHeader) + payload > Int64(UInt32.max)
        if wide { tabled = try tableBoxes(moov, tracks: tracks, chunks: chunks, wide: true) }
        let moovSize = Int64(tabled.size) + extras
        // The first copied byte's place in the source, and the padding that puts it at the same block offset.
        let firstSource = chunks.lazy.flatMap { tracks[$0.track].entries[$0.entries] }.first?.location.offset
        var padding: Int64 = 0
        if payload >= alignFrom, let firstSource {
            padding = ((firstSource - (Int64(ftyp.count) + moovSize + Int64(mdatHeader))) % 4096 + 4096) % 4096
            if padding > 0 && padding < 8 { padding += 4096 }
        }
        var offsets: [Int64] = []
        var at = Int64(ftyp.count) + moovSize + padding + Int64(mdatHeader)
        for chunk in chunks {
            offsets.append(at)
            at += chunk.bytes
        }
        moov = try chunkOffsets(tabled, tracks: tracks, chunks: chunks, offsets: offsets, wide: wide)

        var head = ftyp
        moov.serialize(into: &head)
        // Top-level boxes besides the structure (XMP's uuid, a camera maker's) follow the movie box as they were.
        for box in iso.otherBoxes { head += box.bytes }
        if padding > 0 {
            head += be32(UInt32(padding)) + Array("free".utf8) + [UInt8](repeating: 0, count: Int(padding) - 8)
        }
        let mdatSize = payload + Int64(mdatHeader)
        head +=
            mdatHeader == 16
            ? be32(1) + Array("mdat".utf8) + be64(UInt64(mdatSize)) : be32(UInt32(mdatSize)) + Array("mdat".utf8)

        // Byte ranges in output order, merged where the source has them back to back.
        var pieces: [Layout.Piece] = []
        at = Int64(head.count)
        for chunk in chunks {
            for entry in tracks[chunk.track].entries[chunk.entries] {
                let size = bytes(entry, tracks[chunk.track])
                if let replacement = entry.replacement {
                    pieces.append(Layout.Piece(at: at, source: 0, size: size, replacement: replacement))
                } else if let last = pieces.last, last.replacement == nil,
                    last.source + last.size == entry.location.offset
                {
                    pieces[pieces.count - 1].size += size
                } else {
                    pieces.append(Layout.Piece(at: at, source: entry.location.offset, size: size))
                }
                at += size
            }
        }
        let tail = tailStart(tracks, timescales: timescales, chunks: chunks, offsets: offsets) ?? at
        return Layout(head: head, pieces: pieces, size: at, tailStart: tail)
    }

    /// Where the output's end is read from: the first chunk that ends after a second before the earliest of the
    /// tracks' last sync samples (a video's last keyframe; an audio track's every sample is one).
    static func tailStart(_ tracks: [TrackLayout], timescales: [Int64], chunks: [Chunk], offsets: [Int64]) -> Int64? {
        var from: Rational?
        for (t, track) in tracks.enumerated() {
            guard let last = track.entries.lastIndex(where: \.isSync) else { continue }
            let time = Rational(track.entries[..<last].reduce(Int64(0)) { $0 + $1.duration }, timescales[t])
            from = from.map { Rational.min($0, time) } ?? time
        }
        guard let from else { return nil }
        let start = from - Rational(1)
        return zip(chunks, offsets).lazy.filter { chunk, _ in
            let duration = tracks[chunk.track].entries[chunk.entries].reduce(Int64(0)) { $0 + $1.duration }
            return Rational(chunk.startTicks + duration, timescales[chunk.track]) > start
        }.map(\.1).min()
    }

    /// Bytes an entry takes: its stored size, or for cut PCM the frames it keeps.
    static func bytes(_ entry: TrackLayout.Entry, _ track: TrackLayout) -> Int64 {
        if let replacement = entry.replacement { return Int64(replacement.count) }
        guard let pcm = track.pcm else { return entry.location.size }
        return min(entry.location.size, entry.duration * pcm.frameBytes)
    }

    /// The source's own layout, when it interleaves well: samples in file order, a chunk per run of one track.
    /// The media then copies in a few long ranges (an hour of FFmpeg's finely interleaved output was 217,000
    /// copies when re-chunked). nil when, in that order, some track would run more than a second ahead of
    /// another (a source with each track in one block, fragments per track, or a cut that moved one track).
    static func sourceOrder(_ tracks: [TrackLayout], timescales: [Int64]) -> [Chunk]? {
        // Compact, for an hour of samples: decode times in each track's ticks, and (track, entry, offset).
        struct Item {
            var track: Int32
            var entry: Int32
            var offset: Int64
        }
        var dts: [[Int64]] = []
        var items: [Item] = []
        items.reserveCapacity(tracks.reduce(0) { $0 + $1.entries.count })
        for (t, track) in tracks.enumerated() {
            var at: Int64 = 0
            dts.append(
                track.entries.map { entry in
                    defer { at += entry.duration }
                    return at
                })
            for (i, entry) in track.entries.enumerated() {
                items.append(Item(track: Int32(t), entry: Int32(i), offset: entry.location.offset))
            }
        }
        items.sort { $0.offset != $1.offset ? $0.offset < $1.offset : $0.track < $1.track }
        // a / sa > b / sb + 1 second, exactly.
        func leads(_ a: Int64, _ sa: Int64, _ b: Int64, _ sb: Int64) -> Bool {
            a.multipliedFullWidth(by: sb) > (b &+ sb).multipliedFullWidth(by: sa)
        }
        // Each track's samples must stay in decode order, and no track may lead another by over a second.
        var next = [Int](repeating: 0, count: tracks.count)
        var chunks: [Chunk] = []
        for item in items {
            let t = Int(item.track)
            let i = Int(item.entry)
            guard i == next[t] else { return nil }
            next[t] += 1
            for u in tracks.indices
            where u != t && next[u] < dts[u].count && leads(dts[t][i], timescales[t], dts[u][next[u]], timescales[u]) {
                return nil
            }
            let bytes = Self.bytes(tracks[t].entries[i], tracks[t])
            if let last = chunks.last, last.track == t, last.entries.upperBound == i {
                chunks[chunks.count - 1].entries = last.entries.lowerBound..<i + 1
                chunks[chunks.count - 1].bytes += bytes
            } else {
                chunks.append(Chunk(track: t, entries: i..<i + 1, startTicks: dts[t][i], bytes: bytes))
            }
        }
        return chunks
    }

    /// Chunks of about half a second (or 1 MB) per track, ordered by decode time across tracks, so a player
    /// reading front to back has every track's samples at hand.
    static func interleave(_ tracks: [TrackLayout], timescales: [Int64]) -> [Chunk] {
        var chunks: [Chunk] = []
        for (t, track) in tracks.enumerated() {
            let timescale = timescales[t]
            var dts: Int64 = 0
            var start = 0
            var startDts: Int64 = 0
            var bytes: Int64 = 0
            for (i, entry) in track.entries.enumerated() {
                if i > start, (dts - startDts) * 2 >= timescale || bytes >= 1 << 20 {
                    chunks.append(Chunk(track: t, entries: start..<i, startTicks: startDts, bytes: bytes))
                    start = i
                    startDts = dts
                    bytes = 0
                }
                bytes += Self.bytes(entry, track)
                dts += entry.duration
            }
            if start < track.entries.count {
                chunks.append(Chunk(track: t, entries: start..<track.entries.count, startTicks: startDts, bytes: bytes))
            }
        }
        func start(_ c: Chunk) -> Rational { Rational(c.startTicks, timescales[c.track]) }
        return chunks.enumerated().sorted { a, b in
            start(a.element) != start(b.element) ? start(a.element) < start(b.element) : a.offset < b.offset
        }.map(\.element)
    }

    /// The source's file type box; a fragmented source's loses the brands that promise fragments.
    static func fileType(_ iso: ISOFile) -> [UInt8] {
        guard let ftyp = iso.ftyp, ftyp.count >= 16 else {
            return Box("ftyp", Array("isom".utf8) + be32(0x200) + Array("isomiso2mp41".utf8)).bytes
        }
        guard iso.fragmented else { return ftyp }
        var brands: [FourCC] = []
        for at in stride(from: 16, to: ftyp.count - 3, by: 4) {
            let brand = FourCC(bytes: ftyp[at..<at + 4])
            if !fragmentBrands.contains(brand) && !brands.contains(brand) { brands.append(brand) }
        }
        for brand: FourCC in ["isom", "iso2"] where !brands.contains(brand) { brands.append(brand) }
        let major = FourCC(bytes: ftyp[8..<12])
        return Box(
            "ftyp", (fragmentBrands.contains(major) ? "isom" : major).bytes + be32(0x200) + brands.flatMap(\.bytes)
        )
        .bytes
    }

    /// The source's moov with only the kept tracks, each with its new edit and durations; sample tables are
    /// filled in by `tableBoxes`. Fragment declarations (mvex) go: the output is one plain movie.
    static func movieBox(_ iso: ISOFile, tracks: [Int: TrackLayout], movieTimescale: Int64) throws -> Box {
        guard var moov = try Box.parse(iso.moov, from: 0, to: iso.moov.count).first, moov.type == "moov" else {
            throw MediaError("write output", reason: "cannot parse the source's movie box")
        }
        moov.children.removeAll {
            $0.type == "mvex" || ($0.type == "trak" && ISOEditor.trackID($0).map { tracks[$0] == nil } ?? true)
        }
        var longest: Int64 = 0
        for i in moov.children.indices where moov.children[i].type == "trak" {
            guard let id = ISOEditor.trackID(moov.children[i]), let track = tracks[id] else { continue }
            var trak = moov.children[i]
            try ISOEditor.setDuration(&trak, box: "tkhd", track.editDuration, timescale: nil)
            try ISOEditor.setEdit(&trak, ISOEditor.TrackEdit(mediaTime: track.mediaTime, duration: track.editDuration))
            try trak.edit(["mdia", "mdhd"]) { try setMediaDuration(&$0, track.mediaDuration) }
            keepReferences(&trak, to: Set(tracks.keys))
            moov.children[i] = trak
            longest = max(longest, track.editDuration)
        }
        try moov.edit(["mvhd"]) { try ISOEditor.setHeader(&$0, duration: longest, timescale: movieTimescale) }
        return moov
    }

    /// Track references (chapters, timecode) to a track that is not written are dropped.
    static func keepReferences(_ trak: inout Box, to kept: Set<Int>) {
        trak.edit(["tref"]) { tref in
            tref.children.removeAll { reference in
                var r = ByteReader(reference.payload ?? [], from: 0, to: reference.payload?.count ?? 0)
                return (0..<r.remaining / 4).contains { _ in !kept.contains(Int(r.u32())) }
            }
        }
        trak.children.removeAll { $0.type == "tref" && $0.children.isEmpty }
    }

    /// mdhd's duration (media ticks; HeaderBox: version 1 where it needs 64 bits).
    static func setMediaDuration(_ mdhd: inout Box, _ duration: Int64) throws {
        try HeaderBox.rewrite(&mdhd, duration: duration)
    }

    /// The chunk offsets (one per chunk, in `chunks` order) written into tables `tableBoxes` built without them.
    static func chunkOffsets(_ moov: Box, tracks: [TrackLayout], chunks: [Chunk], offsets: [Int64], wide: Bool) throws
        -> Box
    {
        var moov = moov
        var perTrack = [[Int64]](repeating: [], count: tracks.count)
        for (chunk, offset) in zip(chunks, offsets) { perTrack[chunk.track].append(offset) }
        for i in moov.children.indices where moov.children[i].type == "trak" {
            guard let id = ISOEditor.trackID(moov.children[i]), let t = tracks.firstIndex(where: { $0.trackID == id })
            else { continue }
            try moov.children[i].edit(["mdia", "minf", "stbl", wide ? "co64" : "stco"]) { box in
                let filled = SampleTables.offsetTable(perTrack[t], wide: wide)
                guard filled.size == box.size else {
                    throw MediaError("write output", reason: "the chunk offset table changed size")
                }
                box = filled
            }
        }
        return moov
    }

    /// Every kept track's sample table rebuilt from its entries, its chunk offsets 0 (see `chunkOffsets`).
    static func tableBoxes(_ moov: Box, tracks: [TrackLayout], chunks: [Chunk], wide: Bool) throws -> Box {
        var moov = moov
        // Per track: each chunk's sample count (frames for PCM); small, for an hour of chunks.
        var perTrack = [[Int64]](repeating: [], count: tracks.count)
        for chunk in chunks {
            let track = tracks[chunk.track]
            let samples =
                track.pcm == nil
                ? Int64(chunk.entries.count) : track.entries[chunk.entries].reduce(Int64(0)) { $0 + $1.duration }
            perTrack[chunk.track].append(samples)
        }
        for i in moov.children.indices where moov.children[i].type == "trak" {
            guard let id = ISOEditor.trackID(moov.children[i]), let t = tracks.firstIndex(where: { $0.trackID == id })
            else { continue }
            moov.children[i].edit(["mdia", "minf", "stbl"]) { stbl in
                stbl = SampleTables(track: tracks[t], source: stbl, chunkSamples: perTrack[t], wide: wide).box
            }
        }
        return moov
    }
}
