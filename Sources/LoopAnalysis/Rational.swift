/// An exact rational number, always reduced, denominator positive.
///
/// Time decisions in loopprep are made with these (or with integer ticks), never with `Double`:
/// 30000/1001 fps is not 30, and a 0.5-sample tolerance at 44.1 kHz needs exact arithmetic.
/// Intermediate products are computed in `Int128`, so ticks times a time base cannot overflow silently.
public struct Rational: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        self.init(wide: Int128(numerator), Int128(denominator == 0 ? 1 : denominator))
    }

    /// Reduces in 128 bits; a value that still does not fit 64 bits (only absurd input gets there) is
    /// rounded to the nearest value with a 64-bit denominator rather than trapping.
    init(wide numerator: Int128, _ denominator: Int128) {
        precondition(denominator != 0, "Rational with zero denominator")
        var n = numerator
        var d = denominator
        if d < 0 {
            n = -n
            d = -d
        }
        let g = Rational.gcd(n.magnitude, d.magnitude)
        if g > 1 {
            n /= Int128(g)
            d /= Int128(g)
        }
        while Int64(exactly: n) == nil || Int64(exactly: d) == nil {
            n /= 2
            d /= 2
            if d == 0 { d = 1 }
        }
        self.numerator = Int64(n)
        self.denominator = Int64(d)
    }

    public static let zero = Rational(0)
    public static let one = Rational(1)

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var a = a
        var b = b
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    public var isZero: Bool { numerator == 0 }
    public var isNegative: Bool { numerator < 0 }
    public var magnitude: Rational { isNegative ? -self : self }
    public var reciprocal: Rational { Rational(wide: Int128(denominator), Int128(numerator)) }

    /// For display only: never decide with this.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// Rounds to the nearest integer, halves away from zero.
    public var rounded: Int64 {
        let n = Int128(numerator)
        let d = Int128(denominator)
        let q = (2 * n.magnitude + d.magnitude) / (2 * d.magnitude)
        return Int64(clamping: n < 0 ? -Int128(q) : Int128(q))
    }

    public var floor: Int64 {
        let q = numerator / denominator
        return (numerator % denominator != 0 && numerator < 0) ? q - 1 : q
    }

    /// The smallest integer at or above.
    public var ceiling: Int64 { -(-self).floor }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    public static func + (a: Rational, b: Rational) -> Rational {
        Rational(
            wide: Int128(a.numerator) * Int128(b.denominator) + Int128(b.numerator) * Int128(a.denominator),
            Int128(a.denominator) * Int128(b.denominator))
    }
    public static prefix func - (a: Rational) -> Rational {
        Rational(wide: -Int128(a.numerator), Int128(a.denominator))
    }
    public static func - (a: Rational, b: Rational) -> Rational { a + (-b) }
    public static func * (a: Rational, b: Rational) -> Rational {
        Rational(wide: Int128(a.numerator) * Int128(b.numerator), Int128(a.denominator) * Int128(b.denominator))
    }
    public static func / (a: Rational, b: Rational) -> Rational { a * b.reciprocal }
    public static func * (a: Rational, b: Int64) -> Rational { a * Rational(b) }

    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    public static func min(_ a: Rational, _ b: Rational) -> Rational { a < b ? a : b }
    public static func max(_ a: Rational, _ b: Rational) -> Rational { a < b ? b : a }
}

extension Rational: Codable {
    /// Encoded as "num/den" (or "num"), so 30000/1001 reads as itself in JSON.
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let parts = text.split(separator: "/")
        guard let n = parts.first.flatMap({ Int64($0) }),
            let d = parts.count == 2 ? Int64(parts[1]) : 1, d != 0
        else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "bad rational \(text)"))
        }
        self.init(n, d)
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
