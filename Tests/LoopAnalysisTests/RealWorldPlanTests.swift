import Testing

@testable import LoopAnalysis

/// The planner and the audio-frame rules on values built in code: every figure from how the values
/// were built.
@Suite struct RealWorldPlanTests {
    /// 32 frames at 30000/1001 (tick 1001 of 30000) = 51251.2 samples at 48 kHz; audio of 51251 samples.
    static func ntsc(frames: Int = 32, audioSamples: Int64) -> (ClipFacts, [Int: TrackTimeline]) {
        let video = TrackTimeline(
            timeBase: Rational(1, 30000), samples: Make.video(frames: frames, step: 1001, timescale: 30000),
            edits: [Edit(mediaTime: 0, duration: Rational(Int64(frames) * 1001, 30000))])
        let total = audioSamples + 1024
        let packets = Int((total + 1023) / 1024)
        let audio = TrackTimeline(
            timeBase: Rational(1, 48000),
            samples: Make.aac(packets: packets, lastDuration: total - Int64(packets - 1) * 1024),
            edits: [Edit(mediaTime: 1024, duration: Rational(audioSamples, 48000))])
        return Clips.pair(video: video, audio: audio)
    }

    @Test func aFrameEndingWithinHalfASampleAfterTheAudioIsKept() throws {
        let (clip, timelines) = Self.ntsc(audioSamples: 51251)
        #expect(Clips.rules(clip).isEmpty)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        let audio = try #require(plan.tracks.first { $0.kind == .audio })
        #expect(video.presentedFrames == 32)
        #expect(video.duration == Rational(32 * 1001, 30000))
        #expect(audio.duration * 48000 == Rational(51251))
        #expect(plan.isNoop)
    }

    /// 33 frames are 52852.8 samples: over 52852 samples of audio the last frame ends 0.8 of a sample after the
    /// sound. No frame is dropped for a fraction of a sample (nor is the sound one sample longer): a no-op, no
    /// finding.
    @Test func aFrameEndingLessThanASampleAfterTheAudioIsKept() throws {
        let (clip, timelines) = Self.ntsc(frames: 33, audioSamples: 52852)
        #expect(Clips.rules(clip).isEmpty)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        #expect(plan.tracks.first { $0.kind == .video }?.presentedFrames == 33)
        #expect(plan.tracks.first { $0.kind == .audio }.map { $0.duration * 48000 } == Rational(52852))
        #expect(plan.isNoop)
    }

    @Test func aFrameEndingASampleOrMoreAfterTheAudioIsDropped() throws {
        // 51250 samples: the 32nd frame ends 1.2 samples after the audio.
        let (clip, timelines) = Self.ntsc(audioSamples: 51250)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        let audio = try #require(plan.tracks.first { $0.kind == .audio })
        #expect(video.presentedFrames == 31)
        // 31 frames = 49649.6 samples: the nearest whole count.
        #expect(audio.duration * 48000 == Rational(49650))
        #expect(!plan.isNoop)
    }

    @Test func jitteredAACDurationsAreRegularOnTheMedianGrid() {
        // Durations 1017-1031 around 1024 (millisecond timestamps at 44.1 kHz) and a first packet stretched by 2176.
        var samples = Make.aac(packets: 10)
        let stored: [Int64] = [3200, 1017, 1031, 1024, 1020, 1028, 1024, 1024, 1024, 1024]
        var dts: Int64 = 0
        for i in samples.indices {
            samples[i].dts = dts
            samples[i].pts = dts
            samples[i].duration = stored[i]
            dts += stored[i]
        }
        let t = TrackTimeline(timeBase: Rational(1, 44100), samples: samples)
        #expect(AudioFrames.frameTicks(codec: "aac", sampleRate: 44100, timeline: t) == 1024)
        #expect(AudioFrames.irregular(t, frame: 1024) == [0, 1, 2, 4, 5])
        #expect(AudioFrames.isJitter(t, frame: 1024))
        let regular = AudioFrames.regular(t, frame: 1024)
        // Packet 1 is stored at 3200; 3200 - 1024 = 2176 is where most packets sit on the 1024 grid.
        #expect(regular.samples.map(\.dts) == (0..<10).map { 2176 + Int64($0) * 1024 })
        #expect(regular.samples.allSatisfy { $0.duration == 1024 })
    }

    @Test func aStoredFrameTwiceTooLongIsAHoleNotJitter() {
        var samples = Make.aac(packets: 10)
        var dts: Int64 = 0
        for i in samples.indices {
            samples[i].dts = dts
            samples[i].pts = dts
            samples[i].duration = i == 4 ? 11272 : 1024
            dts += samples[i].duration
        }
        let t = TrackTimeline(timeBase: Rational(1, 48000), samples: samples)
        #expect(!AudioFrames.isJitter(t, frame: 1024))
        let facts = TrackFacts(
            basics: TrackBasics(index: 1, kind: .audio, codec: "aac", sampleRate: 48000, channels: 1), timeline: t)!
        #expect(facts.irregularDurations == nil)
        #expect(facts.timingBreaks.map(\.length) == [11272 - 1024])
    }
}

/// HE-AAC in MP4: FFmpeg doubles an edit's skip for SBR, so a track on its output rate's clock is
/// written on its core clock. Values built in code: frames of 2048 output samples at 48 kHz, priming 2048.
@Suite struct CoreClockPlanTests {
    /// 1 s of 30 fps video and `packets` HE-AAC frames on a `timescale` clock, the edit hiding 2048 samples.
    static func clip(timescale: Int64, packets: Int = 25) -> (ClipFacts, [Int: TrackTimeline]) {
        let video = TrackTimeline(
            timeBase: Rational(1, 30000), samples: Make.video(frames: 30, step: 1000, timescale: 30000),
            edits: [Edit(mediaTime: 0, duration: .one)])
        let frame = 2048 * timescale / 48000
        let audio = TrackTimeline(
            timeBase: Rational(1, timescale),
            samples: (0..<packets).map { i in
                SampleTiming(dts: Int64(i) * frame, pts: Int64(i) * frame, duration: frame, isSync: true)
            },
            edits: [Edit(mediaTime: frame, duration: .one)])
        return Clips.pair(video: video, audio: audio, rate: 48000)
    }

    @Test func theCoreRateIsHalfTheRateOfA2048SampleFrame() throws {
        let (_, at48) = Self.clip(timescale: 48000)
        let (_, at24) = Self.clip(timescale: 24000)
        #expect(AudioFrames.sbrCoreRate(codec: "aac", sampleRate: 48000, timeline: try #require(at48[1])) == 24000)
        #expect(AudioFrames.sbrCoreRate(codec: "aac", sampleRate: 48000, timeline: try #require(at24[1])) == 24000)
        // AAC-LC (1024-sample frames) has no core clock of its own.
        let lc = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 10))
        #expect(AudioFrames.sbrCoreRate(codec: "aac", sampleRate: 48000, timeline: lc) == nil)
    }

    /// On the 48 kHz clock with 2048 samples hidden the clip is otherwise clean, but not a byte copy: it is
    /// rewritten on the 24 kHz clock, said in a note. On the 24 kHz clock it is left alone.
    @Test func anOutputClockedTrackIsRewrittenAndACoreClockedOneIsNot() throws {
        let (clip48, timelines48) = Self.clip(timescale: 48000)
        let plan48 = try FixPlanner.plan(clip48, timelines: timelines48)
        let audio48 = try #require(plan48.tracks.first { $0.kind == .audio })
        #expect(audio48.coreRate == 24000 && FixPlanner.outputClocked(audio48, timelines: timelines48))
        #expect(!plan48.isNoop && plan48.notes.contains { $0.contains("core clock (24000 Hz)") })
        #expect(audio48.duration == .one)
        let (clip24, timelines24) = Self.clip(timescale: 24000)
        let plan24 = try FixPlanner.plan(clip24, timelines: timelines24)
        let audio24 = try #require(plan24.tracks.first { $0.kind == .audio })
        #expect(audio24.coreRate == 24000 && !FixPlanner.outputClocked(audio24, timelines: timelines24))
        #expect(plan24.isNoop)
    }
}

/// Vorbis in MP4 (pymediainfo's vbr_requires_parsespeed_1.mp4, FFmpeg's experimental mapping): no
/// edit list can say where it starts for every reader, so fix refuses in words that name the remedy.
@Suite struct VorbisInMP4PlanTests {
    @Test func vorbisInAnMP4IsRefusedWithARemedy() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 30000), samples: Make.video(frames: 30, step: 1000, timescale: 30000))
        let audio = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 47))
        let (clip, timelines) = Clips.pair(video: video, audio: audio, audioCodec: "vorbis")
        let error = #expect(throws: PlanError.self) { try FixPlanner.plan(clip, timelines: timelines) }
        #expect(
            error?.reason.contains("Vorbis in an MP4") == true && error?.reason.contains("into Ogg or WebM") == true)
    }
}
