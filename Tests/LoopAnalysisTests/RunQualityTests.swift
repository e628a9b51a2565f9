import Testing

@testable import LoopAnalysis

/// A re-encoded run's quality from its source's quantizers: the source's mean less six, between the
/// finest (17, every run's before) and the coarsest (40).
@Suite struct RunQualityTests {
    @Test func sixStepsFinerThanTheSourceMean() {
        #expect(RunQuality.rateFactor(sourceQuantizers: [30, 30, 30]) == 24)
        // The mean rounds half up: (29 + 30 + 30 + 30) / 4 = 29.75 -> 30; (29 + 30) / 2 = 29.5 -> 30.
        #expect(RunQuality.rateFactor(sourceQuantizers: [29, 30, 30, 30]) == 24)
        #expect(RunQuality.rateFactor(sourceQuantizers: [29, 30]) == 24)
        #expect(RunQuality.rateFactor(sourceQuantizers: [28, 30, 29, 28]) == 23)
    }

    @Test func neverFinerThanSeventeenNorCoarserThanForty() {
        // A finely coded source (phone footage near QP 20) keeps the transparent quality.
        #expect(RunQuality.rateFactor(sourceQuantizers: [20, 21, 22]) == RunQuality.finest)
        #expect(RunQuality.rateFactor(sourceQuantizers: [23]) == 17)
        #expect(RunQuality.rateFactor(sourceQuantizers: [51, 51]) == RunQuality.coarsest)
        #expect(RunQuality.rateFactor(sourceQuantizers: [46]) == 40)
    }

    @Test func noQuantizersGiveTheFinest() {
        // A codec whose decoder does not say (HEVC, VP9 here) is re-encoded as before.
        #expect(RunQuality.rateFactor(sourceQuantizers: []) == 17)
    }

    /// A run is coded with ultrafast's search only where every clip it draws on was coded with no more (x264's
    /// subme=0); any other, or a clip that does not say (not x264), keeps superfast's.
    @Test func ultrafastOnlyWhereEverySourceWasCodedSo() {
        #expect(RunQuality.preset(x264Subme: [0]) == "ultrafast")
        #expect(RunQuality.preset(x264Subme: [0, 0]) == "ultrafast")
        #expect(RunQuality.preset(x264Subme: [0, 2]) == "superfast")
        #expect(RunQuality.preset(x264Subme: [1]) == "superfast")
        #expect(RunQuality.preset(x264Subme: [7]) == "superfast")
        #expect(RunQuality.preset(x264Subme: [0, nil]) == "superfast")
        #expect(RunQuality.preset(x264Subme: [nil]) == "superfast")
        #expect(RunQuality.preset(x264Subme: []) == "superfast")
    }
}
