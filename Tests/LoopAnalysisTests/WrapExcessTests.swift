import Foundation
import Testing

@testable import LoopAnalysis

/// The click check's second measure: a break spread over a few samples of the wrap, which the jump's two samples
/// a side do not see, against the wave's own turning around it.
@Suite struct WrapExcessTests {
    /// 50 ms a side of a 440 Hz tone at 48 kHz, amplitude 1, wrapping exactly (the head continues the tail).
    static func tone(_ n: Int) -> Float { Float(sin(2 * Double.pi * 440 * Double(n) / 48000)) }
    static let tail = (0..<2400).map(tone)
    static let head = (2400..<4800).map(tone)

    /// The inside's own jumps: a tone's prediction error is its third difference, 1/2 (2 pi 440/48000)^3 = 1.5e-4 at
    /// most; a spike of 0.2 in the tail lands 0.2 off where the wave was heading and bends the slope after it by as
    /// much, which the measure takes half of: 0.3.
    @Test func theInsideJumpsAsItsWaveDoes() {
        #expect(SeamAudioClick.insideJump(tail: Self.tail, head: Self.head) < 2e-4)
        var tail = Self.tail
        tail[1000] += 0.2
        let inside = SeamAudioClick.insideJump(tail: tail, head: Self.head)
        #expect(abs(inside - 0.3) < 1e-3, "\(inside)")
    }

    @Test func anExactWrapHasNone() {
        #expect(SeamAudioClick.wrapExcess(tail: Self.tail, head: Self.head) < 1e-4)
    }

    /// 0.004 added to the head's third sample: the second difference there grows by 0.004 and 0.008 around it,
    /// over the tone's own 0.0033; the jump (the first sample against where the last two were heading) is blind to it.
    @Test func aBreakTwoSamplesInIsSeen() {
        var head = Self.head
        head[2] += 0.004
        let excess = SeamAudioClick.wrapExcess(tail: Self.tail, head: head)
        #expect(excess > 0.0075 - 0.0034 && excess < 0.0081, "\(excess)")
        let (previous, final) = (Double(Self.tail[2398]), Double(Self.tail[2399]))
        let predicted = final + ((final - previous) + (Double(head[1]) - Double(head[0]))) / 2
        #expect(abs(Double(head[0]) - predicted) < 1e-3)
    }

    /// A step of 0.3 at the wrap: both measures see about the step.
    @Test func aStepIsItsSize() {
        let excess = SeamAudioClick.wrapExcess(tail: Self.tail, head: Self.head.map { $0 + 0.3 })
        #expect(abs(excess - 0.3) < 0.01, "\(excess)")
    }

    /// The rule reports the larger measure, past its threshold.
    @Test func theRuleTakesTheLargerMeasure() {
        var seam = SeamFacts(audioJump: [0.001])
        seam.audioWrap = [0.09]
        let clip = Clips.clip([Clips.video(), Clips.audio()], seam: seam)
        let findings = SeamAudioClick().check(clip, AnalysisOptions())
        #expect(findings.count == 1 && findings[0].message.contains("breaks by 0.090"), "\(findings)")
        seam.audioWrap = [0.01]
        #expect(
            SeamAudioClick().check(Clips.clip([Clips.video(), Clips.audio()], seam: seam), AnalysisOptions()).isEmpty)
    }
}
