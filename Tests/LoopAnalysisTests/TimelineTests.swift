import Testing

@testable import LoopAnalysis

/// Builders for timelines as containers store them.
enum Make {
    /// CFR video in decode order; `delay` composition offset on every frame (B-frame reorder delay),
    /// keyframe every `gop` frames.
    static func video(frames: Int, step: Int64, delay: Int64 = 0, gop: Int = 30, timescale: Int64) -> [SampleTiming] {
        (0..<frames).map { i in
            SampleTiming(dts: Int64(i) * step, pts: Int64(i) * step + delay, duration: step, isSync: i % gop == 0)
        }
    }

    /// AAC packets of 1024 samples, the last one shortened to `lastDuration`.
    static func aac(packets: Int, lastDuration: Int64 = 1024) -> [SampleTiming] {
        (0..<packets).map { i in
            SampleTiming(
                dts: Int64(i) * 1024, pts: Int64(i) * 1024, duration: i == packets - 1 ? lastDuration : 1024,
                isSync: true)
        }
    }
}

@Suite struct TimelineTests {
    @Test func noEditListPresentsFromFirstPts() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 30, step: 512, timescale: 15360))
        let r = try #require(t.presentedRange())
        #expect(r.start == .zero)
        #expect(r.duration == .one)
        #expect(r.presentedSampleCount == 30)
        #expect(r.firstSample == 0)
    }

    /// A montage: 75 frames stored (2.5 s at 30 fps), two edits presenting frames 0-29 (1 s from 0)
    /// and 45-64 (2/3 s from 1.5 s): 50 frames presented, not the 65 between the first edit's start and the
    /// last one's end.
    @Test func aMontageCountsTheFramesItsEditsPresent() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 75, step: 512, timescale: 15360),
            edits: [
                Edit(mediaTime: 0, duration: .one), Edit(mediaTime: 45 * 512, duration: Rational(2, 3)),
            ])
        let r = try #require(t.presentedRange())
        #expect(r.presentedSampleCount == 50)
        #expect(r.duration == Rational(5, 3))
        #expect(r.firstSample == 0)
    }

    @Test func bFrameDelayWithoutEditListIsAStartOffset() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 30, step: 512, delay: 1024, timescale: 15360))
        let r = try #require(t.presentedRange())
        #expect(r.start == Rational(1024, 15360))
    }

    @Test func editListHidesBFrameDelayAndPriming() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 30, step: 512, delay: 1024, timescale: 15360),
            edits: [Edit(mediaTime: 1024, duration: .one)])
        let v = try #require(video.presentedRange())
        #expect(v.start == .zero && v.duration == .one)
        #expect(v.firstSample == 0)

        // 48000 samples + 1024 priming: 48 packets, the last holding 896 real samples.
        let audio = TrackTimeline(
            timeBase: Rational(1, 48000), samples: Make.aac(packets: 48, lastDuration: 896),
            edits: [Edit(mediaTime: 1024, duration: .one)])
        let a = try #require(audio.presentedRange())
        #expect(a.duration == .one)
        #expect(a.signalledDelay == 1024)
        #expect(a.duration * 48000 == Rational(48000))
    }

    @Test func emptyEditDelaysTheTrack() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 48000), samples: Make.aac(packets: 10),
            edits: [Edit(mediaTime: nil, duration: Rational(1, 10)), Edit(mediaTime: 0, duration: Rational(1, 5))])
        let r = try #require(t.presentedRange())
        #expect(r.start == Rational(1, 10))
        #expect(r.end == Rational(3, 10))
        #expect(r.signalledDelay == 0)
    }

    @Test func editLongerThanMediaIsClampedToMedia() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 48000), samples: Make.aac(packets: 10),
            edits: [Edit(mediaTime: 1024, duration: Rational(10))])
        let r = try #require(t.presentedRange())
        #expect(r.duration == Rational(9 * 1024, 48000))
    }

    @Test func editStartingMidGopPointsAtANonKeyframe() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 60, step: 512, gop: 60, timescale: 15360),
            edits: [Edit(mediaTime: 512 * 15, duration: .one)])
        let r = try #require(t.presentedRange())
        #expect(r.firstSample == 15)
        #expect(t.samples[r.firstSample!].isSync == false)
        #expect(r.presentedSampleCount == 30)
    }

    @Test func skipSamplesAndDiscardedPacketsSignalDelay() throws {
        var samples = Make.aac(packets: 5)
        for i in samples.indices {
            samples[i].pts -= 1024
            samples[i].dts -= 1024
        }
        samples[0].isDiscarded = true
        let t = TrackTimeline(timeBase: Rational(1, 48000), samples: samples, skipEnd: 128)
        let r = try #require(t.presentedRange())
        #expect(r.start == .zero)
        #expect(r.signalledDelay == 1024)
        #expect(r.duration == Rational(4 * 1024 - 128, 48000))
    }

    @Test func aHeldVideoFrameIsNotAHole() {
        var samples = Make.video(frames: 30, step: 512, timescale: 15360)
        samples.removeSubrange(15..<20)
        // The muxer stores the frame before the drop as lasting six frames: players hold it that long.
        samples[14].duration = 512 * 6
        let t = TrackTimeline(timeBase: Rational(1, 15360), samples: samples)
        #expect(t.timingBreaks(frameStep: 512, tolerance: 0).isEmpty)
    }

    @Test func twoVideoFramesAtOneInstantAreAnOverlap() {
        var samples = Make.video(frames: 10, step: 512, timescale: 15360)
        samples[5].pts = samples[4].pts
        let breaks = TrackTimeline(timeBase: Rational(1, 15360), samples: samples).timingBreaks(
            frameStep: 512, tolerance: 0)
        #expect(breaks == [TimingBreak(at: 4 * 512, expectedAt: 5 * 512, length: -512)])
    }

    @Test func variableFrameRateJitterIsNotAHole() {
        let pts: [Int64] = [0, 20, 40, 62, 80, 99, 120]
        let samples = pts.enumerated().map { SampleTiming(dts: $1, pts: $1, duration: 20, isSync: $0 == 0) }
        #expect(
            TrackTimeline(timeBase: Rational(1, 600), samples: samples).timingBreaks(frameStep: 20, tolerance: 0)
                .isEmpty)
    }

    @Test func audioGapsRespectCoarseTickTolerance() {
        // Matroska: 21.333 ms packets stored as 21/22 ms.
        let pts: [Int64] = [0, 21, 43, 64, 85, 150]
        let samples = pts.map { SampleTiming(dts: $0, pts: $0, duration: 21, isSync: true) }
        let breaks = TrackTimeline(timeBase: Rational(1, 1000), samples: samples).timingBreaks(
            frameStep: nil, tolerance: 1)
        #expect(breaks == [TimingBreak(at: 150, expectedAt: 106, length: 44)])
    }

    @Test func nominalDurationIsTheCommonest() {
        var samples = Make.video(frames: 10, step: 1001, timescale: 30000)
        samples[9].duration = 2002
        #expect(TrackTimeline(timeBase: Rational(1, 30000), samples: samples).nominalDuration == 1001)
    }
}
