import Testing

@testable import LoopAnalysis

/// A variable frame rate is a fact of a clip: its shortest and longest frame step are said, its last frame is
/// judged against them, and a normalized stitch shows at each output instant the frame the clip shows then.
@Suite struct VariableFrameRateTests {
    /// A screen recording on a 1/15360 clock: 60 frames at 30 fps (512 ticks), then 30 at 15 fps (1024), 4.0 s.
    static let screen: TrackTimeline = {
        var samples: [SampleTiming] = []
        var at: Int64 = 0
        for k in 0..<90 {
            let step: Int64 = k < 60 ? 512 : 1024
            samples.append(SampleTiming(dts: at, pts: at, duration: step, isSync: k == 0))
            at += step
        }
        return TrackTimeline(timeBase: Rational(1, 15360), samples: samples)
    }()

    static func facts() throws -> TrackFacts {
        let basics = TrackBasics(index: 0, kind: .video, codec: "h264", width: 160, height: 120)
        return try #require(TrackFacts(basics: basics, timeline: screen))
    }

    @Test func theStepsAreFactsAndTheLastFrameIsOneOfThem() throws {
        let track = try Self.facts()
        #expect(track.variableFrameRate?.shortest.ticks == Rational(512))
        #expect(track.variableFrameRate?.longest.ticks == Rational(1024))
        #expect(track.frameCount == 90 && track.durationSeconds == Rational(4))
        // The last frame lasts 1/15 s, the commonest step 1/30: one of the clip's own frames, not a gap.
        #expect(track.lastFrameDuration == 1024 && track.nominalFrameDuration == 512)
        #expect(TimestampGap().lastFrame(track).isEmpty)
        // At a constant rate the same last frame would end the track a frame late.
        var constant = track
        constant.variableFrameRate = nil
        #expect(TimestampGap().lastFrame(constant).count == 1)
    }

    /// A millisecond clock's 33 and 34 ms at 30 fps is one rate.
    @Test func aTicksRoundingIsNoVariableRate() throws {
        let samples = (0..<30).map { k in
            SampleTiming(dts: Int64(k) * 100 / 3, pts: Int64(k) * 100 / 3, duration: 33, isSync: k == 0)
        }
        let basics = TrackBasics(index: 0, kind: .video, codec: "h264", width: 160, height: 120)
        let track = try #require(
            TrackFacts(basics: basics, timeline: TrackTimeline(timeBase: Rational(1, 1000), samples: samples)))
        #expect(track.variableFrameRate == nil)
    }

    /// Normalized to 60 fps: 4.0 s is 240 frames, and output frame m shows the frame presented at m/60 s (at
    /// 2.5 s, frame 60 + 7: the 15 fps part started at 2 s, a frame every 1/15 s).
    @Test func aNormalizedClipKeepsItsTime() throws {
        let clip = Clips.clip([try Self.facts()])
        let plan = try FixPlanner.plan(clip, timelines: [0: Self.screen])
        let source = try StitchSource.make(path: "screen.mp4", plan: plan, video: Self.screen, frameRate: Rational(30))
        #expect(source.variableSteps?.shortest == 512 && source.variableSteps?.longest == 1024)
        #expect(source.presentedSeconds == Rational(4))
        #expect(source.outputFrames(rate: Rational(60)) == 240)
        let timeline = try StitchPlanner.timeline(
            [StitchClip(path: "screen.mp4", frames: 240)], transitions: [], frameRate: Rational(60), sampleRate: nil,
            loop: false)
        let geometry = StitchGeometry(sources: [source], timeline: timeline, normalize: true)
        #expect(geometry.count(0) == 240)
        #expect(geometry.sourceIndex(0, 0) == 0 && geometry.sourceIndex(0, 1) == 0 && geometry.sourceIndex(0, 2) == 1)
        #expect(geometry.sourceIndex(0, 119) == 59 && geometry.sourceIndex(0, 120) == 60)
        #expect(geometry.sourceIndex(0, 150) == 67 && geometry.sourceIndex(0, 239) == 89)
    }
}
