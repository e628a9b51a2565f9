import LoopAnalysis

/// H.264 byte formats: the avcC record (ISO 14496-15) and Annex B streams. Pure byte work, for smart
/// rendering: re-encoded frames get their own SPS/PPS ids, and both sets live in one avcC.
package struct AVCConfig: Equatable {
    package var profile: UInt8
    package var compatibility: UInt8
    package var level: UInt8
    package var lengthSize: Int
    package var sps: [[UInt8]]
    package var pps: [[UInt8]]
    /// High-profile extension (chroma format, bit depths, SPS extensions), kept as is.
    package var trailer: [UInt8]

    package init?(_ bytes: [UInt8]) {
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

    package var bytes: [UInt8] {
        var out: [UInt8] = [1, profile, compatibility, level, 0xFC | UInt8(lengthSize - 1), 0xE0 | UInt8(sps.count)]
        for s in sps { out += [UInt8(s.count >> 8), UInt8(s.count & 0xff)] + s }
        out.append(UInt8(pps.count))
        for p in pps { out += [UInt8(p.count >> 8), UInt8(p.count & 0xff)] + p }
        return out + trailer
    }

    /// seq_parameter_set_id of an SPS NAL (the ue(v) after profile, constraints, level).
    package static func spsID(_ nal: [UInt8]) -> Int? {
        var bits = BitReader(NAL.unescape(Array(nal.dropFirst())))
        bits.skip(24)
        return bits.ue()
    }

    /// pic_parameter_set_id of a PPS NAL (its first ue(v)).
    package static func ppsID(_ nal: [UInt8]) -> Int? {
        var bits = BitReader(NAL.unescape(Array(nal.dropFirst())))
        return bits.ue()
    }

}

extension AVCConfig {
    /// Its SPS and PPS as values, with their ids.
    package var parameterSets: [ParameterSet] {
        sps.map { ParameterSet(kind: .sequence, id: Self.spsID($0), bytes: $0) }
            + pps.map { ParameterSet(kind: .picture, id: Self.ppsID($0), bytes: $0) }
    }
}
