import Testing

@testable import LoopAnalysis

/// When the picture's step at the seam is judged against stillness (SeamVisualJump.isBrightnessCut, the default
/// threshold 6): only where the clip hardly moves on both sides of the seam.
@Suite struct SeamStillnessTests {
    static func cut(_ difference: Double, motion: Double, around: [Double]) -> Bool {
        SeamVisualJump.isBrightnessCut(difference: difference, motion: motion, threshold: 6, around: around)
    }

    /// A crossfade between two slides that ends at the loop point: 2.26 levels a frame into the seam, a still slide
    /// after it; the seam's 2.1 is one more step of the fade, no cut (it was judged against the still side).
    @Test func aFadeThatEndsAtTheSeamIsNoCut() {
        #expect(!Self.cut(2.1, motion: 2.26, around: [2.26, 2.26, 0.0017, 0]))
        // The same picture resting on both sides: a 2.1 step is a cut (over 6/3 and ten times the motion).
        #expect(Self.cut(2.1, motion: 0.0017, around: [0.001, 0.0017, 0.0017, 0]))
    }

    /// A slow pan's encoded steps alternate (0.1, 0.6): each side's smaller step is its motion, still; a repeated
    /// frame (3:2 pulldown) on one side of moving footage does not make it still.
    @Test func alternatingAndRepeatedStepsKeepTheirMeaning() {
        #expect(Self.cut(3, motion: 0.6, around: [0.1, 0.6, 0.1, 0.6]))
        #expect(!Self.cut(3, motion: 1.5, around: [0, 1.5, 1.4, 1.6]))
        // Grain: a still's seam about its motion is no cut.
        #expect(!Self.cut(1.5, motion: 0.9, around: [0.9, 0.8, 0.9, 0.85]))
        // Without the four neighbours, the second smallest step given.
        #expect(Self.cut(2.5, motion: 0.1, around: []))
    }
}
