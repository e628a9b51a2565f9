/// A FLAC frame's header (the FLAC format specification, "FRAME_HEADER"): how many samples the frame holds.
package enum FLACFrame {
    /// The block size a frame's header states, nil where the bytes do not start with a frame header.
    package static func samples(_ frame: UnsafeBufferPointer<UInt8>) -> Int64? {
        // The sync code: 14 bits 11111111111110, a reserved 0, the blocking strategy.
        guard frame.count >= 6, frame[0] == 0xFF, frame[1] & 0xFE == 0xF8 else { return nil }
        let code = Int(frame[2] >> 4)
        switch code {
        case 1: return 192
        case 2...5: return 576 << (code - 2)
        case 8...15: return 256 << (code - 8)
        case 6, 7:
            // An 8- or 16-bit value (the size less one) after the frame or sample number, coded as UTF-8 is.
            var at = 4
            let lead = frame[at]
            var extra = 0
            while extra < 7, lead & (0x80 >> extra) != 0 { extra += 1 }
            at += extra == 0 ? 1 : extra
            guard extra != 1, at + (code == 6 ? 1 : 2) <= frame.count else { return nil }
            let value = code == 6 ? Int64(frame[at]) : Int64(frame[at]) << 8 | Int64(frame[at + 1])
            return value + 1
        default: return nil
        }
    }
}
