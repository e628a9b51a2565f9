/// The checksum every Ogg page carries (RFC 3533): CRC-32 with the polynomial 0x04C11DB7, unreflected, no initial
/// or final inversion, over the whole page with its own checksum field (bytes 22-25) read as zero. A page whose bytes
/// changed after it was written fails it, and every reader (libogg, FFmpeg) skips that page and what it holds.
enum OggChecksum {
    static let table: [UInt32] = (0..<256).map { n in
        var crc = UInt32(n) << 24
        for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        return crc
    }

    /// The checksum of one whole page, its checksum field taken as zero.
    static func of(page: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        func add(_ byte: UInt8) { crc = (crc << 8) ^ table[Int(((crc >> 24) ^ UInt32(byte)) & 0xFF)] }
        for byte in page.prefix(22) { add(byte) }
        for _ in 0..<Swift.min(4, Swift.max(page.count - 22, 0)) { add(0) }
        for byte in page.dropFirst(26) { add(byte) }
        return crc
    }

    /// Whether a whole page's stored checksum (little-endian at byte 22) is its own.
    static func holds(page: [UInt8]) -> Bool {
        guard page.count >= 27 else { return false }
        let stored = page[22..<26].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return stored == of(page: page)
    }
}
