import Testing

@testable import LoopAnalysis

/// One way to type a length in every option: seconds, milliseconds, frames; exact decimals.
@Suite struct TimeAmountTests {
    @Test func everyUnitReadsExactly() {
        #expect(TimeAmount("0.5") == .seconds(Rational(1, 2)))
        #expect(TimeAmount("0.5s") == .seconds(Rational(1, 2)))
        #expect(TimeAmount("500ms") == .seconds(Rational(1, 2)))
        #expect(TimeAmount("10ms") == .seconds(Rational(1, 100)))
        #expect(TimeAmount("12f") == .frames(12))
        #expect(TimeAmount("1.5f") == nil && TimeAmount("-1") == nil && TimeAmount("soon") == nil)
        // 12 frames at 30000/1001 fps: 12012/30000 s exactly.
        #expect(TimeAmount.frames(12).seconds(frameRate: Rational(30000, 1001)) == Rational(12012, 30000))
        #expect(TimeAmount.frames(12).seconds(frameRate: nil) == nil)
        #expect(TimeAmount.frames(12).fixedSeconds == nil && TimeAmount("2s")?.fixedSeconds == Rational(2))
    }
}
