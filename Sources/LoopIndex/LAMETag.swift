/// The gapless figures an MP3's first frame carries (LAME's tag after the Xing/Info header, as LAME, FFmpeg's
/// "Lavc"/"Lavf" and other gapless encoders write it): the encoder delay and the padding, 12 bits each. FFmpeg
/// hands on only what fits its last packet of the padding (an MPEG-2 frame is 576 samples; LAME pads up to 1,423),
/// so the figures are read here, from the bytes.
package struct LAMETag: Equatable {
    package var delay: Int64
    package var padding: Int64
    /// Samples in one frame: 1152 (MPEG-1 Layer III), 576 (MPEG-2 and 2.5).
    package var frameSamples: Int64

    /// From a file's first bytes (an ID3v2 tag skipped); nil without a Xing/Info header and a gapless extension.
    package init?(fileStart b: [UInt8]) {
        var at = 0
        if b.count >= 10, b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 {
            let size = b[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7f) }
            at = 10 + size + (b[5] & 0x10 != 0 ? 10 : 0)
        }
        guard at + 4 <= b.count, b[at] == 0xff, b[at + 1] & 0xe0 == 0xe0, (b[at + 1] >> 1) & 3 == 1 else {
            return nil
        }
        let mpeg1 = (b[at + 1] >> 3) & 3 == 3
        let mono = b[at + 3] >> 6 == 3
        frameSamples = mpeg1 ? 1152 : 576
        let sideInfo = mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        var p = at + 4 + sideInfo
        func word(_ i: Int) -> Int64? {
            i + 4 <= b.count ? b[i..<(i + 4)].reduce(Int64(0)) { $0 << 8 | Int64($1) } : nil
        }
        guard let magic = word(p), magic == 0x5869_6e67 || magic == 0x496e_666f, let flags = word(p + 4) else {
            return nil
        }
        // Past the frame and byte counts, the seek table and the quality, where the flags say they are.
        p +=
            8 + (flags & 1 != 0 ? 4 : 0) + (flags & 2 != 0 ? 4 : 0) + (flags & 4 != 0 ? 100 : 0)
            + (flags & 8 != 0 ? 4 : 0)
        // The extension: a 9-byte encoder string, then (21 bytes in) the delay and padding.
        guard let encoder = word(p), [0x4c41_4d45, 0x4c61_7666, 0x4c61_7663].contains(encoder), p + 24 <= b.count
        else { return nil }
        let d = b[(p + 21)..<(p + 24)].map(Int64.init)
        delay = d[0] << 4 | d[1] >> 4
        padding = (d[1] & 0x0f) << 8 | d[2]
    }
}
