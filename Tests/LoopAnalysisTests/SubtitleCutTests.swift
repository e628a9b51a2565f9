import Testing

@testable import LoopAnalysis

/// A subtitle track cut where the picture is, on Matroska's millisecond clock: every cue shown inside the cut, the
/// writer told where the cut starts and ends (it moves a cue across the start to it and ends one across the end).
@Suite struct SubtitleCutTests {
    static func track(_ cues: [(Int64, Int64)]) -> (TrackFacts, TrackTimeline) {
        let samples = cues.map { SampleTiming(dts: $0.0, pts: $0.0, duration: $0.1, isSync: true) }
        let timeline = TrackTimeline(timeBase: Rational(1, 1000), samples: samples)
        let basics = TrackBasics(index: 2, kind: .subtitle, codec: "subrip")
        // swift-format-ignore: NeverForceUnwrap
        // (A timeline of samples always presents a range.)
        return (TrackFacts(basics: basics, timeline: timeline)!, timeline)
    }

    /// Cues at 0-0.6, 1.3-2.1 and 1.9-2.2 s; the cut 0.5-1.5 s: the first (across the start) and the second
    /// (across the end) are kept, the third (after it) is not.
    @Test func cuesAcrossEitherEndAreKept() throws {
        let (facts, timeline) = Self.track([(0, 600), (1300, 800), (1900, 300)])
        let cut = try #require(
            FixPlanner.subtitleCut(facts, timeline: timeline, start: Rational(1, 2), duration: .one))
        #expect(cut.first == 0 && cut.last == 1)
        #expect(cut.keepFrom == 0 && cut.keepThrough == 1300)
        #expect(cut.mediaStart == 500 && cut.mediaEnd == 1500)
    }

    /// The track's first cue after the cut's start: the cut is still measured from the file's clock.
    @Test func aLaterFirstCueKeepsTheClock() throws {
        let (facts, timeline) = Self.track([(800, 200), (3000, 500)])
        let cut = try #require(
            FixPlanner.subtitleCut(facts, timeline: timeline, start: Rational(1, 2), duration: .one))
        #expect(cut.first == 0 && cut.last == 0 && cut.mediaStart == 500 && cut.mediaEnd == 1500)
        // No cue inside: nothing to keep.
        #expect(FixPlanner.subtitleCut(facts, timeline: timeline, start: Rational(2), duration: Rational(1, 2)) == nil)
    }
}
