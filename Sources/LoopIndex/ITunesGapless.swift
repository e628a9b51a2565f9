/// iTunes' gapless metadata (`----:com.apple.iTunes:iTunSMPB` in moov/udta/meta/ilst): the encoder priming,
/// the end padding and the original length, in samples. iTunes, afconvert and Apple Music write it instead of
/// (or beside) an edit list; priming is usually 2112.
package struct ITunesGapless: Equatable {
    package var priming: Int64
    package var padding: Int64
    package var length: Int64

    package init(priming: Int64, padding: Int64, length: Int64) {
        self.priming = priming
        self.padding = padding
        self.length = length
    }

    /// The value's text as iTunes writes it: hex fields, each with a leading space.
    package var text: String {
        func hex(_ v: Int64, _ width: Int) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(width - s.count, 0)) + s
        }
        return " 00000000 \(hex(priming, 8)) \(hex(padding, 8)) \(hex(length, 16))"
            + String(repeating: " 00000000", count: 8)
    }

    /// Where the value's text sits in `bytes` (a udta payload), if there is one.
    package static func find(in bytes: [UInt8]) -> Range<Int>? {
        let name = Array("iTunSMPB".utf8)
        let data = Array("data".utf8)
        guard let at = index(of: name, in: bytes, from: 0), let tag = index(of: data, in: bytes, from: at + name.count),
            tag >= 4
        else { return nil }
        var r = ByteReader(bytes, from: tag - 4, to: bytes.count)
        let size = Int(r.u32())
        let start = tag + 12
        let end = tag - 4 + size  // after type, flags and locale
        guard size >= 16, end <= bytes.count, start <= end else { return nil }
        return start..<end
    }

    package static func parse(_ bytes: [UInt8]) -> ITunesGapless? {
        guard let range = find(in: bytes) else { return nil }
        let fields = String(decoding: bytes[range], as: UTF8.self).split(separator: " ").map { Int64($0, radix: 16) }
        guard fields.count >= 4, let priming = fields[1], let padding = fields[2], let length = fields[3],
            priming >= 0, padding >= 0, length > 0
        else { return nil }
        return ITunesGapless(priming: priming, padding: padding, length: length)
    }

    /// The same-length text for new values, written over the old (so no box size changes).
    package static func rewrite(_ bytes: inout [UInt8], to value: ITunesGapless) {
        guard let range = find(in: bytes) else { return }
        var text = Array(value.text.utf8)
        guard text.count <= range.count else { return }
        text += Array(bytes[range].dropFirst(text.count))
        bytes.replaceSubrange(range, with: text)
    }

    package static func index(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard needle.count <= bytes.count, from <= bytes.count - needle.count else { return nil }
        for i in from...(bytes.count - needle.count)
        where bytes[i] == needle[0] && Array(bytes[i..<i + needle.count]) == needle { return i }
        return nil
    }
}
