import Foundation
import LoopAnalysis

/// Reads what loopprep needs from an MP4/MOV's boxes: top-level order (is moov before mdat), the movie
/// timescale, and per track the sample table and edit list exactly as stored, so timing facts come from the
/// index alone, in the track's own ticks, without reading one media byte. FFmpeg's mov demuxer applies edit
/// lists internally and shows only the result; we need the edits themselves (priming, mid-GOP starts).
///
/// Returns nil for what it does not model (fragmented files, compact sample sizes); the caller then falls back
/// to FFmpeg's packets.
struct ISOFile {
    struct Track {
        var trackID: Int
        var handler: String
        var timescale: Int64
        var timeline: TrackTimeline
        /// One past the last byte the sample table points at.
        var dataEnd: Int64
    }

    var moovBeforeMdat: Bool?
    var fragmented: Bool
    var movieTimescale: Int64
    /// mvhd's duration, in movie ticks: the length players such as AVFoundation give the whole movie.
    var movieDuration: Int64 = 0
    var majorBrand: String?
    var tracks: [Int: Track]
    var dataEnd: Int64

    /// Top-level boxes: (type, offset, size). A size past the end of the file marks truncation.
    static func topLevelBoxes(_ file: FileHandle, fileSize: Int64) throws -> [(type: String, offset: Int64, size: Int64)] {
        var boxes: [(String, Int64, Int64)] = []
        var offset: Int64 = 0
        while offset + 8 <= fileSize, boxes.count < 10_000 {
            try file.seek(toOffset: UInt64(offset))
            guard let header = try file.read(upToCount: 16), header.count >= 8 else { break }
            var r = ByteReader(header)
            var size = Int64(r.u32()); let type = r.fourCC()
            if size == 1, header.count >= 16 { size = Int64(clamping: r.u64()) }
            else if size == 0 { size = fileSize - offset }
            guard size >= 8 else { break }
            boxes.append((type, offset, size))
            // A box reaching past the end (a 64-bit size near 2^63 included) is the last: it marks truncation.
            guard size <= fileSize - offset else { break }
            offset += size
        }
        return boxes
    }

    static func read(path: String, fileSize: Int64) throws -> ISOFile? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        let boxes = try topLevelBoxes(file, fileSize: fileSize)
        guard let moov = boxes.first(where: { $0.type == "moov" }), moov.size < 256 << 20 else { return nil }
        let moovIndex = boxes.firstIndex { $0.type == "moov" }!
        let mdatIndex = boxes.firstIndex { $0.type == "mdat" && $0.size > 8 }
        try file.seek(toOffset: UInt64(moov.offset))
        guard let bytes = try file.read(upToCount: Int(moov.size)), bytes.count == Int(moov.size) else {
            throw MediaError("read index", reason: "truncated: the moov box claims \(moov.size) bytes but the file ends first")
        }
        var brand: String?
        if let ftyp = boxes.first(where: { $0.type == "ftyp" }) {
            try file.seek(toOffset: UInt64(ftyp.offset + 8))
            if let b = try file.read(upToCount: 4), b.count == 4 { brand = String(decoding: b, as: UTF8.self) }
        }
        var iso = ISOFile(moovBeforeMdat: mdatIndex.map { moovIndex < $0 }, fragmented: boxes.contains { $0.type == "moof" },
                          movieTimescale: 1000, majorBrand: brand, tracks: [:], dataEnd: 0)
        var reader = ByteReader(bytes)
        reader.skip(8)
        try iso.parseMoov(&reader, end: bytes.count, fileSize: fileSize)
        return iso
    }

    private mutating func parseMoov(_ r: inout ByteReader, end: Int, fileSize: Int64) throws {
        for (type, body) in r.children(until: end) {
            var b = body
            switch type {
            case "mvhd":
                let version = b.u8(); b.skip(3)
                b.skip(version == 1 ? 16 : 8)
                movieTimescale = Int64(b.u32())
                movieDuration = version == 1 ? Int64(clamping: b.u64()) : Int64(b.u32())
                guard movieTimescale > 0 else { throw MediaError("read index", reason: "the movie header has a zero timescale") }
            case "mvex": fragmented = true
            case "trak":
                if let track = try parseTrak(b, fileSize: fileSize) {
                    tracks[track.trackID] = track
                    dataEnd = max(dataEnd, track.dataEnd)
                }
            default: break
            }
        }
    }

    /// A track's boxes, flattened: the ones we need sit at fixed depths (trak/mdia/minf/stbl).
    private func parseTrak(_ body: ByteReader, fileSize: Int64) throws -> Track? {
        var boxes: [String: ByteReader] = [:]
        func collect(_ r: ByteReader) {
            for (type, child) in r.children(until: r.end) {
                if ["mdia", "minf", "stbl", "edts"].contains(type) { collect(child) } else if boxes[type] == nil { boxes[type] = child }
            }
        }
        collect(body)
        guard var tkhd = boxes["tkhd"], var mdhd = boxes["mdhd"], var hdlr = boxes["hdlr"], let stts = boxes["stts"] else { return nil }
        guard boxes["stz2"] == nil else { return nil }

        let tkhdVersion = tkhd.u8(); tkhd.skip(3 + (tkhdVersion == 1 ? 16 : 8))
        let trackID = Int(tkhd.u32())
        let mdhdVersion = mdhd.u8(); mdhd.skip(3 + (mdhdVersion == 1 ? 16 : 8))
        let timescale = Int64(mdhd.u32())
        hdlr.skip(8)
        let handler = hdlr.fourCC()
        guard timescale > 0 else { throw MediaError("read index", reason: "track \(trackID) has a zero timescale") }

        // A table that claims far more entries than its box holds is refused before anything sizes a buffer by
        // the claim (FFmpeg's demuxer would).
        for (type, entrySize) in [("stts", 8), ("ctts", 8), ("stss", 4), ("stsc", 12), ("stco", 4), ("co64", 8), ("elst", 12)] {
            guard var table = boxes[type] else { continue }
            table.skip(4)
            let declared = Int64(table.u32()), held = Int64(table.remaining / entrySize)
            if declared > held, declared * Int64(entrySize) > 16 << 20 {
                throw MediaError("read index", reason: "the \(type) table of track \(trackID) claims \(declared) entries but holds \(held)")
            }
        }
        if var stsz = boxes["stsz"] {
            stsz.skip(4)
            let fixed = stsz.u32(), declared = Int64(stsz.u32()), held = Int64(stsz.remaining / 4)
            if fixed == 0, declared > held, declared * 4 > 16 << 20 {
                throw MediaError("read index", reason: "the stsz table of track \(trackID) claims \(declared) entries but holds \(held)")
            }
        }

        let layout = SampleLayout(stsz: boxes["stsz"], stsc: boxes["stsc"], stco: boxes["stco"], co64: boxes["co64"], fileSize: fileSize)
        let samples = try sampleTable(stts: stts, ctts: boxes["ctts"], stss: boxes["stss"], layout: layout, sound: handler == "soun")
        let edits = try boxes["elst"].map { try editList($0) }
        let timeline = TrackTimeline(timeBase: Rational(1, timescale), samples: samples, edits: edits)
        return Track(trackID: trackID, handler: handler, timescale: timescale, timeline: timeline, dataEnd: layout.dataEnd())
    }

    /// stts (decode deltas), ctts (composition offsets, read signed as FFmpeg does), stss (sync samples; absent
    /// means every sample is sync). There are never more samples than stsz sizes, whatever stts claims, and
    /// every loop is bounded by the bytes its table really holds: a hostile count cannot make work.
    ///
    /// Uncompressed audio (one stts entry of delta 1: a sample is one PCM frame) is grouped as FFmpeg's demuxer
    /// packs it: each chunk split into packets of at most 1024 frames. An hour of 48 kHz PCM is then 170,000
    /// entries, not 170 million, and the entries are the packets the remuxer will copy.
    private func sampleTable(stts: ByteReader, ctts: ByteReader?, stss: ByteReader?, layout: SampleLayout, sound: Bool) throws -> [SampleTiming] {
        var r = stts; r.skip(4)
        let entries = r.entries(size: 8)
        let total = layout.sampleCount
        guard total <= 50_000_000 else { throw MediaError("read index", reason: "absurd sample count (\(total))") }
        var runs: [(count: Int, delta: Int64)] = []
        for _ in 0..<entries { runs.append((Int(r.u32()), Int64(r.u32()))) }

        if sound, runs.count == 1, runs[0].delta == 1, layout.fixedSize != 0, ctts == nil {
            var samples: [SampleTiming] = []
            var dts: Int64 = 0
            let frames = Int64(min(runs[0].count, total))
            layout.forEachChunk { _, perChunk in
                var left = min(Int64(perChunk), frames - dts)
                while left > 0 {
                    let n = min(left, 1024)
                    samples.append(SampleTiming(dts: dts, pts: dts, duration: n, isSync: true))
                    dts += n; left -= n
                }
                return dts < frames
            }
            return samples
        }

        var samples: [SampleTiming] = []
        samples.reserveCapacity(min(total, runs.reduce(0) { $0 &+ $1.count }))
        var dts: Int64 = 0
        for run in runs where samples.count < total {
            for _ in 0..<min(run.count, total - samples.count) {
                samples.append(SampleTiming(dts: dts, pts: dts, duration: run.delta, isSync: stss == nil))
                dts &+= run.delta
            }
        }
        if var c = ctts {
            c.skip(4)
            var i = 0
            for _ in 0..<c.entries(size: 8) where i < samples.count {
                let count = Int(c.u32()), offset = Int64(Int32(bitPattern: c.u32()))
                for _ in 0..<min(count, samples.count - i) { samples[i].pts = samples[i].dts &+ offset; i += 1 }
            }
        }
        if var s = stss {
            s.skip(4)
            for _ in 0..<s.entries(size: 4) {
                let n = Int(s.u32()) - 1
                if n >= 0 && n < samples.count { samples[n].isSync = true }
            }
        }
        return samples
    }

    private func editList(_ body: ByteReader) throws -> [Edit] {
        var r = body
        let version = r.u8(); r.skip(3)
        var edits: [Edit] = []
        for _ in 0..<r.entries(size: version == 1 ? 20 : 12) {
            let duration = version == 1 ? Int64(clamping: r.u64()) : Int64(r.u32())
            let mediaTime = version == 1 ? Int64(bitPattern: r.u64()) : Int64(Int32(bitPattern: r.u32()))
            let rate = Rational(Int64(Int16(bitPattern: r.u16())) * 65536 + Int64(r.u16()), 65536)
            // -1 marks an empty edit; any other negative media time is invalid (players reject or misplay it).
            guard mediaTime >= -1 else { throw MediaError("read index", reason: "invalid edit list: media time \(mediaTime)") }
            edits.append(Edit(mediaTime: mediaTime == -1 ? nil : mediaTime,
                              duration: Rational(duration, max(movieTimescale, 1)), rate: rate))
        }
        return edits
    }
}

/// Where a track's samples are: sizes (stsz), samples per chunk (stsc) and chunk offsets (stco/co64), each
/// read only as far as its box really holds entries.
struct SampleLayout {
    /// stsz's one size for every sample, or 0 when sizes are listed.
    var fixedSize: Int64 = 0
    /// Samples that have a size: listed ones, or stsz's count when the size is fixed.
    var sampleCount = 0
    var sizes = ByteReader([], from: 0, to: 0)
    var runs: [(firstChunk: Int, perChunk: Int)] = []
    var offsets: [Int64] = []

    init(stsz: ByteReader?, stsc: ByteReader?, stco: ByteReader?, co64: ByteReader?, fileSize: Int64) {
        if var sz = stsz {
            sz.skip(4)
            fixedSize = Int64(sz.u32())
            let declared = Int(sz.u32())
            // Listed sizes are bounded by the list; a fixed size by the bytes the file can hold.
            sampleCount = fixedSize != 0 ? min(declared, Int(fileSize / fixedSize)) : min(declared, sz.remaining / 4)
            sizes = sz
        }
        if var o = stco { o.skip(4); for _ in 0..<o.entries(size: 4) { offsets.append(Int64(o.u32())) } }
        if var o = co64 { o.skip(4); for _ in 0..<o.entries(size: 8) { offsets.append(Int64(clamping: o.u64())) } }
        if var sc = stsc {
            sc.skip(4)
            for _ in 0..<sc.entries(size: 12) { runs.append((Int(sc.u32()), Int(sc.u32()))); sc.skip(4) }
        }
    }

    /// Calls `body(offset, samples in the chunk)` for each chunk in order until it returns false. stsc runs
    /// are sorted by first chunk, so one pass walks both tables.
    func forEachChunk(_ body: (Int64, Int) -> Bool) {
        var run = -1
        for (chunk, offset) in offsets.enumerated() {
            while run + 1 < runs.count && runs[run + 1].firstChunk <= chunk + 1 { run += 1 }
            guard body(offset, run >= 0 ? runs[run].perChunk : 0) else { return }
        }
    }

    /// The end of the last byte of sample data. Compared with the file size, this tells a truncated file from
    /// a whole one.
    func dataEnd() -> Int64 {
        var sizes = self.sizes
        var sample = 0, end: Int64 = 0
        forEachChunk { offset, perChunk in
            let n = min(perChunk, sampleCount - sample)
            // Saturating: an offset or size near 2^63 must read as "past the end of the file", not wrap.
            func add(_ a: Int64, _ b: Int64) -> Int64 { let (r, o) = a.addingReportingOverflow(b); return o ? .max : r }
            var position = offset
            if fixedSize != 0 {
                let (bytes, overflow) = fixedSize.multipliedReportingOverflow(by: Int64(max(n, 0)))
                position = add(offset, overflow ? .max : bytes)
            } else {
                for _ in 0..<max(n, 0) { position = add(position, Int64(sizes.u32())) }
            }
            sample += max(n, 0)
            end = max(end, position)
            return sample < sampleCount
        }
        return end
    }
}

/// Big-endian reads over a byte buffer; reads past the end yield zeros rather than trapping (hostile input).
struct ByteReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(_ data: Data) { bytes = [UInt8](data); position = 0; end = bytes.count }
    init(_ bytes: [UInt8], from: Int, to: Int) { self.bytes = bytes; position = from; end = to }

    var remaining: Int { max(end - position, 0) }
    /// A table's entry count (the next u32), capped by the entries of `size` bytes that really follow it.
    mutating func entries(size: Int) -> Int { min(Int(u32()), remaining / size) }
    mutating func skip(_ n: Int) { position = min(position + n, end) }
    mutating func u8() -> UInt8 { guard position < end else { return 0 }; defer { position += 1 }; return bytes[position] }
    mutating func u16() -> UInt16 { UInt16(u8()) << 8 | UInt16(u8()) }
    mutating func u32() -> UInt32 { UInt32(u16()) << 16 | UInt32(u16()) }
    mutating func u64() -> UInt64 { UInt64(u32()) << 32 | UInt64(u32()) }
    mutating func fourCC() -> String { String(decoding: (0..<4).map { _ in u8() }, as: UTF8.self) }

    /// The child boxes from the current position to `until`, each as a reader over its body.
    func children(until: Int) -> [(String, ByteReader)] {
        var r = self
        var out: [(String, ByteReader)] = []
        while r.position + 8 <= min(until, end) {
            let start = r.position
            var size = Int(r.u32()); let type = r.fourCC()
            if size == 1 { size = Int(clamping: r.u64()) } else if size == 0 { size = until - start }
            let headerSize = r.position - start
            guard size >= headerSize, size <= until - start else { break }
            out.append((type, ByteReader(bytes, from: r.position, to: start + size)))
            r.position = start + size
        }
        return out
    }
}
