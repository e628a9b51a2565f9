import LoopAnalysis
import Testing

@Suite struct SeamFadeTests {
    @Test func fadeGainShape() {
        let g = SeamFade.gain
        #expect(g(0, 1000, 100) == 0)
        #expect(g(999, 1000, 100) < 0.001)
        #expect(g(500, 1000, 100) == 1)
        #expect(abs(g(50, 1000, 100) - 0.5) < 0.001)
    }

}
