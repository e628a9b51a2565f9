/// H.264 byte formats: the avcC record (ISO 14496-15) and Annex B streams. Pure byte work, for smart
/// rendering: re-encoded frames get their own SPS/PPS ids, and both sets live in one avcC.
struct AVCConfig: Equatable {
    var profile: UInt8
    var compatibility: UInt8
    var level: UInt8
    var lengthSize: Int
    var sps: [[UInt8]]
    var pps: [[UInt8]]
    /// High-profile extension (chroma format, bit depths, SPS extensions), kept as is.
    var trailer: [UInt8]

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 7, bytes[0] == 1 else { return nil }
        profile = bytes[1]
        compatibility = bytes[2]
        level = bytes[3]
        lengthSize = Int(bytes[4] & 3) + 1
        var i = 5
        func list() -> [[UInt8]]? {
            guard i < bytes.count else { return nil }
            let count = Int(bytes[i] & (i == 5 ? 0x1f : 0xff))
            i += 1
            return sizedUnits(bytes, at: &i, count: count)
        }
        guard let s = list(), let p = list() else { return nil }
        sps = s
        pps = p
        trailer = Array(bytes[i...])
    }

    var bytes: [UInt8] {
        var out: [UInt8] = [1, profile, compatibility, level, 0xFC | UInt8(lengthSize - 1), 0xE0 | UInt8(sps.count)]
        for s in sps { out += [UInt8(s.count >> 8), UInt8(s.count & 0xff)] + s }
        out.append(UInt8(pps.count))
        for p in pps { out += [UInt8(p.count >> 8), UInt8(p.count & 0xff)] + p }
        return out + trailer
    }

    /// seq_parameter_set_id of an SPS NAL (the ue(v) after profile, constraints, level).
    static func spsID(_ nal: [UInt8]) -> Int? {
        var bits = BitReader(unescape(Array(nal.dropFirst())))
        bits.skip(24)
        return bits.ue()
    }

    /// pic_parameter_set_id of a PPS NAL (its first ue(v)).
    static func ppsID(_ nal: [UInt8]) -> Int? {
        var bits = BitReader(unescape(Array(nal.dropFirst())))
        return bits.ue()
    }

    /// Removes emulation-prevention bytes (00 00 03 -> 00 00).
    static func unescape(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var zeros = 0
        for x in b {
            if zeros >= 2 && x == 3 {
                zeros = 0
                continue
            }
            zeros = x == 0 ? zeros + 1 : 0
            out.append(x)
        }
        return out
    }
}

/// `count` NAL units each after its 16-bit length, as avcC and hvcC list parameter sets (nil if cut short).
func sizedUnits(_ bytes: [UInt8], at i: inout Int, count: Int) -> [[UInt8]]? {
    var out: [[UInt8]] = []
    for _ in 0..<count {
        guard i + 2 <= bytes.count else { return nil }
        let n = Int(bytes[i]) << 8 | Int(bytes[i + 1])
        i += 2
        guard i + n <= bytes.count else { return nil }
        out.append(Array(bytes[i..<i + n]))
        i += n
    }
    return out
}

/// NAL units of an Annex B byte stream (start codes 00 00 01 or 00 00 00 01).
func annexBUnits(_ b: [UInt8]) -> [[UInt8]] {
    var starts: [(Int, Int)] = []  // (start code position, payload start)
    var i = 0
    while i + 2 < b.count {
        if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 {
            starts.append((i > 0 && b[i - 1] == 0 ? i - 1 : i, i + 3))
            i += 3
        } else {
            i += 1
        }
    }
    return starts.enumerated().map { k, s in
        var end = k + 1 < starts.count ? starts[k + 1].0 : b.count
        while end > s.1 && b[end - 1] == 0 && k + 1 == starts.count { end -= 1 }
        return Array(b[s.1..<end])
    }
}

/// Length-prefixed NAL units, as MP4 samples carry them.
func lengthPrefixed(_ units: [[UInt8]], size: Int) -> [UInt8] {
    var out: [UInt8] = []
    for u in units {
        for k in stride(from: size - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: u.count >> (8 * k)))
        }
        out += u
    }
    return out
}

struct BitReader {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    mutating func bit() -> Int? {
        guard position / 8 < bytes.count else { return nil }
        defer { position += 1 }
        return Int(bytes[position / 8] >> (7 - UInt8(position % 8)) & 1)
    }
    mutating func skip(_ n: Int) { position += n }
    /// Exp-Golomb unsigned.
    mutating func ue() -> Int? {
        var zeros = 0
        while let b = bit(), b == 0 {
            zeros += 1
            if zeros > 31 { return nil }
        }
        var value = 0
        for _ in 0..<zeros {
            guard let b = bit() else { return nil }
            value = value << 1 | b
        }
        return (1 << zeros) - 1 + value
    }
}
