import Foundation

/// Formatting of exact time for messages. Values are exact until here; rounding is for reading only.
public enum Figures {
    public static func ms(_ seconds: Rational) -> String { decimal(seconds * 1000, places: 3) + " ms" }

    public static func samples(_ seconds: Rational, rate: Int) -> String {
        let n = seconds * Int64(rate)
        return (n.denominator == 1 ? "\(n.numerator)" : decimal(n, places: 1)) + (n == .one ? " sample" : " samples")
    }

    public static func frames(_ seconds: Rational, frameRate: Rational) -> String {
        let n = seconds * frameRate
        return (n.denominator == 1 ? "\(n.numerator)" : decimal(n, places: 2)) + (n == .one ? " frame" : " frames")
    }

    public static func seconds(_ seconds: Rational) -> String { decimal(seconds, places: 3) + " s" }

    /// Exact decimal rounding of a rational (no binary floating point in the digits).
    public static func decimal(_ value: Rational, places: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded
        let sign = scaled < 0 ? "-" : ""
        let mag = scaled.magnitude
        let whole = mag / UInt64(scale)
        let frac = mag % UInt64(scale)
        guard places > 0 else { return sign + "\(whole)" }
        let digits = String(frac)
        return sign + "\(whole)." + String(repeating: "0", count: places - digits.count) + digits
    }

    /// Seconds as a double for the machine-readable figures.
    public static func msValue(_ seconds: Rational) -> Double { (seconds * 1000).doubleValue }

    public static func trackName(_ t: TrackFacts) -> String { "\(t.kind.rawValue) track \(t.index) (\(t.codec))" }
    public static func trackName(_ t: TrackCut) -> String { "\(t.kind.rawValue) track \(t.index) (\(t.codec))" }
}
