import Foundation
import Testing

@testable import LoopAnalysis

@Suite struct RationalTests {
    @Test func reducesAndKeepsSignOnNumerator() {
        #expect(Rational(30000, 1001) == Rational(60000, 2002))
        #expect(Rational(3, -6).numerator == -1 && Rational(3, -6).denominator == 2)
    }

    @Test func ntscIsNotThirty() {
        #expect(Rational(30000, 1001) < Rational(30))
        #expect(Rational(30000, 1001) != Rational(30))
    }

    @Test func arithmeticIsExact() {
        // 30 frames at 30000/1001 fps last exactly 1.001 s, which is 48048 samples at 48 kHz.
        let duration = Rational(30) / Rational(30000, 1001)
        #expect(duration == Rational(1001, 1000))
        #expect(duration * 48000 == Rational(48048))
        // At 44.1 kHz it is not a whole number of samples.
        #expect(duration * 44100 == Rational(4_414_410, 100))
    }

    @Test func largeTicksDoNotOverflow() {
        let ticks = Rational(Int64.max / 3)
        let seconds = ticks * Rational(1, 90000)
        #expect(seconds > Rational(1_000_000_000))
        #expect(Rational(Int64.max / 2, 7) < Rational(Int64.max / 2, 6))
    }

    @Test func roundingAndFloor() {
        #expect(Rational(5, 2).rounded == 3)
        #expect(Rational(-5, 2).rounded == -3)
        #expect(Rational(-1, 3).floor == -1)
        #expect(Rational(7, 3).floor == 2)
    }

    @Test func codableAsText() throws {
        let r = Rational(30000, 1001)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = try encoder.encode([r])
        #expect(String(decoding: data, as: UTF8.self) == "[\"30000/1001\"]")
        #expect(try JSONDecoder().decode([Rational].self, from: data) == [r])
    }

    @Test func decimalFiguresAreExact() {
        #expect(Figures.decimal(Rational(1001, 1000), places: 3) == "1.001")
        #expect(Figures.decimal(Rational(-1, 3), places: 2) == "-0.33")
        #expect(Figures.ms(Rational(1, 48000)) == "0.021 ms")
        #expect(Figures.samples(Rational(1, 48000), rate: 48000) == "1 sample")
        #expect(Figures.frames(Rational(1, 2), frameRate: Rational(30000, 1001)) == "14.99 frames")
    }
}
