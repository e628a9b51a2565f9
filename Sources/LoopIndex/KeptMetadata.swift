import Foundation

/// What an MP4 or MOV says besides its timing, as a list of places and bytes: tags (QuickTime's © entries, iTunes'
/// ilst, `mdta` keys), XMP and camera makers' uuid boxes, the movie's and each track's header fields other than
/// durations, handler names, languages, the display matrix, and the boxes of a sample description that describe
/// the picture or the sound (colour, aspect, clean aperture, HDR mastering, 360° projection, channel layout).
///
/// The writers copy these boxes whole; this reader walks both files again, with none of the writers' code, so the
/// output check can hold every item of the input that the plan does not rewrite to the same bytes in the output.
/// What a plan rewrites is timing and is left out here: durations and timescales, edit lists, sample tables,
/// iTunSMPB (the gapless figures of the cut) and Nero chapters (moved with the cut).
package enum KeptMetadata {
    package struct Item: Equatable, Sendable {
        /// Where it is: "movie: udta ©nam", "track 1: sample description colr", "file: uuid (XMP)".
        package var place: String
        /// The track it belongs to (its track ID in the file it was read from), nil for the movie's and file's.
        package var track: Int?
        package var bytes: [UInt8]

        package init(place: String, track: Int?, bytes: [UInt8]) {
            self.place = place
            self.track = track
            self.bytes = bytes
        }
    }

    /// Top-level boxes that are the file's structure, not what it says.
    package static let structural: Set<FourCC> = [
        "ftyp", "moov", "mdat", "free", "skip", "wide", "moof", "mfra", "sidx", "styp", "ssix", "prft", "emsg", "pdin",
    ]
    /// A sample description's children that describe the picture or the sound, not how it is coded.
    package static let describing: Set<FourCC> = [
        "colr", "pasp", "clap", "mdcv", "clli", "st3d", "sv3d", "SA3D", "fiel", "gama", "CoLL", "SmDm", "amve",
        "chan", "cmpd", "uncC",
    ]
    /// XMP's uuid (ISO/IEC 14496-12 and Adobe's XMP specification part 3).
    static let xmpUUID: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]

    /// The items of the ISO file `file` reads (nil where it has no movie box).
    package static func items(of file: any ByteSource) throws -> [Item]? {
        let boxes = try ISOFile.topLevelBoxes(file, fileSize: file.size)
        guard let moov = boxes.first(where: { $0.type == "moov" }), moov.size < 256 << 20 else { return nil }
        return items(top: try topLevel(file, boxes), moov: try file.read(at: moov.offset, count: Int(moov.size)))
    }

    /// The top-level boxes other than the structure, whole (each under 16 MiB: metadata, not media).
    package static func topLevel(_ file: any ByteSource, _ boxes: [(type: FourCC, offset: Int64, size: Int64)])
        throws -> [(type: FourCC, bytes: [UInt8])]
    {
        try boxes.filter { !structural.contains($0.type) && $0.size < 16 << 20 }.map {
            ($0.type, try file.read(at: $0.offset, count: Int($0.size)))
        }
    }

    /// The items of a file: its top-level boxes other than the structure (`top`: type and bytes, header included,
    /// of each box under `limit` bytes) and what its movie box says.
    package static func items(top: [(type: FourCC, bytes: [UInt8])], moov: [UInt8]) -> [Item] {
        var items: [Item] = []
        var seen: [FourCC: Int] = [:]
        for box in top where !structural.contains(box.type) {
            let n = seen[box.type, default: 0]
            seen[box.type] = n + 1
            items.append(
                Item(
                    place: "file: \(name(box.type, box.bytes, body: 8))\(n > 0 ? " #\(n + 1)" : "")",
                    track: nil, bytes: box.bytes))
        }
        let reader = ByteReader(moov, from: 0, to: moov.count)
        guard let (type, body) = reader.children(until: moov.count).first, type == "moov" else { return items }
        var movieSeen: [FourCC: Int] = [:]
        for (child, r) in body.children(until: body.end) {
            let bytes = Array(moov[r.position..<r.end])
            switch child {
            case "mvhd":
                if let header = HeaderBox(.mvhd, payload: bytes) {
                    // The matrix, rate and volume; the next track ID is the writer's to choose.
                    items.append(
                        Item(
                            place: "movie: header (times, rate, volume, matrix)", track: nil,
                            bytes: header.flags + be64(header.creation) + be64(header.modification)
                                + header.rest.dropLast(4)))
                }
            case "trak": items += track(moov, r)
            case "udta", "meta": items += container(moov, r, type: child, place: "movie: \(child.text)", track: nil)
            case "mvex", "iods": continue
            default:
                let n = movieSeen[child, default: 0]
                movieSeen[child] = n + 1
                items.append(
                    Item(
                        place: "movie: \(name(child, bytes, body: 0))\(n > 0 ? " #\(n + 1)" : "")", track: nil,
                        bytes: bytes))
            }
        }
        return items
    }

    /// A trak's items: its header (but the duration), its handler and media header's times and language, its user
    /// data and metadata, and its first sample description's describing boxes. Keyed by its track ID.
    static func track(_ moov: [UInt8], _ trak: ByteReader) -> [Item] {
        let children = trak.children(until: trak.end)
        guard let tkhd = children.first(where: { $0.0 == "tkhd" }).map({ Array(moov[$0.1.position..<$0.1.end]) }),
            let header = HeaderBox(.tkhd, payload: tkhd)
        else { return [] }
        let id = header.trackID
        let place = "track \(id):"
        var items = [
            Item(
                place: "\(place) header (flags, times, layer, volume, matrix, size)", track: id,
                bytes: header.flags + be64(header.creation) + be64(header.modification) + header.rest)
        ]
        for (type, r) in children {
            switch type {
            case "tkhd", "edts", "tref": continue
            case "udta", "meta": items += container(moov, r, type: type, place: "\(place) \(type.text)", track: id)
            case "mdia":
                for (child, m) in r.children(until: r.end) {
                    let bytes = Array(moov[m.position..<m.end])
                    if child == "mdhd", let media = HeaderBox(.mdhd, payload: bytes) {
                        items.append(
                            Item(
                                place: "\(place) media header (times, language)", track: id,
                                bytes: be64(media.creation) + be64(media.modification) + media.rest))
                    } else if child == "hdlr" {
                        // (The name's text: QuickTime's Pascal string and ISO's C string say the same.)
                        let said = Array(bytes.prefix(HandlerName.nameStart)) + HandlerName.text(bytes)
                        items.append(Item(place: "\(place) handler (type and name)", track: id, bytes: said))
                    } else if child == "minf" {
                        items += sampleDescription(moov, m, place: place, track: id)
                    }
                }
            default:
                items.append(
                    Item(
                        place: "\(place) \(name(type, Array(moov[r.position..<r.end]), body: 0))", track: id,
                        bytes: Array(moov[r.position..<r.end])))
            }
        }
        return items
    }

    /// The describing boxes of a track's first sample description (minf/stbl/stsd), wherever its kind puts its
    /// children: after the visual entry's 78 bytes, or the sound entry's 20 plus its version's fields.
    static func sampleDescription(_ moov: [UInt8], _ minf: ByteReader, place: String, track: Int) -> [Item] {
        guard let stbl = minf.children(until: minf.end).first(where: { $0.0 == "stbl" })?.1,
            var stsd = stbl.children(until: stbl.end).first(where: { $0.0 == "stsd" })?.1, stsd.remaining >= 16
        else { return [] }
        stsd.skip(8)
        guard let (_, body) = stsd.children(until: stsd.end).first,
            let start = childrenStart(moov, entryBody: body.position..<body.end)
        else { return [] }
        var seen: [FourCC: Int] = [:]
        return ByteReader(moov, from: start, to: body.end).children(until: body.end).filter {
            describing.contains($0.0)
        }.map { type, r in
            let n = seen[type, default: 0]
            seen[type] = n + 1
            return Item(
                place: "\(place) sample description \(type.text)\(n > 0 ? " #\(n + 1)" : "")", track: track,
                bytes: Array(moov[r.position..<r.end]))
        }
    }

    /// Where a sample entry's child boxes start (its body, after the 8-byte header, is `entryBody` in `bytes`):
    /// after a visual entry's 78 bytes, or a sound entry's 28 and its version's fields (QuickTime's versions 1 and
    /// 2 add 16 and 36). The layout whose children cover the body exactly is the entry's; nil when none does.
    package static func childrenStart(_ bytes: [UInt8], entryBody: Range<Int>) -> Int? {
        var starts = [entryBody.lowerBound + 78]
        if entryBody.count >= 28 {
            var r = ByteReader(bytes, from: entryBody.lowerBound + 8, to: entryBody.upperBound)
            let version = Int(r.u16())
            starts.append(entryBody.lowerBound + 28 + (version == 1 ? 16 : version == 2 ? 36 : 0))
        }
        return starts.first { start in
            guard start < entryBody.upperBound else { return false }
            let children = ByteReader(bytes, from: start, to: entryBody.upperBound).children(
                until: entryBody.upperBound)
            return !children.isEmpty && children.reduce(start) { max($0, $1.1.end) } == entryBody.upperBound
        }
    }

    /// A udta or meta box's children, each an item (an ilst's each entry), but for the timing the plan rewrites:
    /// Nero chapters and iTunSMPB.
    static func container(_ moov: [UInt8], _ box: ByteReader, type: FourCC, place: String, track: Int?) -> [Item] {
        var body = box
        if type == "meta" {
            // A full box in ISO files; QuickTime's meta has no version and flags (its first child starts at once).
            var probe = body
            probe.skip(4)
            if FourCC(probe.u32()) != "hdlr" { body.skip(4) }
        }
        var items: [Item] = []
        var seen: [FourCC: Int] = [:]
        for (child, r) in body.children(until: body.end) {
            let bytes = Array(moov[r.position..<r.end])
            let n = seen[child, default: 0]
            seen[child] = n + 1
            let at = "\(place) \(name(child, bytes, body: 0))\(n > 0 ? " #\(n + 1)" : "")"
            switch child {
            case "chpl": continue
            case "meta", "ilst": items += container(moov, r, type: child, place: at, track: track)
            default:
                if type == "ilst", ITunesGapless.index(of: Array("iTunSMPB".utf8), in: bytes, from: 0) != nil {
                    continue
                }
                items.append(Item(place: at, track: track, bytes: bytes))
            }
        }
        return items
    }

    /// The text an item holds as a tag, nil where it is not one: an ilst entry whose `data` box is of well-known
    /// type 1 (UTF-8), or a QuickTime user-data text (a 16-bit length, a language, then exactly that much text).
    /// An item's bytes are its box's body.
    package static func text(_ item: Item) -> String? {
        let b = item.bytes
        guard b.count >= 4 else { return nil }
        var r = ByteReader(b, from: 0, to: b.count)
        if b.count >= 16, FourCC(bytes: b[4..<8]) == "data" {
            let size = Int(r.u32())
            r.skip(4)
            guard r.u32() == 1, size >= 16, size <= b.count else { return nil }
            return String(bytes: b[16..<size], encoding: .utf8)
        }
        let length = Int(r.u16())
        guard length > 0, 4 + length == b.count else { return nil }
        return String(bytes: b[4...], encoding: .utf8)
    }

    /// A box's name for people: its four characters, an ilst key's index, or XMP for XMP's uuid.
    static func name(_ type: FourCC, _ bytes: [UInt8], body: Int) -> String {
        if type == "uuid", bytes.count >= body + 16 {
            return Array(bytes[body..<body + 16]) == xmpUUID ? "uuid (XMP)" : "uuid"
        }
        if type.value < 0x100 { return "key \(type.value)" }
        return type.text
    }

    /// The input's items the output lacks or holds otherwise, in words (empty when everything is kept). `tracks`:
    /// the output's track ID of each input track kept; items of the tracks not kept are not looked for.
    package static func differences(input: [Item], output: [Item], tracks: [Int: Int]) -> [String] {
        var out: [String] = []
        var available = output
        for item in input {
            var wanted = item
            if let id = item.track {
                guard let to = tracks[id] else { continue }
                wanted.track = to
                wanted.place = item.place.replacingOccurrences(of: "track \(id):", with: "track \(to):")
            }
            if let i = available.firstIndex(of: wanted) {
                available.remove(at: i)
            } else if available.contains(where: { $0.place == wanted.place }) {
                out.append("\(item.place) differs")
            } else {
                out.append("\(item.place) is missing")
            }
        }
        return out
    }
}
