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

    /// The first SPS that asks more than the record names (ISO/IEC 14496-15: the record's profile and level are
    /// ones every set it holds conforms to): a profile of more tools, or a higher level; as its profile's name and
    /// level ("High 3.0"). A decoder set up from the record may refuse the frames that use it.
    package var beyondRecord: String? {
        // Profiles by the tools they allow: Constrained Baseline and Baseline within Main within High, and so on.
        let rank: [UInt8: Int] = [66: 0, 77: 1, 88: 1, 100: 2, 110: 3, 122: 4, 244: 5]
        for s in sps where s.count > 3 {
            let (p, l) = (s[1], s[3])
            guard (rank[p] ?? 6) > (rank[profile] ?? 6) || l > level else { continue }
            let name = ISOFile.h264Profiles[Int(p)] ?? "profile \(p)"
            return "\(name) \(l / 10).\(l % 10)"
        }
        return nil
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

/// What an H.264 encoder says of itself in the stream: x264 writes its version and every setting it coded with
/// as text in an unregistered user data SEI (ITU-T H.264 D.1.6, payload type 5) in its first access unit.
package enum X264Settings {
    /// x264's UUID for that message (x264's encoder/set.c).
    static let uuid: [UInt8] = [
        0xdc, 0x45, 0xe9, 0xbd, 0xe6, 0xd9, 0x48, 0xb7, 0x96, 0x2c, 0xd8, 0x20, 0xd9, 0x23, 0xee, 0xef,
    ]

    /// The settings text ("x264 - core 164 ... options: cabac=0 ref=1 ...") from a frame's NAL units, or nil.
    package static func text(_ units: [[UInt8]]) -> String? {
        for unit in units where (unit.first ?? 0) & 0x1f == 6 {
            for (type, payload) in messages(NAL.unescape(Array(unit.dropFirst())))
            where type == 5 && payload.count > 16 && Array(payload.prefix(16)) == uuid {
                let text = payload.dropFirst(16).prefix { $0 != 0 }
                return String(decoding: text, as: UTF8.self)
            }
        }
        return nil
    }

    /// An SEI RBSP's messages: each type and size a run of 0xFF bytes plus the last (7.3.2.3.1).
    static func messages(_ rbsp: [UInt8]) -> [(type: Int, payload: ArraySlice<UInt8>)] {
        var out: [(Int, ArraySlice<UInt8>)] = []
        var at = 0
        func number() -> Int? {
            var value = 0
            while at < rbsp.count {
                let byte = rbsp[at]
                at += 1
                value += Int(byte)
                if byte != 0xff { return value }
            }
            return nil
        }
        // The trailing bits (0x80) end the list.
        while at < rbsp.count, rbsp[at] != 0x80, let type = number(), let size = number(), at + size <= rbsp.count {
            out.append((type, rbsp[at..<at + size]))
            at += size
        }
        return out
    }

    /// x264's subme (its sub-pixel search: 0 for ultrafast) from a frame's NAL units, where x264 coded them.
    package static func subme(_ units: [[UInt8]]) -> Int? {
        text(units).flatMap { value("subme", in: $0) }.flatMap { Int($0) }
    }

    /// The value of one setting ("subme" in "... subme=0 psy=1 ..."), or nil where the text has none.
    package static func value(_ name: String, in text: String) -> String? {
        guard let options = text.range(of: "options: ") else { return nil }
        for field in text[options.upperBound...].split(separator: " ") {
            let pair = field.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == name { return String(pair[1]) }
        }
        return nil
    }
}
