import LoopAnalysis

/// What one stored frame holds, whatever its packaging (read from a file in Import/FrameBytes+Read.swift).
package enum FrameBytes {
    /// What a frame holds, whatever its packaging: H.264 and HEVC NAL units (start codes in MPEG-TS and -PS,
    /// lengths in MP4 and Matroska, where the muxer turns the one into the other), any other codec's bytes
    /// as they are.
    package static func content(_ bytes: [UInt8], codec: String, extradata: [UInt8]?) -> [[UInt8]] {
        guard codec == "h264" || codec == "hevc" else { return [bytes] }
        guard let config = extradata, config.first == 1 else { return annexBUnits(bytes) }
        return lengthUnits(bytes, codec: codec, config: config)
    }

    /// The frame's picture: its NAL units without parameter sets and delimiters (which a container may carry
    /// in its sample description instead: hev1 retagged hvc1, a transport stream's repeated headers).
    package static func picture(_ bytes: [UInt8], codec: String, extradata: [UInt8]?) -> [[UInt8]] {
        let units = content(bytes, codec: codec, extradata: extradata)
        switch codec {
        case "h264": return units.filter { ![7, 8, 9].contains(($0.first ?? 0) & 0x1f) }
        case "hevc": return units.filter { !(32...35).contains(HEVC.type($0)) }
        default: return units
        }
    }

    private static func lengthUnits(_ bytes: [UInt8], codec: String, config: [UInt8]) -> [[UInt8]] {
        let size =
            codec == "h264"
            ? (config.count > 4 ? Int(config[4] & 3) + 1 : 4) : (config.count > 21 ? Int(config[21] & 3) + 1 : 4)
        var units: [[UInt8]] = []
        var at = 0
        while at + size <= bytes.count {
            let length = bytes[at..<at + size].reduce(0) { $0 << 8 | Int($1) }
            at += size
            guard at + length <= bytes.count else { return [bytes] }
            units.append(Array(bytes[at..<at + length]))
            at += length
        }
        return units
    }
}
