import Foundation
import LoopAnalysis
import LoopIndex

/// A Matroska/WebM segment's Duration (Info > Duration, in TimestampScale units): the length browsers and
/// FFmpeg give the whole file. FFmpeg's muxer writes the end of the last block, which for Opus counts the codec
/// delay and the samples its DiscardPadding drops: a looping `<video>` then waits those milliseconds each loop.
/// Read from the file's head (Info precedes the clusters); rewritten in place, the 8-byte float FFmpeg reserves.
enum SegmentDuration {
    struct Found {
        var seconds: Rational
        /// File offset and width (4 or 8) of the float, and the scale it counts in (nanoseconds a unit).
        var offset: Int, width: Int, scale: Int64
    }

    /// nil: not Matroska, no Duration (a live recording), or an Info that is not where a reader looks first.
    static func read(_ path: String) -> Found? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 1 << 20) else { return nil }
        return parse([UInt8](data))
    }

    static func parse(_ b: [UInt8]) -> Found? {
        var p = 0
        func vint(_ keepMarker: Bool) -> (value: Int64, unknown: Bool)? {
            guard p < b.count, b[p] != 0 else { return nil }
            let length = b[p].leadingZeroBitCount + 1
            guard p + length <= b.count else { return nil }
            var v = Int64(keepMarker ? b[p] : b[p] & (0xff >> length))
            var all = v == Int64(0xff >> length)
            for i in 1..<length {
                v = v << 8 | Int64(b[p + i])
                all = all && b[p + i] == 0xff
            }
            p += length
            return (v, all && !keepMarker)
        }
        func element() -> (id: Int64, size: Int64?, start: Int)? {
            guard let id = vint(true), let size = vint(false) else { return nil }
            return (id.value, size.unknown ? nil : size.value, p)
        }
        // EBML header, then the Segment; its children until the first Cluster.
        guard let header = element(), header.id == 0x1A45_DFA3, let headerSize = header.size else { return nil }
        p += Int(headerSize)
        guard let segment = element(), segment.id == 0x1853_8067 else { return nil }
        while let child = element() {
            if child.id == 0x1F43_B675 { return nil }
            guard let size = child.size else { return nil }
            guard child.id == 0x1549_A966 else {
                p = child.start + Int(size)
                continue
            }
            // Info: TimestampScale (default 1 ms) and Duration.
            let end = min(child.start + Int(size), b.count)
            var scale: Int64 = 1_000_000
            var duration: (offset: Int, width: Int)?
            while p < end, let e = element(), let s = e.size {
                if e.id == 0x2AD7B1, s <= 8 {
                    scale = (0..<Int(s)).reduce(Int64(0)) { $0 << 8 | Int64(b[e.start + $1]) }
                }
                if e.id == 0x4489, s == 4 || s == 8, e.start + Int(s) <= b.count { duration = (e.start, Int(s)) }
                p = e.start + Int(s)
            }
            guard let duration, scale > 0 else { return nil }
            let bits = (0..<duration.width).reduce(UInt64(0)) { $0 << 8 | UInt64(b[duration.offset + $1]) }
            let units = duration.width == 8 ? Double(bitPattern: bits) : Double(Float(bitPattern: UInt32(bits)))
            guard units.isFinite, units >= 0 else { return nil }
            // The file's own float, to the nanosecond.
            return Found(
                seconds: Rational(Int64((units * Double(scale)).rounded()), 1_000_000_000), offset: duration.offset,
                width: duration.width, scale: scale)
        }
        return nil
    }

    /// Rewrites the Duration to `seconds` (in the file's own units, rounded to its tick).
    static func write(_ path: String, seconds: Rational) throws {
        guard let found = read(path) else {
            throw MediaError("finalize", reason: "the Matroska file has no Duration to set")
        }
        let units = Double((seconds * 1_000_000_000 / Rational(found.scale)).rounded)
        let bytes: [UInt8] =
            found.width == 8
            ? (0..<8).map { UInt8(truncatingIfNeeded: units.bitPattern >> (56 - 8 * $0)) }
            : (0..<4).map { UInt8(truncatingIfNeeded: Float(units).bitPattern >> (24 - 8 * $0)) }
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw MediaError("finalize", reason: "cannot reopen \(path)")
        }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(found.offset))
        try handle.write(contentsOf: bytes)
    }
}

extension OutputFile {
    /// Finishes the file; a Matroska or WebM one then gets `duration` as its Segment Duration (the muxer writes
    /// where its last block ends, which counts what DiscardPadding and CodecDelay hide).
    func finish(presenting duration: Rational) throws {
        try finish()
        if isMatroska { try SegmentDuration.write(path, seconds: duration) }
    }
}
