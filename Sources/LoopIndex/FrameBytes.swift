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
    /// in its sample description instead: hev1 retagged hvc1, a transport stream's repeated headers), and without
    /// the zero bytes after a unit's last (a start code's leading zero, cabac_zero_words: nothing a decoder reads;
    /// FFmpeg's MP4 muxer keeps the one a transport stream's last unit ends with, where the stream's reader drops it).
    package static func picture(_ bytes: [UInt8], codec: String, extradata: [UInt8]?) -> [[UInt8]] {
        var units = content(bytes, codec: codec, extradata: extradata)
        if codec == "h264" || codec == "hevc" {
            units = units.map { unit in Array(unit[..<(unit.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)]) }
        }
        switch codec {
        case "h264": return units.filter { ![7, 8, 9].contains(($0.first ?? 0) & 0x1f) }
        case "hevc": return units.filter { !(32...35).contains(HEVC.type($0)) }
        case "av1": return av1Picture(bytes)
        default: return units
        }
    }

    /// An AV1 temporal unit's picture: its OBUs (low-overhead format, AV1 5.3), each as its type and payload,
    /// without the temporal delimiters (2), sequence headers (1), redundant frame headers (7), tile lists (8)
    /// and padding (15) that a muxer drops or moves to its CodecPrivate (FFmpeg's Matroska muxer strips the
    /// delimiters GStreamer's av1parse leaves in). Bytes that are not OBUs are kept whole.
    static func av1Picture(_ bytes: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            let header = bytes[at]
            let type = (header >> 3) & 15
            var payload = at + 1 + (header & 4 != 0 ? 1 : 0)
            var length = bytes.count - payload
            if header & 2 != 0 {
                length = 0
                var shift = 0
                repeat {
                    guard payload < bytes.count, shift < 56 else { return [bytes] }
                    length |= Int(bytes[payload] & 0x7f) << shift
                    shift += 7
                    payload += 1
                } while bytes[payload - 1] & 0x80 != 0
            }
            guard header & 0x80 == 0, length >= 0, payload + length <= bytes.count else { return [bytes] }
            if ![1, 2, 7, 8, 15].contains(type) { units.append([type] + bytes[payload..<payload + length]) }
            at = payload + length
        }
        return units
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
