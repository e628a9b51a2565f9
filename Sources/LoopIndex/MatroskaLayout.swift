/// A Matroska or WebM file's top-level layout, read from element headers alone: whether it breaks off inside an
/// element (an upload or a recording cut short, `head -c`, which FFmpeg reads as a healthy shorter clip: "File ended
/// prematurely" in its log only), and whether it has Cues (the index a player seeks by; a recorder recording in
/// timeslices writes none, nor a Duration). A recorder writes its Segment and Clusters with unknown sizes (it cannot
/// go back to fill them in), so the blocks of such a cluster are walked one by one; a known size reaching past the
/// end says it at once. EBML: RFC 8794; Matroska: RFC 9559.
package enum MatroskaLayout {
    static let ebmlHeader: UInt32 = 0x1A45_DFA3
    static let segment: UInt32 = 0x1853_8067
    static let cluster: UInt32 = 0x1F43_B675
    static let cues: UInt32 = 0x1C53_BB6B
    /// What the walk found.
    package struct Scan: Equatable {
        /// The byte at which the file breaks off inside an element; nil where every element it starts ends in it.
        package var brokenOff: Int64?
        /// A Cues element is among the Segment's children.
        package var cues = false
    }

    /// The byte at which the file breaks off inside an element, or nil where every element it starts ends in it.
    package static func brokenOff(_ file: any ByteSource, limit: Int = 2_000_000) throws -> Int64? {
        try scan(file, limit: limit).brokenOff
    }

    /// `limit`: elements looked at before giving up (a file that large is left to FFmpeg: whole).
    package static func scan(_ source: any ByteSource, limit: Int = 2_000_000) throws -> Scan {
        let size = source.size
        let file = Window(source)
        var at: Int64 = 0
        var seen = 0
        var out = Scan()
        var segmentEnd = size
        while at < segmentEnd, seen < limit {
            seen += 1
            let parsed: (id: UInt32, size: Int64?, length: Int)?
            do { parsed = try header(file, at: at) } catch is NotAnElement { return out }
            guard let head = parsed else {
                out.brokenOff = at
                return out
            }
            let end = head.size.map { at + Int64(head.length) + $0 }
            if let end, end > size {
                out.brokenOff = at
                return out
            }
            if head.id == cues { out.cues = true }
            switch head.id {
            case ebmlHeader:
                at = end ?? size
            case segment:
                // Bytes after a Segment of known size are not its (a writer's padding).
                if let end { segmentEnd = end }
                at += Int64(head.length)
            case cluster:
                // A Cluster of unknown size: its blocks follow, up to the next of the Segment's children.
                at = end ?? at + Int64(head.length)
            default:
                // An unknown size is only a Segment's or a Cluster's: another element's runs to the end.
                guard let end else { return out }
                at = end
            }
        }
        return out
    }

    /// Bytes that are no element's header where one would start: padding a writer left after its last element, not a
    /// cut.
    struct NotAnElement: Error {}

    /// An element's ID, its data size (nil: unknown) and the header's length; nil where the file ends inside the
    /// header; NotAnElement where its bytes are no EBML.
    static func header(_ file: Window, at offset: Int64) throws -> (id: UInt32, size: Int64?, length: Int)? {
        let bytes = try file.read(at: offset, count: 12)
        guard let first = bytes.first, first != 0 else { throw NotAnElement() }
        let idLength = first.leadingZeroBitCount + 1
        guard idLength <= 4 else { throw NotAnElement() }
        guard bytes.count > idLength else { return nil }
        let id = bytes[0..<idLength].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let marker = bytes[idLength]
        guard marker != 0 else { throw NotAnElement() }
        let sizeLength = marker.leadingZeroBitCount + 1
        guard bytes.count >= idLength + sizeLength else { return nil }
        var value = Int64(marker & (0xFF >> sizeLength))
        var allOnes = value == Int64(0xFF >> sizeLength)
        for b in bytes[(idLength + 1)..<(idLength + sizeLength)] {
            value = value << 8 | Int64(b)
            allOnes = allOnes && b == 0xFF
        }
        return (id, allOnes ? nil : value, idLength + sizeLength)
    }

    /// Reads a file a window at a time: a recording's block headers are a few bytes apart, and a remote file is read by
    /// range requests.
    final class Window {
        let source: any ByteSource
        var start: Int64 = 0
        var bytes: [UInt8] = []
        init(_ source: any ByteSource) { self.source = source }

        func read(at offset: Int64, count: Int) throws -> [UInt8] {
            if offset < start || offset + Int64(count) > start + Int64(bytes.count) {
                start = offset
                bytes = try source.read(at: offset, count: max(count, 1 << 16))
            }
            let from = Int(offset - start)
            return Array(bytes[from..<min(bytes.count, from + count)])
        }
    }
}
