/// Opus facts read from the bytes (RFC 6716 section 3.1, RFC 7845 section 5.1). Opus always decodes at 48 kHz.
package enum Opus {
    package static let rate: Int64 = 48_000

    /// Samples (at 48 kHz) one packet decodes to, from its TOC byte and frame count; nil for a malformed packet.
    package static func samples(_ packet: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        // Frame length in 1/400 s units (2.5 ms = 120 samples): SILK 10/20/40/60 ms, hybrid 10/20 ms, CELT 2.5/5/10/20
        // ms.
        let quarterMs: Int64 =
            switch config {
            case 0..<12: [40, 80, 160, 240][config % 4]
            case 12..<16: [40, 80][config % 2]
            default: [10, 20, 40, 80][config % 4]
            }
        let frames: Int64
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return nil }
            frames = Int64(packet[1] & 0x3f)
        }
        return frames * quarterMs * rate / 4000
    }

    /// The OpusHead with its pre-skip (bytes 10-11, little-endian) set to `preSkip`; nil if it cannot say it.
    package static func head(_ head: [UInt8], preSkip: Int64) -> [UInt8]? {
        guard head.count >= 19, head.starts(with: Array("OpusHead".utf8)), (0...0xffff).contains(preSkip) else {
            return nil
        }
        var out = head
        out[10] = UInt8(preSkip & 0xff)
        out[11] = UInt8(preSkip >> 8)
        return out
    }

    package static func preSkip(_ head: [UInt8]) -> Int64? {
        guard head.count >= 19, head.starts(with: Array("OpusHead".utf8)) else { return nil }
        return Int64(head[10]) | Int64(head[11]) << 8
    }
}
