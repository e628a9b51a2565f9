import Foundation

/// Big-endian reads over a byte buffer; reads past the end yield zeros rather than trapping (hostile input).
package struct ByteReader {
    package let bytes: [UInt8]
    package var position: Int
    package let end: Int

    package init(_ data: Data) {
        bytes = [UInt8](data)
        position = 0
        end = bytes.count
    }
    package init(_ bytes: [UInt8], from: Int, to: Int) {
        self.bytes = bytes
        position = from
        end = to
    }

    package var remaining: Int { max(end - position, 0) }
    /// A table's entry count (the next u32), capped by the entries of `size` bytes that really follow it.
    package mutating func entries(size: Int) -> Int { min(Int(u32()), remaining / max(size, 1)) }
    package mutating func skip(_ n: Int) { position = min(position + max(n, 0), end) }
    package mutating func u8() -> UInt8 {
        guard position < end else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }
    package mutating func u16() -> UInt16 { UInt16(u8()) << 8 | UInt16(u8()) }
    package mutating func u32() -> UInt32 { UInt32(u16()) << 16 | UInt32(u16()) }
    package mutating func u64() -> UInt64 { UInt64(u32()) << 32 | UInt64(u32()) }
    package mutating func fourCC() -> FourCC { FourCC(u32()) }

    /// The child boxes from the current position to `until`, each as a reader over its body.
    package func children(until: Int) -> [(FourCC, ByteReader)] {
        var r = self
        var out: [(FourCC, ByteReader)] = []
        while r.position + 8 <= min(until, end) {
            let start = r.position
            var size = Int(r.u32())
            let type = r.fourCC()
            if size == 1 { size = Int(clamping: r.u64()) } else if size == 0 { size = until - start }
            let headerSize = r.position - start
            guard size >= headerSize, size <= until - start else { break }
            out.append((type, ByteReader(bytes, from: r.position, to: start + size)))
            r.position = start + size
        }
        return out
    }
}

package func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
package func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
}
package func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xffff_ffff)) }
