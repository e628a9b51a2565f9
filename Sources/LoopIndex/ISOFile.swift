import Foundation
import LoopAnalysis

/// Where one indexed sample's bytes are in the file.
package struct SampleLocation: Equatable {
    package var offset: Int64
    package var size: Int64
}

/// Reads what loopprep needs from an MP4/MOV's boxes: top-level order (is moov before mdat), the movie
/// timescale, and per track the sample table and edit list exactly as stored (fragments included), with every
/// sample's place in the file, so timing facts come from the index alone, in the track's own ticks, and the
/// writer can copy samples as byte ranges. FFmpeg's mov demuxer applies edit lists internally, shifts DTS by
/// negative composition offsets and loses trun durations; we need what is stored.
///
/// Returns nil for what it does not model (no moov, compact sample sizes); the caller then falls back to
/// FFmpeg's packets.
package struct ISOFile {
    package struct Track {
        package var trackID: Int
        package var handler: String
        package var timescale: Int64
        package var timeline: TrackTimeline
        /// Each timeline sample's bytes (same order and count as `timeline.samples`); empty unless asked for
        /// (analysis needs only times: an hour of places is 4 MB).
        package var locations: [SampleLocation]
        /// Uncompressed audio indexed a frame per sample, grouped as FFmpeg packs it (see `sampleTable`): the
        /// bytes of one frame, and stsz's own sample-size field (written back as it was).
        package var pcm: (frameBytes: Int64, sampleSizeField: UInt32)?
        /// The trak box's place in `ISOFile.moov`.
        package var trak: Range<Int>
        /// Sample descriptions (stsd entries); the writer copies only tracks with one.
        package var descriptionCount: Int
        /// One past the last byte the sample table points at.
        package var dataEnd: Int64
        /// What the demuxer makes of the track's headers (ISOStreams): nil when a box it needs is missing.
        package var header: TrackHeader?
    }

    package var moovBeforeMdat: Bool?
    package var fragmented: Bool
    package var movieTimescale: Int64
    /// mvhd's duration, in movie ticks: the length players such as AVFoundation give the whole movie.
    package var movieDuration: Int64 = 0
    package var majorBrand: String?
    package var tracks: [Int: Track]
    package var dataEnd: Int64
    /// The movie box as stored (only when sample places were asked for: the writer needs both), and the file
    /// type box (nil when absent).
    package var moov: [UInt8] = []
    package var ftyp: [UInt8]?
    /// iTunes gapless metadata, when the movie's user data has it.
    package var gapless: ITunesGapless?
    /// Every trak box in moov order (its track id, or nil where the trak could not be read), mvhd's matrix, and
    /// whether the movie's user data holds a cover picture (which FFmpeg presents as one more stream).
    package var trakOrder: [Int?] = []
    package var movieMatrix: [Int32] = []
    package var coverArt = false
    /// Top-level boxes besides the structure (a uuid box with XMP, a camera maker's), whole, for the writer to
    /// keep (read with the moov bytes only).
    package var otherBoxes: [(type: FourCC, bytes: [UInt8])] = []

    /// Top-level boxes: (type, offset, size). A size past the end of the file marks truncation.
    package static func topLevelBoxes(_ file: any ByteSource, fileSize: Int64) throws -> [(
        type: FourCC, offset: Int64, size: Int64
    )] {
        var boxes: [(FourCC, Int64, Int64)] = []
        var offset: Int64 = 0
        while offset + 8 <= fileSize, boxes.count < 1_000_000 {
            let header = try file.read(at: offset, count: 16)
            guard header.count >= 8 else { break }
            var r = ByteReader(header, from: 0, to: header.count)
            var size = Int64(r.u32())
            let type = r.fourCC()
            if size == 1, header.count >= 16 {
                size = Int64(clamping: r.u64())
            } else if size == 0 {
                size = fileSize - offset
            }
            guard size >= 8 else { break }
            boxes.append((type, offset, size))
            // A box reaching past the end (a 64-bit size near 2^63 included) is the last: it marks truncation.
            guard size <= fileSize - offset else { break }
            offset += size
        }
        return boxes
    }

    /// The index of the file `file` reads (nil when it is not an ISO-BMFF file with a moov this reader takes).
    package static func read(_ file: any ByteSource, fileSize: Int64, locations: Bool = false) throws -> ISOFile? {
        var iso = try tables(file, fileSize: fileSize, locations: locations)
        try iso?.layOpusOnSampleClock(file, fileSize: fileSize)
        return iso
    }

    /// The index as stored (see `read`).
    static func tables(_ file: any ByteSource, fileSize: Int64, locations: Bool) throws -> ISOFile? {
        let boxes = try topLevelBoxes(file, fileSize: fileSize)
        guard let moovIndex = boxes.firstIndex(where: { $0.type == "moov" }), boxes[moovIndex].size < 256 << 20 else {
            return nil
        }
        let moov = boxes[moovIndex]
        let mdatIndex = boxes.firstIndex { $0.type == "mdat" && $0.size > 8 }
        let bytes = try readBox(file, moov.offset, moov.size, what: "moov")
        var iso = ISOFile(
            moovBeforeMdat: mdatIndex.map { moovIndex < $0 }, fragmented: boxes.contains { $0.type == "moof" },
            movieTimescale: 1000, majorBrand: nil, tracks: [:], dataEnd: 0)
        // The writer rebuilds from the stored boxes; analysis lets them go (an hour's moov is 2 MB).
        if locations {
            iso.moov = bytes
            iso.otherBoxes = try KeptMetadata.topLevel(file, boxes)
        }
        if let ftyp = boxes.first(where: { $0.type == "ftyp" }), ftyp.size <= 4096 {
            let bytes = try readBox(file, ftyp.offset, ftyp.size, what: "ftyp")
            iso.ftyp = bytes
            iso.majorBrand = String(decoding: bytes[min(8, bytes.count)..<min(12, bytes.count)], as: UTF8.self)
        }
        var reader = ByteReader(bytes, from: 0, to: bytes.count)
        reader.skip(8)
        let defaults = try iso.parseMoov(&reader, end: bytes.count, fileSize: fileSize, locations: locations)
        if iso.fragmented {
            var fragments = Fragments(defaults: defaults, fileSize: fileSize, keepLocations: locations)
            for box in boxes where box.type == "moof" {
                guard box.size < 64 << 20 else {
                    throw MediaError("read index", reason: "a movie fragment box claims \(box.size) bytes")
                }
                try fragments.read(
                    try readBox(file, box.offset, box.size, what: "moof"), at: box.offset, into: &iso.tracks)
            }
            for (id, track) in iso.tracks { iso.tracks[id]?.timeline.edits = openEnded(track.timeline) }
            for (id, end) in fragments.dataEnd {
                if let known = iso.tracks[id]?.dataEnd { iso.tracks[id]?.dataEnd = max(known, end) }
            }
            iso.dataEnd = iso.tracks.values.map(\.dataEnd).max() ?? 0
        }
        return iso
    }

    /// A track's first sample description (its stsd entry, header included).
    package func sampleEntry(of track: Track) -> [UInt8]? {
        // (An index read without its moov bytes kept has none to look in.)
        guard track.trak.lowerBound + 8 <= track.trak.upperBound, track.trak.upperBound <= moov.count else {
            return nil
        }
        var reader = ByteReader(moov, from: track.trak.lowerBound + 8, to: track.trak.upperBound)
        for type: FourCC in ["mdia", "minf", "stbl", "stsd"] {
            guard let child = reader.children(until: reader.end).first(where: { $0.0 == type })?.1 else { return nil }
            reader = child
        }
        reader.skip(8)  // version, flags, entry count
        let start = reader.position
        let size = Int(reader.u32())
        guard size >= 8, start + size <= reader.end else { return nil }
        return Array(moov[start..<start + size])
    }

    /// The payload's range of a visual sample entry's child box (avcC, hvcC: the codec configuration FFmpeg
    /// calls extradata), after the 86-byte visual sample entry header.
    package static func configurationRange(_ entry: [UInt8], type: FourCC) -> Range<Int>? {
        var at = 86
        while at + 8 <= entry.count {
            let size = Int(entry[at]) << 24 | Int(entry[at + 1]) << 16 | Int(entry[at + 2]) << 8 | Int(entry[at + 3])
            guard size >= 8, at + size <= entry.count else { return nil }
            if FourCC(bytes: entry[at + 4..<at + 8]) == type { return (at + 8)..<(at + size) }
            at += size
        }
        return nil
    }

    package static func codecConfiguration(_ entry: [UInt8], type: FourCC) -> [UInt8]? {
        configurationRange(entry, type: type).map { Array(entry[$0]) }
    }

    /// In a fragmented movie the init segment cannot know the length: a media edit of duration 0 (the last
    /// one) presents everything from its media time on (FFmpeg's HLS and DASH muxers write this).
    package static func openEnded(_ timeline: TrackTimeline) -> [Edit]? {
        guard var edits = timeline.edits, let last = edits.indices.last, let mediaTime = edits[last].mediaTime,
            edits[last].duration.isZero, let span = timeline.mediaSpan
        else { return timeline.edits }
        edits[last].duration = Rational(Swift.max(span.end - mediaTime, 0)) * timeline.timeBase
        return edits
    }

    package static func readBox(_ file: any ByteSource, _ offset: Int64, _ size: Int64, what: String) throws -> [UInt8]
    {
        let data = try file.read(at: offset, count: Int(size))
        guard data.count == Int(size) else {
            throw MediaError(
                "read index", reason: "truncated: the \(what) box claims \(size) bytes but the file ends first")
        }
        return data
    }

    /// Whether metadata may hold a picture FFmpeg makes a stream of: an iTunes covr atom, or QuickTime's
    /// com.apple.quicktime.artwork key. A false alarm only costs FFmpeg's reading.
    package static func mayHoldCover(_ bytes: [UInt8]) -> Bool {
        let data = Data(bytes)
        return data.range(of: Data("covr".utf8)) != nil || data.range(of: Data("quicktime.artwork".utf8)) != nil
    }

    /// Reads mvhd and every trak; returns the fragment defaults (trex) by track id.
    private mutating func parseMoov(_ r: inout ByteReader, end: Int, fileSize: Int64, locations: Bool) throws -> [Int:
        Fragments.Defaults]
    {
        var defaults: [Int: Fragments.Defaults] = [:]
        var traks: [ByteReader] = []
        for (type, body) in r.children(until: end) {
            let b = body
            switch type {
            case "mvhd":
                let header = HeaderBox(.mvhd, payload: Array(b.bytes[b.position..<b.end]))
                movieTimescale = header?.timescale ?? 0
                movieDuration = Int64(clamping: header?.duration ?? 0)
                // rate, volume, reserved, then the matrix
                var m = ByteReader(header?.rest ?? [], from: 4 + 2 + 10, to: header?.rest.count ?? 0)
                movieMatrix = (0..<9).map { _ in Int32(bitPattern: m.u32()) }
                guard movieTimescale > 0 else {
                    throw MediaError("read index", reason: "the movie header has a zero timescale")
                }
            case "mvex":
                fragmented = true
                for (child, trexBody) in b.children(until: b.end) where child == "trex" {
                    var t = trexBody
                    t.skip(4)
                    let id = Int(t.u32())
                    defaults[id] = Fragments.Defaults(
                        descriptionIndex: t.u32(), duration: t.u32(), size: t.u32(), flags: t.u32())
                }
            case "trak": traks.append(body)
            case "udta":
                let bytes = Array(body.bytes[body.position..<body.end])
                gapless = ITunesGapless.parse(bytes)
                coverArt = coverArt || Self.mayHoldCover(bytes)
            case "meta":
                // QuickTime metadata straight under moov may hold a cover too.
                coverArt = coverArt || Self.mayHoldCover(Array(body.bytes[body.position..<body.end]))
            default: break
            }
        }
        // Edit durations are in movie ticks: read the traks once mvhd is known, wherever it stood.
        for body in traks {
            let track = try parseTrak(body, fileSize: fileSize, locations: locations)
            trakOrder.append(track?.trackID)
            if let track {
                tracks[track.trackID] = track
                dataEnd = max(dataEnd, track.dataEnd)
            }
        }
        return defaults
    }

    /// A track's boxes, flattened: the ones we need sit at fixed depths (trak/mdia/minf/stbl).
    private func parseTrak(_ body: ByteReader, fileSize: Int64, locations: Bool) throws -> Track? {
        var boxes: [FourCC: ByteReader] = [:]
        func collect(_ r: ByteReader) {
            for (type, child) in r.children(until: r.end) {
                if ["mdia", "minf", "stbl", "edts"].contains(type) {
                    collect(child)
                } else if boxes[type] == nil {
                    boxes[type] = child
                }
            }
        }
        collect(body)
        guard let tkhd = boxes["tkhd"], let mdhd = boxes["mdhd"], var hdlr = boxes["hdlr"], let stts = boxes["stts"]
        else { return nil }
        guard boxes["stz2"] == nil else { return nil }

        let trackHeader = HeaderBox(.tkhd, payload: Array(tkhd.bytes[tkhd.position..<tkhd.end]))
        let trackID = trackHeader?.trackID ?? 0
        // reserved (8), layer to reserved (8), then the matrix
        var t = ByteReader(trackHeader?.rest ?? [], from: 8 + 8, to: trackHeader?.rest.count ?? 0)
        let matrix = (0..<9).map { _ in Int32(bitPattern: t.u32()) }
        let mediaHeader = HeaderBox(.mdhd, payload: Array(mdhd.bytes[mdhd.position..<mdhd.end]))
        if let version = mediaHeader?.version, version > 1 {
            throw MediaError(
                "read index",
                reason: """
                    track \(trackID)'s media header (mdhd) says version \(version), which no reader takes (only 0 and \
                    1 exist): the file is damaged; export or download it again
                    """)
        }
        let timescale = mediaHeader?.timescale ?? 0
        var m = ByteReader(mediaHeader?.rest ?? [], from: 0, to: mediaHeader?.rest.count ?? 0)
        let language = m.u16()
        hdlr.skip(8)
        let handler = hdlr.fourCC().text
        guard timescale > 0 else { throw MediaError("read index", reason: "track \(trackID) has a zero timescale") }

        try Self.checkTables(boxes, stts: stts, handler: handler, trackID: trackID)
        var descriptions = 0
        if var stsd = boxes["stsd"] {
            stsd.skip(4)
            descriptions = Int(stsd.u32())
        }

        let layout = SampleLayout(
            stsz: boxes["stsz"], stsc: boxes["stsc"], stco: boxes["stco"], co64: boxes["co64"], fileSize: fileSize)
        let frameBytes = handler == "soun" ? Self.pcmFrameBytes(stsd: boxes["stsd"], fixedSize: layout.fixedSize) : nil
        let table = try sampleTable(
            stts: stts, ctts: boxes["ctts"], stss: boxes["stss"], layout: layout, pcmFrameBytes: frameBytes,
            locations: locations || handler == "tmcd")  // (a timecode's one sample says its start: always found)
        let edits = try boxes["elst"].map { try editList($0) }
        let timeline = TrackTimeline(timeBase: Rational(1, timescale), samples: table.samples, edits: edits)
        // The trak's bytes, header included: its body starts 8 bytes in (trak sizes fit 32 bits in a moov we read).
        let trak = (body.position - 8)..<body.end
        let header = TrackHeader(
            matrix: matrix, language: language, extendedLanguage: boxes["elng"] != nil,
            entry: boxes["stsd"].flatMap(TrackHeader.firstEntry), descriptions: descriptions,
            demuxerFrameRate: TrackHeader.demuxerFrameRate(stts: stts, timescale: timescale))
        return Track(
            trackID: trackID, handler: handler, timescale: timescale, timeline: timeline, locations: table.locations,
            pcm: table.grouped ? (frameBytes ?? layout.fixedSize, UInt32(clamping: layout.fixedSize)) : nil,
            trak: trak, descriptionCount: descriptions, dataEnd: layout.dataEnd(), header: header)
    }

    /// A track's tables against their boxes, before anything sizes a buffer by them: a table that claims far more
    /// entries than its box holds is refused (FFmpeg's demuxer would), as is a media track whose stts counts samples
    /// but whose index cannot find them (`checkMandatory`).
    private static func checkTables(_ boxes: [FourCC: ByteReader], stts: ByteReader, handler: String, trackID: Int)
        throws
    {
        for (type, entrySize): (FourCC, Int) in [
            ("stts", 8), ("ctts", 8), ("stss", 4), ("stsc", 12), ("stco", 4), ("co64", 8), ("elst", 12),
        ] {
            guard var table = boxes[type] else { continue }
            table.skip(4)
            let declared = Int64(table.u32())
            let held = Int64(table.remaining / entrySize)
            if declared > held, declared * Int64(entrySize) > 16 << 20 {
                throw MediaError(
                    "read index",
                    reason: "the \(type) table of track \(trackID) claims \(declared) entries but holds \(held)")
            }
        }
        if var stsz = boxes["stsz"] {
            stsz.skip(4)
            let fixed = stsz.u32()
            let declared = Int64(stsz.u32())
            let held = Int64(stsz.remaining / 4)
            if fixed == 0, declared > held, declared * 4 > 16 << 20 {
                throw MediaError(
                    "read index",
                    reason: "the stsz table of track \(trackID) claims \(declared) entries but holds \(held)")
            }
        }
        try checkMandatory(boxes, stts: stts, handler: handler, trackID: trackID)
    }

    /// A media track whose stts counts samples but whose index cannot find them.
    private static func checkMandatory(_ boxes: [FourCC: ByteReader], stts: ByteReader, handler: String, trackID: Int)
        throws
    {
        // A media track whose stts counts samples but which lacks a table saying how big each is or where it lies
        // (FFmpeg: "missing mandatory atoms, broken header", and it drops the track): damaged, never read as empty.
        if ["vide", "soun"].contains(handler) {
            var counts = stts
            counts.skip(4)
            let entries = min(Int(counts.u32()), counts.remaining / 8)
            let samples = (0..<entries).reduce(Int64(0)) { total, _ in
                let n = Int64(counts.u32())
                counts.skip(4)
                return total + n
            }
            let missing = [
                boxes["stsz"] == nil ? "stsz (the samples' sizes)" : nil,
                boxes["stsc"] == nil ? "stsc (the samples' chunks)" : nil,
                boxes["stco"] == nil && boxes["co64"] == nil ? "stco (the chunks' places)" : nil,
            ].compactMap { $0 }
            if samples > 0, !missing.isEmpty {
                throw MediaError(
                    "read index",
                    reason: """
                        the \(handler == "vide" ? "video" : "audio") track (ID \(trackID)) counts \(samples) samples \
                        but its index has no \(missing.joined(separator: " or ")), so no reader can find them (FFmpeg \
                        drops the track: "missing mandatory atoms"): the file is damaged; export or download it again
                        """)
            }
        }
    }

    /// Bytes per frame of uncompressed audio, from the sound sample entry (QuickTime versions 0, 1 and 2):
    /// stsz's sample size is 1 for legacy entries, so it cannot be trusted alone.
    package static func pcmFrameBytes(stsd: ByteReader?, fixedSize: Int64) -> Int64? {
        guard fixedSize > 0, var r = stsd else { return nil }
        r.skip(8)  // version+flags, entry count
        r.skip(4)  // entry size
        let format = r.fourCC()
        let pcm: Set<FourCC> = ["lpcm", "sowt", "twos", "in24", "in32", "fl32", "fl64", "raw ", "NONE", "ipcm"]
        // Other constant-size audio (µ-law, IMA) keeps stsz's size per frame, as before.
        guard pcm.contains(format) else { return fixedSize }
        r.skip(8)  // reserved, data reference index
        let version = r.u16()
        r.skip(6)  // revision, vendor
        let channels = Int64(r.u16())
        let bits = Int64(r.u16())
        r.skip(8)  // compression id, packet size, sample rate
        switch version {
        case 1:
            r.skip(8)
            let perFrame = Int64(r.u32())
            return perFrame > 0 ? perFrame : fixedSize
        case 2:
            r.skip(4 + 8 + 4 + 4 + 4 + 4)  // struct size, rate, channels, 0x7F000000, bits, flags
            let perPacket = Int64(r.u32())
            let framesPerPacket = Int64(r.u32())
            return perPacket > 0 && framesPerPacket > 0 ? perPacket / framesPerPacket : fixedSize
        default:
            let perFrame = channels * bits / 8
            return fixedSize > 1 ? fixedSize : (perFrame > 0 ? perFrame : fixedSize)
        }
    }

    /// stts (decode deltas), ctts (composition offsets, read signed as FFmpeg does), stss (sync samples; absent
    /// means every sample is sync), and each sample's place. There are never more samples than stsz sizes,
    /// whatever stts claims, and every loop is bounded by the bytes its table really holds: a hostile count
    /// cannot make work.
    ///
    /// Uncompressed audio (one stts entry of delta 1: a sample is one PCM frame) is grouped as FFmpeg's demuxer
    /// packs it: each chunk split into packets of at most 1024 frames. An hour of 48 kHz PCM is then 170,000
    /// entries, not 170 million, and the entries are the packets a copy moves.
    private func sampleTable(
        stts: ByteReader, ctts: ByteReader?, stss: ByteReader?, layout: SampleLayout,
        pcmFrameBytes: Int64?, locations wanted: Bool
    ) throws -> (samples: [SampleTiming], locations: [SampleLocation], grouped: Bool) {
        var r = stts
        r.skip(4)
        let entries = r.entries(size: 8)
        let total = layout.sampleCount
        guard total <= 50_000_000 else { throw MediaError("read index", reason: "absurd sample count (\(total))") }
        var runs: [(count: Int, delta: Int64)] = []
        for _ in 0..<entries { runs.append((Int(r.u32()), Int64(r.u32()))) }

        if let frameBytes = pcmFrameBytes, runs.count == 1, runs[0].delta == 1, ctts == nil {
            var samples: [SampleTiming] = []
            var locations: [SampleLocation] = []
            var dts: Int64 = 0
            let frames = Int64(min(runs[0].count, total))
            layout.forEachChunk { offset, perChunk in
                var left = min(Int64(perChunk), frames - dts)
                var at = offset
                while left > 0 {
                    let n = min(left, 1024)
                    samples.append(SampleTiming(dts: dts, pts: dts, duration: n, isSync: true))
                    if wanted { locations.append(SampleLocation(offset: at, size: n &* frameBytes)) }
                    at = at &+ n &* frameBytes
                    dts += n
                    left -= n
                }
                return dts < frames
            }
            return (samples, locations, true)
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
                let count = Int(c.u32())
                let offset = Int64(Int32(bitPattern: c.u32()))
                for _ in 0..<min(count, samples.count - i) {
                    samples[i].pts = samples[i].dts &+ offset
                    i += 1
                }
            }
        }
        if var s = stss {
            s.skip(4)
            for _ in 0..<s.entries(size: 4) {
                let n = Int(s.u32()) - 1
                if n >= 0 && n < samples.count { samples[n].isSync = true }
            }
        }
        return (samples, wanted ? layout.locations(count: samples.count) : [], false)
    }

    private func editList(_ body: ByteReader) throws -> [Edit] {
        var r = body
        let version = r.u8()
        r.skip(3)
        var edits: [Edit] = []
        for _ in 0..<r.entries(size: version == 1 ? 20 : 12) {
            let duration = version == 1 ? Int64(clamping: r.u64()) : Int64(r.u32())
            let mediaTime = version == 1 ? Int64(bitPattern: r.u64()) : Int64(Int32(bitPattern: r.u32()))
            let rate = Rational(Int64(Int16(bitPattern: r.u16())) * 65536 + Int64(r.u16()), 65536)
            // -1 marks an empty edit; any other negative media time is invalid (players reject or misplay it).
            guard mediaTime >= -1 else {
                throw MediaError("read index", reason: "invalid edit list: media time \(mediaTime)")
            }
            edits.append(
                Edit(
                    mediaTime: mediaTime == -1 ? nil : mediaTime,
                    duration: Rational(duration, max(movieTimescale, 1)), rate: rate))
        }
        return edits
    }
}
