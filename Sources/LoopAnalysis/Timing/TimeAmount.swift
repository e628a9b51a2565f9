import Foundation

/// A length of time as a user types it, the same in every option that takes one: seconds (`0.5`, `0.5s`),
/// milliseconds (`500ms`) or video frames (`12f`, counted at the clip's own frame rate). Exact: a decimal is read
/// as the rational it spells.
public enum TimeAmount: Sendable, Equatable, CustomStringConvertible {
    case seconds(Rational)
    case frames(Int)

    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasSuffix("ms"), let v = Rational(decimal: String(t.dropLast(2))) {
            self = .seconds(v / Rational(1000))
        } else if t.hasSuffix("f"), let n = Int(t.dropLast()), n >= 0 {
            self = .frames(n)
        } else if t.hasSuffix("s"), let v = Rational(decimal: String(t.dropLast())) {
            self = .seconds(v)
        } else if let v = Rational(decimal: t) {
            self = .seconds(v)
        } else {
            return nil
        }
        if case .seconds(let v) = self, v < .zero { return nil }
    }

    /// Seconds, frames counted at `frameRate` (nil: frames cannot be counted without one).
    public func seconds(frameRate: Rational?) -> Rational? {
        switch self {
        case .seconds(let s): s
        case .frames(let n): frameRate.flatMap { $0 > .zero ? Rational(Int64(n)) / $0 : nil }
        }
    }

    /// Whole frames at `frameRate`, seconds rounded to the nearest frame.
    public func frames(at frameRate: Rational) -> Int {
        switch self {
        case .frames(let n): n
        case .seconds(let seconds): Int((seconds * frameRate).rounded)
        }
    }

    /// Seconds when no frame rate is needed to say it.
    public var fixedSeconds: Rational? {
        if case .seconds(let s) = self { s } else { nil }
    }

    public var description: String {
        switch self {
        case .seconds(let s): Figures.seconds(s)
        case .frames(let n): "\(n) frames"
        }
    }

    /// How every option that takes a length says so in its help.
    public static let help = "a time: seconds (0.5 or 0.5s), milliseconds (500ms) or frames (12f)"
}
