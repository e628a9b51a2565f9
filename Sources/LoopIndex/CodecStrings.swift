/// RFC 6381 codecs strings (what `MediaSource.isTypeSupported` and `addSourceBuffer` are asked for), read from
/// each codec's configuration record: the real profile and level, never a guess.
package enum CodecStrings {
    /// `extradata`: the stream's configuration record (avcC, hvcC, AudioSpecificConfig, av1C); `webm`: the name
    /// WebM uses where it needs no record (vp8, vp9, opus, vorbis). nil for a codec the web player does not take.
    package static func string(codec: String, extradata: [UInt8]?, webm: Bool) -> String? {
        guard takes(codec, webm: webm) else { return nil }
        let bytes = extradata ?? []
        switch codec {
        case "h264": return avc(bytes)
        case "hevc": return hevc(bytes)
        case "aac": return aac(bytes)
        case "av1": return av1(bytes)
        default: return codec
        }
    }

    /// What the web player takes, in words.
    package static let webPlayerTakes =
        "the web player takes H.264 or HEVC with AAC in MP4 or MOV and VP8, VP9 or AV1 with Opus or Vorbis in WebM"

    /// Whether the web player takes `codec` in WebM (`webm`) or in MP4, whatever its configuration record says.
    package static func takes(_ codec: String, webm: Bool) -> Bool {
        switch codec {
        case "h264", "hevc", "aac": !webm
        case "opus": true
        case "vorbis", "vp8", "vp9", "av1": webm
        default: false
        }
    }

    package static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    /// avcC: profile_idc, the constraint flags and level_idc (ISO/IEC 14496-15 5.3.3.1), "avc1.64001f".
    package static func avc(_ b: [UInt8]) -> String? {
        guard b.count >= 4, b[0] == 1 else { return nil }
        return "avc1." + hex(b[1]) + hex(b[2]) + hex(b[3])
    }

    /// hvcC (ISO/IEC 14496-15 E.3): profile space and idc, the compatibility flags bit-reversed in hex, tier and
    /// level, then the constraint bytes up to the last non-zero one: "hvc1.1.6.L93.B0".
    package static func hevc(_ b: [UInt8]) -> String? {
        guard b.count >= 13, b[0] == 1 else { return nil }
        let space = ["", "A", "B", "C"][Int(b[1] >> 6)]
        let tier = b[1] & 0x20 != 0 ? "H" : "L"
        let profile = b[1] & 0x1f
        var flags: UInt32 = 0
        for i in 0..<4 { flags = flags << 8 | UInt32(b[2 + i]) }
        var reversed: UInt32 = 0
        for bit in 0..<32 where flags & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        var constraints = Array(b[6..<12])
        while constraints.last == 0 { constraints.removeLast() }
        let parts =
            ["hvc1", "\(space)\(profile)", String(reversed, radix: 16, uppercase: true), "\(tier)\(b[12])"]
            + constraints.map { String($0, radix: 16, uppercase: true) }
        return parts.joined(separator: ".")
    }

    /// AudioSpecificConfig: the audio object type (5 bits, 31 escaping to 32 + 6 more), "mp4a.40.2".
    package static func aac(_ b: [UInt8]) -> String? {
        guard let first = b.first else { return "mp4a.40.2" }
        var type = Int(first >> 3)
        if type == 31, b.count >= 2 { type = 32 + Int((first & 7) << 3 | b[1] >> 5) }
        return "mp4a.40.\(type)"
    }

    /// av1C (AV1 in ISOBMFF 2.3): seq_profile, seq_level_idx_0 and seq_tier_0, the bit depth: "av01.0.04M.08".
    package static func av1(_ b: [UInt8]) -> String? {
        guard b.count >= 3, b[0] & 0x7f == 1 else { return nil }
        let profile = b[1] >> 5
        let level = b[1] & 0x1f
        let tier = b[2] & 0x80 != 0 ? "H" : "M"
        let depth = b[2] & 0x40 == 0 ? 8 : (profile == 2 && b[2] & 0x20 != 0 ? 12 : 10)
        let two = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
        return "av01.\(profile).\(two(Int(level)))\(tier).\(two(depth))"
    }
}
