/// A cover picture's size from its own bytes: PNG's IHDR, JPEG's start-of-frame. FFmpeg's demuxers give an
/// attached picture (an MP3's APIC, a Matroska attachment) no size until its stream information is read, which
/// loopprep does not do for a cover (that reading also changes how the tracks' packets come).
package enum PictureSize {
    /// Width and height, or nil where the bytes are neither PNG nor JPEG with a frame header.
    package static func of(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.count >= 24, Array(bytes[0..<8]) == png, bytes[12..<16].elementsEqual("IHDR".utf8) {
            var r = ByteReader(bytes, from: 16, to: 24)
            return (Int(r.u32()), Int(r.u32()))
        }
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        // JPEG: markers with a length after SOI; a start of frame (C0-CF but C4, C8 and CC) holds the size.
        var at = 2
        while at + 9 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            var r = ByteReader(bytes, from: at + 2, to: bytes.count)
            let length = Int(r.u16())
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                r.skip(1)
                let height = Int(r.u16())
                return (Int(r.u16()), height)
            }
            at += 2 + length
        }
        return nil
    }
}
