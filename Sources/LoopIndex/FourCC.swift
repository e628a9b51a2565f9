/// A box type, sample entry format, handler or brand: four bytes, compared as bytes. Never text decoded as UTF-8:
/// QuickTime's own tags start with 0xA9 ('©nam', '©xyz'), which is no UTF-8 on its own and would come back as
/// U+FFFD (three bytes) and change the box. A literal spells each byte as the character of that code point
/// ("©day" is A9 64 61 79), the way QuickTime's documentation writes them.
package struct FourCC: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible, Comparable {
    package let value: UInt32

    package init(_ value: UInt32) { self.value = value }

    /// The first four bytes (zeros past the end).
    package init<C: Collection>(bytes: C) where C.Element == UInt8 {
        var v: UInt32 = 0
        var it = bytes.makeIterator()
        for _ in 0..<4 { v = v << 8 | UInt32(it.next() ?? 0) }
        value = v
    }

    package init(stringLiteral text: String) {
        let scalars = Array(text.unicodeScalars)
        precondition(scalars.count == 4 && scalars.allSatisfy { $0.value < 256 }, "a four-character code: \(text)")
        self.init(bytes: scalars.map { UInt8($0.value) })
    }

    package var bytes: [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// The code as text, a character per byte (ISO 8859-1): "©nam" for A9 6E 61 6D. For messages and facts
    /// (a codec tag, a handler); never written back through UTF-8.
    package var text: String { String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })) }
    package var description: String { text }

    package static func < (a: FourCC, b: FourCC) -> Bool { a.value < b.value }
}
