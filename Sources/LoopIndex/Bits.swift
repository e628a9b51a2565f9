/// Bit and NAL-unit tools every codec shares (as L-SMASH's common/bits.c and codecs/nalu.c are): a bit reader
/// and writer with Exp-Golomb codes, emulation prevention, and the three ways NAL units are packed (Annex B
/// start codes, length prefixes, 16-bit sized lists in decoder configuration records).

/// Emulation prevention (H.264 7.4.1, H.265 7.4.2): the bytes 00 00 03 keep a start code out of a NAL unit.
package enum NAL {
    /// Removes emulation-prevention bytes (00 00 03 -> 00 00).
    package static func unescape(_ b: [UInt8]) -> [UInt8] {
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

    /// Adds emulation-prevention bytes (00 00 0x with x <= 3 -> 00 00 03 0x).
    package static func escape(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count + b.count / 64)
        var zeros = 0
        for x in b {
            if zeros >= 2 && x <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(x)
            zeros = x == 0 ? zeros + 1 : 0
        }
        return out
    }
}

/// `count` NAL units each after its 16-bit length, as avcC and hvcC list parameter sets (nil if cut short).
package func sizedUnits(_ bytes: [UInt8], at i: inout Int, count: Int) -> [[UInt8]]? {
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
package func annexBUnits(_ b: [UInt8]) -> [[UInt8]] {
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
package func lengthPrefixed(_ units: [[UInt8]], size: Int) -> [UInt8] {
    var out: [UInt8] = []
    for u in units {
        for k in stride(from: size - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: u.count >> (8 * k)))
        }
        out += u
    }
    return out
}

package struct BitReader {
    package let bytes: [UInt8]
    package var position = 0
    package init(_ bytes: [UInt8]) { self.bytes = bytes }
    package mutating func bit() -> Int? {
        guard position / 8 < bytes.count else { return nil }
        defer { position += 1 }
        return Int(bytes[position / 8] >> (7 - UInt8(position % 8)) & 1)
    }
    package mutating func skip(_ n: Int) { position += n }
    /// Exp-Golomb unsigned.
    package mutating func ue() -> Int? {
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

/// Writes bits, most significant first.
package struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 8

    package mutating func write(_ value: Int, bits: Int) {
        for k in stride(from: bits - 1, through: 0, by: -1) {
            if used == 8 {
                bytes.append(0)
                used = 0
            }
            if (value >> k) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> used) }
            used += 1
        }
    }

    /// Exp-Golomb unsigned.
    package mutating func ue(_ value: Int) {
        let code = value + 1
        let length = Int.bitWidth - code.leadingZeroBitCount
        write(0, bits: length - 1)
        write(code, bits: length)
    }

    package mutating func copy(from r: inout BitReader, bits: Int) {
        for _ in 0..<bits { write(r.bit() ?? 0, bits: 1) }
    }

    /// Zeros to the byte boundary.
    package mutating func align() { if used < 8 { used = 8 } }
}

extension BitReader {
    package mutating func u(_ n: Int) -> Int? {
        var value = 0
        for _ in 0..<n {
            guard let b = bit() else { return nil }
            value = value << 1 | b
        }
        return value
    }

    /// Exp-Golomb signed.
    package mutating func se() -> Int? {
        guard let k = ue() else { return nil }
        return k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
    }
}
