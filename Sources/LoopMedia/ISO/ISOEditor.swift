import CFFmpeg
import Foundation
import LoopAnalysis
import LoopIndex

/// Writes the final MP4/MOV: the muxer's output with exact edit lists and durations, moov before mdat.
enum ISOEditor {
    struct TrackEdit {
        /// Media time (track ticks) of the first presented instant.
        var mediaTime: Int64
        /// Presented duration in movie ticks.
        var duration: Int64
        /// The last sample's duration (media ticks), when the cut ends inside it.
        var lastSampleDuration: Int64?
        /// Subtracted from every composition offset (ctts, then signed, version 1) so the first presented frame
        /// sits at media time 0 and needs no edit to start there (--target web). `mediaTime` is then 0.
        var compositionShift: Int64 = 0

        init(mediaTime: Int64, duration: Int64, lastSampleDuration: Int64? = nil, compositionShift: Int64 = 0) {
            self.mediaTime = mediaTime
            self.duration = duration
            self.lastSampleDuration = lastSampleDuration
            self.compositionShift = compositionShift
        }

        /// A muxed track's exact edit, from where the muxer put its first sample (fix's and stitch's one way):
        /// the first presentation time written (`firstWritten`, on `clock`) is the presented start, so its media
        /// time is the track's first sample's less that instant in the track's ticks. `presenting`: the seconds
        /// shown. `lastDuration` (on `clock`): the last sample's, which FFmpeg 5.1's mov muxer keeps whole in stts
        /// (the editor shortens it).
        init(
            muxed track: ISOFile.Track?, firstWritten: Int64, clock: Rational, presenting: Rational,
            movieTimescale: Int64, lastDuration: Int64? = nil
        ) throws {
            guard let track, let first = track.timeline.samples.first else {
                throw MediaError("finalize", reason: "a track is missing from the muxed file")
            }
            let ticks = { (t: Int64) in (Rational(t) * clock / track.timeline.timeBase).rounded }
            self.init(
                mediaTime: first.pts - ticks(firstWritten), duration: (presenting * movieTimescale).rounded,
                lastSampleDuration: lastDuration.map(ticks))
        }
    }

    /// The index of a file FFmpeg's muxer just wrote (before its edits are made exact).
    static func muxedLayout(_ path: String) throws -> ISOFile {
        let size = Int64((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0)
        guard let layout = try ISOFile.read(path: path, fileSize: size) else {
            throw MediaError("finalize", reason: "cannot read the muxed file back")
        }
        return layout
    }

    /// `graft`: the metadata of the file the muxed one was made from, put back in place of the muxer's.
    static func finalize(
        _ source: String, to destination: String, movieTimescale: Int64, edits: [Int: TrackEdit],
        graft: MetadataGraft? = nil
    ) throws {
        let size = Int64(
            (try FileManager.default.attributesOfItem(atPath: source)[.size] as? NSNumber)?.int64Value ?? 0)
        guard let file = try? LocalFile(source) else {
            throw MediaError("finalize", reason: "cannot reopen the muxed file")
        }
        let top = try ISOFile.topLevelBoxes(file, fileSize: size)
        guard let moovEntry = top.first(where: { $0.type == "moov" }) else {
            throw MediaError("finalize", reason: "the muxer wrote no moov")
        }
        let moovBytes = try file.read(at: moovEntry.offset, count: Int(moovEntry.size))
        guard var moov = try Box.parse(moovBytes, from: 0, to: moovBytes.count).first else {
            throw MediaError("finalize", reason: "the muxed file's movie box cannot be read back")
        }

        let longest = try applyEdits(&moov, edits)
        try moov.withChild("mvhd") { mvhd in try setHeader(&mvhd, duration: longest, timescale: movieTimescale) }
        nameChapterTracks(&moov)
        graft?.apply(to: &moov, quickTime: try Self.isQuickTime(file, top))
        let extras = graft?.topLevel.flatMap(\.bytes) ?? []

        // New layout: what preceded moov's old place stays in front (ftyp), then moov, then the rest (mdat).
        let kept = top.filter { $0.type != "moov" && $0.type != "free" }
        let head = kept.prefix { $0.type == "ftyp" }
        let tail = kept.dropFirst(head.count)
        let headBytes = try head.flatMap { try file.read(at: $0.offset, count: Int($0.size)) }.withFileType(of: graft)
        // Chunk offsets move with the media; if one no longer fits 32 bits, every stco becomes a co64.
        let headSize = Int64(headBytes.count)
        var moovOut: [UInt8] = []
        for useCo64 in [false, true] {
            var edited = moov
            if useCo64 { widenChunkOffsets(&edited) }
            var offset = headSize + Int64(edited.size) + Int64(extras.count)
            var shifts: [(old: Int64, end: Int64, delta: Int64)] = []
            for box in tail {
                shifts.append((box.offset, box.offset + box.size, offset - box.offset))
                offset += box.size
            }
            if shiftChunkOffsets(&edited, shifts: shifts) && !useCo64 { continue }
            edited.serialize(into: &moovOut)
            break
        }

        _ = FileManager.default.createFile(atPath: destination, contents: nil)
        guard let out = FileHandle(forWritingAtPath: destination) else {
            throw MediaError("finalize", reason: "cannot create \(destination)")
        }
        defer { try? out.close() }
        try out.write(contentsOf: headBytes + moovOut + extras)
        for box in tail { try copy(file.handle, box.offset, box.size, to: out) }
    }

    /// Whether the muxed file's type box names QuickTime (or it has none, as old movies do).
    static func isQuickTime(_ file: LocalFile, _ top: [(type: FourCC, offset: Int64, size: Int64)]) throws -> Bool {
        guard let ftyp = top.first(where: { $0.type == "ftyp" }), ftyp.size >= 12 else { return true }
        return FourCC(bytes: try file.read(at: ftyp.offset + 8, count: 4)) == "qt  "
    }

    /// A whole file copied as `copy` copies media (fix's output of a file that needs nothing).
    static func copyFile(_ source: String, to destination: String) throws {
        guard let from = FileHandle(forReadingAtPath: source) else {
            throw MediaError("copy", reason: "cannot open \(source)")
        }
        defer { try? from.close() }
        let size = try from.seekToEnd()
        _ = FileManager.default.createFile(atPath: destination, contents: nil)
        guard let out = FileHandle(forWritingAtPath: destination) else {
            throw MediaError("copy", reason: "cannot create \(destination)")
        }
        defer { try? out.close() }
        try copy(from, 0, Int64(size), to: out)
    }

    /// Copies `count` bytes at `offset` to the end of `to`: in the kernel (copy_file_range) when it can, so the
    /// media of a long clip is not carried through user space a second time; else through a 4 MB buffer. The copy
    /// goes in 32 MB slices, each handed to the disk as it is done (writeback starts while the next is copied),
    /// so the flush before the rename waits for the last slice, not for the whole file. `written` is told each
    /// slice's place in `to` as it is done (a reader of the growing file waits for it).
    static func copy(
        _ from: FileHandle, _ offset: Int64, _ count: Int64, to: FileHandle,
        written: ((Range<Int64>) throws -> Void)? = nil
    ) throws {
        var left = count
        var source = offset
        var target = Int64(try to.offset())
        while left > 0 {
            let start = target
            // Slices end on the source's 4 KB blocks: where the target is at the same block offset (MP4Writer
            // places it so), a filesystem that shares blocks (XFS, btrfs) shares every whole block.
            let slice = min(left, source % 4096 != 0 ? 4096 - source % 4096 : 32 << 20)
            let n = lp_copy_file_range(from.fileDescriptor, &source, to.fileDescriptor, &target, Int(slice))
            guard n > 0 else { break }
            left -= Int64(n)
            _ = lp_start_writeback(to.fileDescriptor, start, Int64(n))
            try written?(start..<start + Int64(n))
        }
        try to.seek(toOffset: UInt64(target))
        guard left > 0 else { return }
        try from.seek(toOffset: UInt64(source))
        while left > 0 {
            let chunk = Int(min(left, 4 << 20))
            guard let data = try from.read(upToCount: chunk), !data.isEmpty else {
                throw MediaError("finalize", reason: "the muxed file ended early")
            }
            try to.write(contentsOf: data)
            left -= Int64(data.count)
            try written?(target..<target + Int64(data.count))
            target += Int64(data.count)
        }
    }

    /// FFmpeg's muxer names the chapter track's handler "SubtitleHandler", and a player that lists tracks shows it
    /// as a subtitle or data track: it is named "Chapters" (a handler's name is free text; its type stays text). A
    /// chapter track is one another track's `chap` reference names.
    static func nameChapterTracks(_ moov: inout Box) {
        let referenced = moov.children.filter { $0.type == "trak" }.flatMap { trak -> [Int] in
            guard let p = trak.first("tref")?.first("chap")?.payload else { return [] }
            var r = ByteReader(Data(p))
            return (0..<p.count / 4).map { _ in Int(r.u32()) }
        }
        for i in moov.children.indices where moov.children[i].type == "trak" {
            guard let id = trackID(moov.children[i]), referenced.contains(id) else { continue }
            moov.children[i].edit(["mdia"]) { mdia in
                mdia.withChild("hdlr") { hdlr in
                    guard let p = hdlr.payload, p.count >= 24 else { return }
                    // QuickTime's name is a Pascal string, ISO's a C string: written as the muxer wrote it.
                    let old = p[24...]
                    let pascal = old.first.map { Int($0) == old.count - 1 } == true && old.last != 0
                    let name = Array("Chapters".utf8)
                    hdlr.payload = Array(p[0..<24]) + (pascal ? [UInt8(name.count)] + name : name + [0])
                }
            }
        }
    }

    static func trackID(_ trak: Box) -> Int? {
        trak.first("tkhd")?.payload.flatMap { HeaderBox(.tkhd, payload: $0) }?.trackID
    }

    /// Each track's exact edit (its last sample shortened, its composition offsets moved, its header's length), and
    /// the edit of a timecode track the muxer made itself; the longest edit, the movie's length.
    static func applyEdits(_ moov: inout Box, _ edits: [Int: TrackEdit]) throws -> Int64 {
        var longest: Int64 = 0
        for i in moov.children.indices where moov.children[i].type == "trak" {
            guard let id = trackID(moov.children[i]), let edit = edits[id] else { continue }
            try setEdit(&moov.children[i], edit)
            if let last = edit.lastSampleDuration { try shortenLastSample(&moov.children[i], to: last) }
            if edit.compositionShift != 0 { try shiftCompositionOffsets(&moov.children[i], by: edit.compositionShift) }
            try setDuration(&moov.children[i], box: "tkhd", edit.duration, timescale: nil)
            longest = max(longest, edit.duration)
        }
        // A timecode track the muxer made itself (from the video's timecode tag) spans the video's media, one
        // sample: its edit ends with the movie's.
        for i in moov.children.indices where moov.children[i].type == "trak" {
            guard let id = trackID(moov.children[i]), edits[id] == nil, handler(moov.children[i]) == "tmcd" else {
                continue
            }
            try setEdit(&moov.children[i], TrackEdit(mediaTime: 0, duration: longest))
            try setDuration(&moov.children[i], box: "tkhd", longest, timescale: nil)
        }
        return longest
    }

    /// A track's handler type (`mdia/hdlr`'s, at bytes 8-11 of its payload: vide, soun, tmcd...).
    static func handler(_ trak: Box) -> FourCC? {
        guard let p = trak.first("mdia")?.first("hdlr")?.payload, p.count >= 12 else { return nil }
        return FourCC(bytes: p[8..<12])
    }

    /// One media edit: present `duration` movie ticks from `mediaTime`, at normal rate.
    static func setEdit(_ trak: inout Box, _ edit: TrackEdit) throws {
        let wide = edit.duration > Int64(UInt32.max) || edit.mediaTime > Int64(Int32.max)
        var payload: [UInt8] = [wide ? 1 : 0, 0, 0, 0] + be32(1)
        payload +=
            wide
            ? be64(UInt64(edit.duration)) + be64(UInt64(bitPattern: edit.mediaTime))
            : be32(UInt32(edit.duration)) + be32(UInt32(truncatingIfNeeded: edit.mediaTime))
        payload += be32(0x0001_0000)
        let edts = Box(type: "edts", payload: nil, children: [Box(type: "elst", payload: payload, children: [])])
        trak.children.removeAll { $0.type == "edts" }
        // edts goes right after tkhd (ISO 14496-12 box order).
        let at = (trak.children.firstIndex { $0.type == "tkhd" } ?? -1) + 1
        trak.children.insert(edts, at: at)
    }

    /// Rewrites stts so the last sample lasts `duration`, and mdhd's media duration to match.
    static func shortenLastSample(_ trak: inout Box, to duration: Int64) throws {
        var total: Int64 = 0
        try trak.withChild("mdia") { mdia in
            try mdia.withSampleTable { stbl in
                try stbl.withChild("stts") { stts in
                    guard let p = stts.payload, p.count >= 8 else { throw MediaError("finalize", reason: "short stts") }
                    var r = ByteReader(Data(p))
                    r.skip(4)
                    var runs: [(UInt32, UInt32)] = (0..<Int(r.u32())).map { _ in (r.u32(), r.u32()) }
                    guard let lastRun = runs.popLast(), lastRun.0 > 0 else { return }
                    if lastRun.0 > 1 { runs.append((lastRun.0 - 1, lastRun.1)) }
                    runs.append((1, UInt32(clamping: duration)))
                    stts.payload = Array(p[0..<4]) + be32(UInt32(runs.count)) + runs.flatMap { be32($0.0) + be32($0.1) }
                    total = runs.reduce(0) { $0 + Int64($1.0) * Int64($1.1) }
                }
            }
            try mdia.withChild("mdhd") { mdhd in try HeaderBox.rewrite(&mdhd, duration: total) }
        }
    }

    /// Rewrites ctts as version 1 (signed offsets) with `shift` subtracted from every entry.
    static func shiftCompositionOffsets(_ trak: inout Box, by shift: Int64) throws {
        try trak.withChild("mdia") { mdia in
            try mdia.withSampleTable { stbl in
                try stbl.withChild("ctts") { ctts in
                    guard let p = ctts.payload, p.count >= 8 else { throw MediaError("finalize", reason: "short ctts") }
                    var r = ByteReader(Data(p))
                    r.skip(4)
                    let runs = (0..<Int(r.u32())).map { _ in (r.u32(), Int64(Int32(bitPattern: r.u32()))) }
                    var out: [UInt8] = [1, 0, 0, 0] + be32(UInt32(runs.count))
                    for (count, offset) in runs {
                        guard let shifted = Int32(exactly: offset - shift) else {
                            throw MediaError("finalize", reason: "composition offset out of range")
                        }
                        out += be32(count) + be32(UInt32(bitPattern: shifted))
                    }
                    ctts.payload = out
                }
            }
        }
    }

    static func setDuration(_ trak: inout Box, box: FourCC, _ duration: Int64, timescale: Int64?) throws {
        try trak.withChild(box) { try setHeader(&$0, duration: duration, timescale: timescale) }
    }

    /// mvhd/tkhd (HeaderBox: version 1 where the duration needs 64 bits).
    static func setHeader(_ box: inout Box, duration: Int64, timescale: Int64?) throws {
        try HeaderBox.rewrite(&box, duration: duration, timescale: timescale)
    }

    static func widenChunkOffsets(_ b: inout Box) {
        if b.type == "stco", let p = b.payload {
            var r = ByteReader(Data(p))
            r.skip(4)
            var out = Array(p[0..<8])
            for _ in 0..<Int(r.u32()) { out += be64(UInt64(r.u32())) }
            b = Box(type: "co64", payload: out, children: [])
        }
        for i in b.children.indices { widenChunkOffsets(&b.children[i]) }
    }

    /// Shifts every chunk offset by the move of the top-level box it points into. Returns true if a 32-bit
    /// offset would overflow.
    static func shiftChunkOffsets(_ box: inout Box, shifts: [(old: Int64, end: Int64, delta: Int64)]) -> Bool {
        var overflow = false
        func delta(_ offset: Int64) -> Int64 { shifts.first { offset >= $0.old && offset < $0.end }?.delta ?? 0 }
        if box.type == "stco" || box.type == "co64", var p = box.payload, p.count >= 8 {
            var r = ByteReader(Data(p))
            r.skip(4)
            let n = Int(r.u32())
            let wide = box.type == "co64"
            for i in 0..<n {
                let at = 8 + i * (wide ? 8 : 4)
                guard at + (wide ? 8 : 4) <= p.count else { break }
                var e = ByteReader(Data(p[at..<at + (wide ? 8 : 4)]))
                let old = wide ? Int64(e.u64()) : Int64(e.u32())
                let new = old + delta(old)
                if !wide && new > Int64(UInt32.max) {
                    overflow = true
                    continue
                }
                p.replaceSubrange(at..<at + (wide ? 8 : 4), with: wide ? be64(UInt64(new)) : be32(UInt32(new)))
            }
            box.payload = p
        }
        for i in box.children.indices where shiftChunkOffsets(&box.children[i], shifts: shifts) { overflow = true }
        return overflow
    }
}

extension [UInt8] {
    /// The muxer's file type box (these bytes) with the source's brands in place of its isom.
    fileprivate func withFileType(of graft: MetadataGraft?) -> [UInt8] {
        guard let graft, count >= 8, FourCC(bytes: self[4..<8]) == "ftyp" else { return self }
        return graft.fileType(replacing: self)
    }
}
