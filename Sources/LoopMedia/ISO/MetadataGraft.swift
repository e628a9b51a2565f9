import LoopIndex

/// What the source says besides its timing, put back into a movie FFmpeg's muxer wrote. The muxer keeps only the
/// tags its dictionary knows (title, date, location as ©xyz) and writes its own handler names, header times and
/// sample-description boxes: mdta keys, XMP, a camera maker's boxes, a track's name and language, colour and HDR
/// boxes it does not write would be lost. Here the source's own boxes replace the muxer's, byte for byte, except
/// the timing the plan rewrites (durations, edits, sample tables, iTunSMPB, Nero chapters), as `KeptMetadata`
/// lists them for the output check.
struct MetadataGraft {
    /// The source's movie box and its top-level boxes besides the structure.
    var moov: Box
    var topLevel: [(type: FourCC, bytes: [UInt8])]
    /// Each written track's ID and the source track it copies (fix); empty where the tracks are new (a stitched
    /// reel takes only the first clip's movie-level metadata).
    var tracks: [Int: Int]
    /// The source's file type box (its brands: mp42, 3gp6, M4A ...), less a fragmented source's promises of
    /// fragments, for the muxer's (which names isom whatever the source was) where both are QuickTime or neither.
    var fileType: [UInt8]
    /// Whether the source is a QuickTime movie (its handler names Pascal strings).
    var sourceQuickTime: Bool

    init?(source iso: ISOFile, tracks: [Int: Int]) {
        guard let moov = try? Box.parse(iso.moov, from: 0, to: iso.moov.count).first, moov.type == "moov" else {
            return nil
        }
        self.moov = moov
        topLevel = iso.otherBoxes
        self.tracks = tracks
        fileType = MP4Writer.fileType(iso)
        sourceQuickTime = iso.ftyp.map { $0.count >= 12 && FourCC(bytes: $0[8..<12]) == "qt  " } ?? true
    }

    /// The muxed movie box with the source's metadata in place of the muxer's.
    /// `quickTime`: the muxed file is a QuickTime movie (its handler names are written in that form).
    func apply(to out: inout Box, quickTime: Bool? = nil) {
        // Movie level: the source's user data, metadata and other boxes; the muxer's chapters (chpl) stay.
        let muxed = out.first("udta")?.payload ?? []
        let chapters = ByteReader(muxed, from: 0, to: muxed.count).children(until: muxed.count).filter {
            $0.0 == "chpl"
        }.map { Box($0.0, Array(muxed[$0.1.position..<$0.1.end])) }
        out.children.removeAll { !Self.movieStructure.contains($0.type) }
        for child in moov.children where !Self.movieStructure.contains(child.type) {
            var child = child
            if child.type == "udta" { child = Self.withoutTiming(child) + chapters }
            out.children.append(child)
        }
        if !chapters.isEmpty && out.first("udta") == nil { out.children.append(Box("udta", children: chapters)) }
        out.withChild("mvhd") { mvhd in
            guard let source = moov.first("mvhd")?.payload.flatMap({ HeaderBox(.mvhd, payload: $0) }),
                let payload = mvhd.payload, var header = HeaderBox(.mvhd, payload: payload)
            else { return }
            header.creation = source.creation
            header.modification = source.modification
            // Rate, volume and matrix are the source's; the next track ID the muxer's.
            header.rest = Array(source.rest.dropLast(4)) + header.rest.suffix(4)
            mvhd.payload = header.payload
        }
        for i in out.children.indices where out.children[i].type == "trak" {
            guard let id = ISOEditor.trackID(out.children[i]), let sourceID = tracks[id],
                let source = moov.children.first(where: { $0.type == "trak" && ISOEditor.trackID($0) == sourceID })
            else { continue }
            Self.graft(source, into: &out.children[i], quickTime: quickTime ?? sourceQuickTime)
        }
    }

    /// The file type box to write in place of the muxer's `muxed`: the source's, where the muxer wrote the same
    /// family (QuickTime's `qt  ` or an ISO brand); the muxer's where the container changed (`--to mp4` of a MOV).
    func fileType(replacing muxed: [UInt8]) -> [UInt8] {
        guard muxed.count >= 12, fileType.count >= 12 else { return muxed }
        let quickTime = { (ftyp: [UInt8]) in FourCC(bytes: ftyp[8..<12]) == "qt  " }
        return quickTime(muxed) == quickTime(fileType) ? fileType : muxed
    }

    /// A movie's children that are its structure or timing, the muxer's to write.
    static let movieStructure: Set<FourCC> = ["mvhd", "trak", "mvex", "iods"]

    /// A udta without what the plan rewrites: Nero chapters and iTunSMPB (a stale one would tell iTunes-family
    /// players to skip the wrong number of samples; the edit list says the priming).
    static func withoutTiming(_ udta: Box) -> Box {
        guard let payload = udta.payload else { return udta }
        var children: [Box] = []
        for (type, body) in ByteReader(payload, from: 0, to: payload.count).children(until: payload.count)
        where type != "chpl" {
            let bytes = Array(payload[body.position..<body.end])
            children.append(type == "meta" ? withoutGapless(meta: bytes) : Box(type, bytes))
        }
        return Box("udta", children: children)
    }

    /// An iTunes metadata box with its iTunSMPB entry left out.
    static func withoutGapless(meta payload: [UInt8]) -> Box {
        guard ITunesGapless.find(in: payload) != nil else { return Box("meta", payload) }
        // meta: version and flags (ISO), then hdlr, ilst and the rest.
        var fullBox = FourCC(bytes: payload.dropFirst(4)) != "hdlr"
        if payload.count < 4 { fullBox = false }
        let start = fullBox ? 4 : 0
        var out = Array(payload.prefix(start))
        for (type, body) in ByteReader(payload, from: start, to: payload.count).children(until: payload.count) {
            var bytes = Array(payload[body.position..<body.end])
            if type == "ilst" {
                var kept: [UInt8] = []
                for (item, entry) in ByteReader(bytes, from: 0, to: bytes.count).children(until: bytes.count) {
                    let entryBytes = Array(bytes[entry.position..<entry.end])
                    if ITunesGapless.index(of: Array("iTunSMPB".utf8), in: entryBytes, from: 0) == nil {
                        kept += Box(item, entryBytes).bytes
                    }
                }
                bytes = kept
            }
            out += Box(type, bytes).bytes
        }
        return Box("meta", out)
    }

    /// A track's header fields (but its ID and duration), media header times and language, handler, user data,
    /// metadata and other boxes, and its sample description's describing boxes, from `source`.
    static func graft(_ source: Box, into trak: inout Box, quickTime: Bool) {
        trak.withChild("tkhd") { headerFields(of: source.first("tkhd"), into: &$0, .tkhd) }
        let kept: Set<FourCC> = ["tkhd", "edts", "mdia", "tref"]
        trak.children.removeAll { !kept.contains($0.type) }
        trak.children += source.children.filter { !kept.contains($0.type) }
        guard let sourceMedia = source.first("mdia") else { return }
        trak.withChild("mdia") { mdia in
            mdia.withChild("mdhd") { headerFields(of: sourceMedia.first("mdhd"), into: &$0, .mdhd) }
            if let handler = sourceMedia.first("hdlr") {
                // The name in the output's form (a MOV's Pascal string would read as "\u{6}Camera" in an MP4).
                let payload = HandlerName.payload(handler.payload ?? [], quickTime: quickTime)
                mdia.withChild("hdlr") { $0 = Box("hdlr", payload) }
            }
            guard let entry = firstEntry(sourceMedia) else { return }
            mdia.withSampleTable { stbl in
                stbl.withChild("stsd") { stsd in
                    if let payload = stsd.payload { stsd.payload = describing(from: entry, into: payload) }
                }
            }
        }
    }

    /// A tkhd's or mdhd's fields from the source's but its track ID (or timescale) and duration: the flags (tkhd),
    /// creation and modification times, and the rest (layer, volume, matrix and size; the language).
    static func headerFields(of source: Box?, into box: inout Box, _ kind: HeaderBox.Kind) {
        guard let from = source?.payload.flatMap({ HeaderBox(kind, payload: $0) }), let payload = box.payload,
            var header = HeaderBox(kind, payload: payload)
        else { return }
        if kind == .tkhd { header.flags = from.flags }
        header.creation = from.creation
        header.modification = from.modification
        header.rest = from.rest
        box.payload = header.payload
    }

    /// The source's first sample description, whole.
    static func firstEntry(_ mdia: Box) -> [UInt8]? {
        guard let stsd = mdia.first("minf")?.first("stbl")?.first("stsd")?.payload, stsd.count > 16 else { return nil }
        let size = Int(FourCC(bytes: stsd[8..<12]).value)
        guard size >= 16, 8 + size <= stsd.count else { return nil }
        return Array(stsd[8..<8 + size])
    }

    /// An stsd payload whose first entry has the describing boxes of `source` (an entry, header included): each
    /// replaces the muxer's of its type, or is added after the entry's other children.
    static func describing(from source: [UInt8], into stsd: [UInt8]) -> [UInt8] {
        guard stsd.count > 16 else { return stsd }
        let size = Int(FourCC(bytes: stsd[8..<12]).value)
        guard size >= 16, 8 + size <= stsd.count,
            let sourceStart = KeptMetadata.childrenStart(source, entryBody: 8..<source.count),
            let start = KeptMetadata.childrenStart(stsd, entryBody: 16..<8 + size)
        else { return stsd }
        let wanted = ByteReader(source, from: sourceStart, to: source.count).children(until: source.count)
            .filter { KeptMetadata.describing.contains($0.0) }
        guard !wanted.isEmpty else { return stsd }
        let types = Set(wanted.map { $0.0 })
        var children: [UInt8] = []
        for (type, body) in ByteReader(stsd, from: start, to: 8 + size).children(until: 8 + size)
        where !types.contains(type) {
            children += Box(type, Array(stsd[body.position..<body.end])).bytes
        }
        for (type, body) in wanted { children += Box(type, Array(source[body.position..<body.end])).bytes }
        let entry = Array(stsd[16..<start]) + children
        return Array(stsd[0..<8]) + be32(UInt32(entry.count + 8)) + Array(stsd[12..<16]) + entry
            + Array(stsd[(8 + size)...])
    }
}

extension Box {
    fileprivate static func + (udta: Box, more: [Box]) -> Box {
        var udta = udta
        udta.children += more
        return udta
    }
}
