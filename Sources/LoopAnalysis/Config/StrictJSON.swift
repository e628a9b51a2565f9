/// A config file's JSON read as RFC 8259 says, no more: a trailing comma, a comment or a key given twice in one object
/// is an error at its line and column (Foundation's decoder takes the first two and keeps one of the keys without
/// a word).
struct StrictJSON {
    private let bytes: [UInt8]
    private var at = 0

    /// The value `bytes` hold, or the error in words with where it is.
    static func parse(_ bytes: [UInt8]) throws(ConfigError) -> JSON {
        var reader = StrictJSON(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value()
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.error("more after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// "is not valid JSON at line L, column C (why)": the place of byte `offset` (default: the current one).
    private func error(_ why: String, at offset: Int? = nil) -> ConfigError {
        ConfigError("is not valid JSON at \(Self.place(of: offset ?? at, in: bytes)) (\(why))")
    }

    /// "line L, column C" of a byte offset, both from 1.
    static func place(of offset: Int, in bytes: [UInt8]) -> String {
        let before = bytes.prefix(max(0, min(offset, bytes.count)))
        let line = before.filter { $0 == 10 }.count + 1
        let column = before.count - (before.lastIndex(of: 10).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column)"
    }

    private var next: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while let b = next, [0x20, 0x09, 0x0A, 0x0D].contains(b) { at += 1 }
    }

    private mutating func expect(_ text: String) throws(ConfigError) {
        for b in text.utf8 {
            guard next == b else { throw error("expected \(text)") }
            at += 1
        }
    }

    private mutating func value() throws(ConfigError) -> JSON {
        switch next {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case .some(let b) where b == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b):
            return .number(try number())
        case .some(UInt8(ascii: "/")): throw error("a comment, which JSON has none of")
        case .some: throw error("a value must start here")
        case nil: throw error("the file ends where a value should be")
        }
    }

    private mutating func object() throws(ConfigError) -> JSON {
        at += 1
        var members: [String: JSON] = [:]
        skipSpace()
        if next == UInt8(ascii: "}") {
            at += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard next == UInt8(ascii: "\"") else {
                throw error(next == UInt8(ascii: "}") ? "a comma before }" : "a key in double quotes must start here")
            }
            let keyAt = at
            let key = try string()
            guard members[key] == nil else {
                throw ConfigError("gives the key \"\(key)\" twice in one object (\(Self.place(of: keyAt, in: bytes)))")
            }
            skipSpace()
            try expect(":")
            skipSpace()
            members[key] = try value()
            skipSpace()
            switch next {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "}"):
                at += 1
                return .object(members)
            default: throw error("expected , or }")
            }
        }
    }

    private mutating func array() throws(ConfigError) -> JSON {
        at += 1
        var items: [JSON] = []
        skipSpace()
        if next == UInt8(ascii: "]") {
            at += 1
            return .array(items)
        }
        while true {
            skipSpace()
            if next == UInt8(ascii: "]") { throw error("a comma before ]") }
            items.append(try value())
            skipSpace()
            switch next {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"):
                at += 1
                return .array(items)
            default: throw error("expected , or ]")
            }
        }
    }

    private mutating func string() throws(ConfigError) -> String {
        at += 1
        var units: [UInt16] = []
        var raw: [UInt8] = []
        func flush() {
            units += String(decoding: raw, as: UTF8.self).utf16
            raw = []
        }
        while let b = next {
            at += 1
            switch b {
            case UInt8(ascii: "\""):
                flush()
                return String(decoding: units, as: UTF16.self)
            case UInt8(ascii: "\\"):
                flush()
                units.append(try escape())
            case 0..<0x20: throw error("a control character inside a string", at: at - 1)
            default: raw.append(b)
            }
        }
        throw error("a string that does not end")
    }

    /// The UTF-16 unit an escape stands for (a \u escape's four hex digits; surrogate pairs as two escapes).
    private mutating func escape() throws(ConfigError) -> UInt16 {
        guard let b = next else { throw error("a string that does not end") }
        at += 1
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return UInt16(b)
        case UInt8(ascii: "b"): return 8
        case UInt8(ascii: "f"): return 12
        case UInt8(ascii: "n"): return 10
        case UInt8(ascii: "r"): return 13
        case UInt8(ascii: "t"): return 9
        case UInt8(ascii: "u"):
            guard at + 4 <= bytes.count,
                let unit = UInt16(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
            else { throw error("\\u must be followed by four hex digits") }
            at += 4
            return unit
        default: throw error("an unknown escape \\\(String(decoding: [b], as: UTF8.self))", at: at - 2)
        }
    }

    private mutating func number() throws(ConfigError) -> Double {
        let start = at
        func digits() -> Int {
            let from = at
            while let b = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { at += 1 }
            return at - from
        }
        if next == UInt8(ascii: "-") { at += 1 }
        let whole = at
        guard digits() > 0, !(bytes[whole] == UInt8(ascii: "0") && at - whole > 1) else {
            throw error("a number must have digits, and no leading zero", at: start)
        }
        if next == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { throw error("a number needs digits after its point", at: start) }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            at += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent", at: start) }
        }
        guard let n = Double(String(decoding: bytes[start..<at], as: UTF8.self)) else {
            throw error("a number out of range", at: start)
        }
        return n
    }
}
