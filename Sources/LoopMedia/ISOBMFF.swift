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
        try iso.parseMoov(&reader, end: bytes.count)
        return iso
    }

    private mutating func parseMoov(_ r: inout ByteReader, end: Int) throws {
        for (type, body) in r.children(until: end) {
            var b = body
            switch type {
            case "mvhd":
                let version = b.u8(); b.skip(3)
                b.skip(version == 1 ? 16 : 8)
                movieTimescale = Int64(b.u32())
            case "mvex": fragmented = true
            case "trak":
                if let track = try parseTrak(b) {
                    tracks[track.trackID] = track
                    dataEnd = max(dataEnd, track.dataEnd)
                }
            default: break
            }
        }
    }

    /// A track's boxes, flattened: the ones we need sit at fixed depths (trak/mdia/minf/stbl).
    private func parseTrak(_ body: ByteReader) throws -> Track? {
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

        let samples = try sampleTable(stts: stts, ctts: boxes["ctts"], stss: boxes["stss"])
        let edits = try boxes["elst"].map { try editList($0) }
        let timeline = TrackTimeline(timeBase: Rational(1, timescale), samples: samples, edits: edits)
        let dataEnd = try dataExtent(stsz: boxes["stsz"], stsc: boxes["stsc"], stco: boxes["stco"], co64: boxes["co64"])
        return Track(trackID: trackID, handler: handler, timescale: timescale, timeline: timeline, dataEnd: dataEnd)
    }

    /// stts (decode deltas), ctts (composition offsets, read signed as FFmpeg does), stss (sync samples; absent
    /// means every sample is sync).
    private func sampleTable(stts: ByteReader, ctts: ByteReader?, stss: ByteReader?) throws -> [SampleTiming] {
        var r = stts; r.skip(4)
        let entries = Int(r.u32())
        var samples: [SampleTiming] = []
        var dts: Int64 = 0
        for _ in 0..<entries {
            guard r.remaining >= 8 else { throw MediaError("read index", reason: "stts is shorter than its entry count") }
            let count = Int(r.u32()), delta = Int64(r.u32())
            guard samples.count + count <= 50_000_000 else { throw MediaError("read index", reason: "absurd sample count") }
            samples.reserveCapacity(samples.count + count)
            for _ in 0..<count {
                samples.append(SampleTiming(dts: dts, pts: dts, duration: delta, isSync: stss == nil))
                dts &+= delta
            }
        }
        if var c = ctts {
            c.skip(4)
            var i = 0
            for _ in 0..<Int(c.u32()) where c.remaining >= 8 {
                let count = Int(c.u32()), offset = Int64(Int32(bitPattern: c.u32()))
                for _ in 0..<count where i < samples.count { samples[i].pts = samples[i].dts &+ offset; i += 1 }
            }
        }
        if var s = stss {
            s.skip(4)
            for _ in 0..<Int(s.u32()) where s.remaining >= 4 {
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
        for _ in 0..<Int(r.u32()) where r.remaining >= (version == 1 ? 20 : 12) {
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

    /// The end of the last byte of sample data: chunk offsets (stco/co64) plus the sizes (stsz) of the samples
    /// each chunk holds (stsc). Compared with the file size, this tells a truncated file from a whole one.
    private func dataExtent(stsz: ByteReader?, stsc: ByteReader?, stco: ByteReader?, co64: ByteReader?) throws -> Int64 {
        guard var sz = stsz, var sc = stsc else { return 0 }
        sz.skip(4)
        let fixed = Int64(sz.u32()), count = Int(sz.u32())
        var offsets: [Int64] = []
        if var o = stco { o.skip(4); for _ in 0..<Int(o.u32()) where o.remaining >= 4 { offsets.append(Int64(o.u32())) } }
        if var o = co64 { o.skip(4); for _ in 0..<Int(o.u32()) where o.remaining >= 8 { offsets.append(Int64(clamping: o.u64())) } }
        sc.skip(4)
        var runs: [(firstChunk: Int, perChunk: Int)] = []
        for _ in 0..<Int(sc.u32()) where sc.remaining >= 12 {
            runs.append((Int(sc.u32()), Int(sc.u32()))); sc.skip(4)
        }
        var sample = 0, end: Int64 = 0
        for (chunk, offset) in offsets.enumerated() {
            let run = runs.last { $0.firstChunk <= chunk + 1 }
            var position = offset
            for _ in 0..<(run?.perChunk ?? 0) where sample < count {
                position += fixed != 0 ? fixed : (sz.remaining >= 4 ? Int64(sz.u32()) : 0)
                sample += 1
            }
            end = max(end, position)
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
            guard size >= headerSize, start + size <= until else { break }
            out.append((type, ByteReader(bytes, from: r.position, to: start + size)))
            r.position = start + size
        }
        return out
    }
}
