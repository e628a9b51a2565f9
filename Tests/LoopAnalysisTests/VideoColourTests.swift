import Testing

@testable import LoopAnalysis

/// When two clips' colours differ as a player shows them.
@Suite struct VideoColourTests {
    static let sdr = VideoColour(primaries: "bt709", transfer: "bt709", matrix: "bt709", range: "tv")
    static let hlg = VideoColour(primaries: "bt2020", transfer: "arib-std-b67", matrix: "bt2020nc", range: "tv")

    @Test func hdrBesideSDRDiffers() {
        #expect(Self.hlg.differs(from: Self.sdr) && Self.sdr.differs(from: Self.hlg))
        #expect(!Self.hlg.differs(from: Self.hlg))
        // HLG beside PQ: both HDR, two transfers.
        var pq = Self.hlg
        pq.transfer = "smpte2084"
        #expect(pq.differs(from: Self.hlg))
    }

    @Test func whatAFileLeavesUnnamedIsTheOthers() {
        #expect(!VideoColour().differs(from: Self.sdr))
        #expect(!VideoColour(primaries: "bt709").differs(from: Self.sdr))
        // ... but not HDR, and a range not named is limited.
        #expect(VideoColour().differs(from: Self.hlg))
        #expect(VideoColour(range: "pc").differs(from: VideoColour()))
    }

    /// One curve or one matrix under two names is no difference; other primaries are.
    @Test func synonymsAreTheSame() {
        #expect(
            !VideoColour(transfer: "smpte170m", matrix: "bt470bg").differs(
                from: VideoColour(transfer: "bt709", matrix: "smpte170m")))
        #expect(VideoColour(primaries: "smpte170m").differs(from: VideoColour(primaries: "bt709")))
    }

    @Test func itIsSaidInOneLine() {
        #expect(Self.hlg.description == "bt2020 / arib-std-b67 (HLG) / bt2020nc, limited range")
        #expect(VideoColour().description == "unnamed / unnamed / unnamed, limited range")
    }
}
