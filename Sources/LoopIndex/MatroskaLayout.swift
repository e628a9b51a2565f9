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
    /// The Segment's children a Cluster of unknown size ends at (RFC 9559 section 5.1).
    static let segmentChildren: Set<UInt32> = [
        0x114D_9B74, 0x1549_A966, 0x1654_AE6B, cluster, cues, 0x1941_A469, 0x1043_A770, 0x1254_C367,
    ]

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
        var inCluster = false
        while at < size, seen < limit {
            seen += 1
            guard let head = try header(file, at: at) else {
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
                at += Int64(head.length)
            case cluster:
                inCluster = head.size == nil
                at = inCluster ? at + Int64(head.length) : end ?? size
            default:
                if inCluster, segmentChildren.contains(head.id) { inCluster = false }
                // An unknown size is only a Segment's or a Cluster's: another element's runs to the end.
                guard let end else { return out }
                at = end
            }
        }
        return out
    }

    /// An element's ID, its data size (nil: unknown) and the header's length; nil where the header itself is cut
    /// off or is no EBML.
    static func header(_ file: Window, at offset: Int64) throws -> (id: UInt32, size: Int64?, length: Int)? {
        let bytes = try file.read(at: offset, count: 12)
        guard let first = bytes.first, first != 0 else { return nil }
        let idLength = first.leadingZeroBitCount + 1
        guard idLength <= 4, bytes.count > idLength else { return nil }
        let id = bytes[0..<idLength].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let marker = bytes[idLength]
        guard marker != 0 else { return nil }
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
