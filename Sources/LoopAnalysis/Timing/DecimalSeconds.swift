extension Rational {
    /// A decimal as written ("1.005", "-0.5", "2", ".25", "1e-3", "2.5E+2"), exactly: 1.005 is 201/200, not the
    /// binary double nearest it. nil for anything else, or for more digits than 64 bits hold. The one parser
    /// of decimal seconds: the command line's, the playlist's and the project settings' numbers all come here.
    public init?(decimal text: String) {
        var s = Substring(text.trimmingCharacters(in: .whitespaces))
        var exponent = 0
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(s[s.index(after: e)...]), abs(value) <= 30 else { return nil }
            exponent = value
            s = s[..<e]
        }
        let negative = s.hasPrefix("-")
        if negative || s.hasPrefix("+") { s = s.dropFirst() }
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        let digits = whole + fraction
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let n = Int64(digits)
        else { return nil }
        var numerator = Int128(negative ? -n : n)
        var denominator = Int128(1)
        var scale = exponent - fraction.count
        while scale > 0 {
            numerator *= 10
            scale -= 1
        }
        while scale < 0 {
            denominator *= 10
            scale += 1
        }
        guard Int64(exactly: numerator) != nil, Int64(exactly: denominator) != nil else { return nil }
        self.init(wide: numerator, denominator)
    }

    /// A number a user typed, read back through its shortest decimal form (Swift prints a Double as the
    /// shortest decimal that reads back as it: the 1.005 typed prints "1.005"), exactly.
    public init?(decimal value: Double) {
        guard value.isFinite else { return nil }
        self.init(decimal: "\(value)")
    }
}
