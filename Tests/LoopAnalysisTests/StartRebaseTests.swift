import Testing

@testable import LoopAnalysis

/// Start offsets between tracks: under half a video frame the later track is moved to the earlier
/// one's start and every frame is kept; half a frame or more is cut on the video frame grid. Unsignalled AAC
/// priming in tracks that start together is hidden with the content moved to the track's start. Every figure
/// from how the values are built.
@Suite struct StartRebaseTests {
    /// 30 frames at 30 fps on a 30000 clock (1000 ticks a frame), every frame a keyframe, presented from
    /// `delay` ticks; 16-bit PCM (no priming) of `seconds` from `audioStart` samples at 48 kHz.
    static func clip(
        videoDelay: Int64, audioStart: Int64 = 0, audioSeconds: Int64 = 2, gop: Int = 1, codec: String = "h264"
    ) -> (ClipFacts, [Int: TrackTimeline]) {
        let video = TrackTimeline(
            timeBase: Rational(1, 30000),
            samples: Make.video(frames: 30, step: 1000, delay: videoDelay, gop: gop, timescale: 30000))
        let packets = Int(audioSeconds * 48000 / 1024)
        let audio = TrackTimeline(
            timeBase: Rational(1, 48000),
            samples: Make.aac(packets: packets).map { s in
                var s = s
                s.pts += audioStart
                s.dts += audioStart
                return s
            })
        return Clips.pair(video: video, audio: audio, videoCodec: codec, audioCodec: "pcm_s16le")
    }

    /// WebM's shape: the video 7 ms after the audio (210 ticks). 7 ms is under half a frame (16.7 ms): the
    /// video moves to 0, all 30 frames kept, the shift said; the audio keeps its head.
    @Test func aStartUnderHalfAFrameIsRebasedNotCut() throws {
        let (clip, timelines) = Self.clip(videoDelay: 210)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        let audio = try #require(plan.tracks.first { $0.kind == .audio })
        #expect(video.presentedFrames == 30 && video.duration == .one)
        #expect(video.shift == Rational(7, 1000) && video.trimmedHead.isZero)
        #expect(video.mediaStart == 210)
        #expect(audio.shift == nil && audio.trimmedHead.isZero && audio.duration * 48000 == Rational(48000))
        #expect(plan.start.isZero && !plan.isNoop)
        #expect(plan.notes.contains { $0.contains("started 7.000 ms after the others") })
    }

    /// 20 ms (600 ticks) is more than half a frame: a real offset. The video starts there, whole; the audio is
    /// cut to it (960 samples).
    @Test func aVideoStartOfHalfAFrameOrMoreIsCut() throws {
        let (clip, timelines) = Self.clip(videoDelay: 600)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        let audio = try #require(plan.tracks.first { $0.kind == .audio })
        #expect(video.presentedFrames == 30 && video.shift == nil)
        #expect(audio.shift == nil && audio.trimmedHead * 48000 == Rational(960))
        #expect(plan.start == Rational(20, 1000))
    }

    /// Audio 20 ms (960 samples) after the video: the common start is inside the first frame, so the cut moves
    /// to the next frame boundary (33.3 ms): 29 frames, and the audio cut to it (1600 - 960 = 640 samples).
    @Test func aStartInsideAFrameMovesToTheNextFrame() throws {
        let (clip, timelines) = Self.clip(videoDelay: 0, audioStart: 960)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        let audio = try #require(plan.tracks.first { $0.kind == .audio })
        #expect(plan.start == Rational(1, 30))
        #expect(video.presentedFrames == 29 && video.trimmedHead == Rational(1, 30))
        #expect(audio.trimmedHead * 48000 == Rational(640))
    }

    /// Audio a sample after the video (1/48000 s, under one tick of the 30000 clock): rounding, not an offset.
    /// Every frame stays (it was cut at the next frame, and with keyframes every 10 frames, at the next keyframe).
    @Test func aStartWithinATickIsOnTheFrame() throws {
        let (clip, timelines) = Self.clip(videoDelay: 0, audioStart: 1, gop: 10)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        #expect(video.presentedFrames == 30)
        #expect(plan.start < Rational(1, 30000) * 2)
    }

    /// Audio 10 ms (480 samples) after the video, under half a frame: the audio moves to 0 instead.
    @Test func laterAudioUnderHalfAFrameIsRebased() throws {
        let (clip, timelines) = Self.clip(videoDelay: 0, audioStart: 480)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        let audio = try #require(plan.tracks.first { $0.kind == .audio })
        #expect(video.presentedFrames == 30 && video.shift == nil)
        #expect(audio.shift == Rational(10, 1000) && audio.mediaStart == 480 && audio.trimmedHead.isZero)
    }

    /// Audio 50 ms late (2400 samples) with a keyframe every 10 frames: the cut moves to frame 2 (66.7 ms),
    /// not a keyframe. H.264 with --reencode-head re-encodes frames 2-9; MPEG-4 part 2 (which loopprep cannot
    /// encode) starts at the next keyframe, frame 10, without re-encoding, and the plan says why.
    @Test func aCodecLoopprepCannotEncodeStartsOnTheNextKeyframe() throws {
        var options = FixOptions()
        options.reencodeHead = true
        let (h264, t1) = Self.clip(videoDelay: 0, audioStart: 2400, gop: 10)
        let a = try FixPlanner.plan(h264, timelines: t1, options: options)
        #expect(a.start == Rational(2, 30) && a.tracks[0].head?.frames == 8)
        let (mpeg4, t2) = Self.clip(videoDelay: 0, audioStart: 2400, gop: 10, codec: "mpeg4")
        let b = try FixPlanner.plan(mpeg4, timelines: t2, options: options)
        #expect(b.start == Rational(10, 30) && b.tracks[0].head == nil && b.tracks[0].presentedFrames == 20)
        #expect(b.notes.contains { $0.contains("loopprep re-encodes only H.264, and copies mpeg4 from a keyframe") })
    }

    /// CMAF's shape: video from 0 (negative composition offsets), AAC with FFmpeg's 1024 samples of priming
    /// and no edit list. The tracks start together, so the priming is hidden with the content moved to 0:
    /// 30 frames and 48000 samples, none cut (the issue's 3.979 s was the video cut by the priming's 21.3 ms).
    @Test func unsignalledPrimingInTracksStartedTogetherIsHiddenWithoutACut() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 30, step: 512, gop: 30, timescale: 15360))
        // 1024 priming + 1.5 s of content: 73024 samples in 72 packets (the last one 320).
        let audio = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 72, lastDuration: 320))
        let (clip, timelines) = Clips.pair(video: video, audio: audio)
        #expect(clip.mainAudio?.priming?.signalled == false)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let v = try #require(plan.tracks.first { $0.kind == .video })
        let a = try #require(plan.tracks.first { $0.kind == .audio })
        #expect(v.presentedFrames == 30 && v.duration == .one && v.trimmedHead.isZero)
        #expect(a.duration * 48000 == Rational(48000) && a.mediaStart == 1024)
        #expect(plan.start.isZero)
    }

    /// The loop's cut counts from the video's first frame: on WebM's shape (video 7 ms after
    /// the audio, rebased to 0) frames 0-14 with a keyframe every 15 are 15 frames from the first, not a start
    /// 7 ms in that moves to the next keyframe. The plan is the candidate chosen; one that is not is said.
    @Test func aLoopRangeCountsFromTheRebasedVideo() throws {
        let (clip, timelines) = Self.clip(videoDelay: 210, gop: 15)
        var options = FixOptions()
        options.range = (.zero, Rational(1, 2))
        let plan = try FixPlanner.plan(clip, timelines: timelines, options: options)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        #expect(video.presentedFrames == 15 && video.mediaStart == 210 && plan.duration == Rational(1, 2))
        let chosen = LoopCandidate(
            inFrame: 0, outFrame: 15, start: .zero, end: Rational(1, 2), pictureDifference: 0, motionDifference: 0,
            audioJump: 0, levelDifference: 0, cost: 0)
        #expect(LoopPlanCheck.difference(plan, chosen: chosen) == nil)
        var other = chosen
        other.outFrame = 45
        other.end = Rational(3, 2)
        #expect(LoopPlanCheck.difference(plan, chosen: other)?.hasPrefix("the cut would hold 15 frames") == true)
    }

    /// A designed loop with short audio: 30 frames (1 s) over 30 PCM packets of 1024 samples
    /// (0.64 s). The shortest sets the end: floor(0.64 x 30) = 19 frames. `--keep video`: every frame, the audio
    /// presented to 48000 samples, 48000 - 30720 = 17280 of them silence (re-encoded). `--drop-audio`: every
    /// frame, the audio track left out.
    @Test func keepVideoPadsAndDropAudioLeavesOut() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 30000),
            samples: Make.video(frames: 30, step: 1000, delay: 0, gop: 1, timescale: 30000))
        let audio = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 30))
        let (clip, timelines) = Clips.pair(video: video, audio: audio, audioCodec: "pcm_s16le")

        let cut = try FixPlanner.plan(clip, timelines: timelines)
        #expect(cut.tracks.first { $0.kind == .video }?.presentedFrames == 19 && !cut.padsAudio)

        var keep = FixOptions()
        keep.keepVideo = true
        let kept = try FixPlanner.plan(clip, timelines: timelines, options: keep)
        let keptVideo = try #require(kept.tracks.first { $0.kind == .video })
        let keptAudio = try #require(kept.tracks.first { $0.kind == .audio })
        #expect(keptVideo.presentedFrames == 30 && kept.duration == .one)
        #expect(keptAudio.duration == .one && keptAudio.trimmedTail == Rational(30720 - 48000, 48000))
        #expect(kept.padsAudio && kept.reencodesAudio && !kept.isNoop)
        #expect(kept.notes.contains { $0.contains("then 17280 samples (360.000 ms) of silence") })

        #expect(!kept.notes.contains { $0.contains("the cut is the usual one") })

        // The sound the longer (60 packets, 1.28 s): --keep video cuts as usual at the video's 30 frames, and says so.
        let longer = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 60))
        let (long, longTimelines) = Clips.pair(video: video, audio: longer, audioCodec: "pcm_s16le")
        let usual = try FixPlanner.plan(long, timelines: longTimelines, options: keep)
        #expect(usual.duration == .one && !usual.padsAudio && !usual.reencodesAudio)
        #expect(usual.notes.contains { $0.hasPrefix("--keep video: the sound runs to the picture's end or past it") })

        var drop = FixOptions()
        drop.dropAudio = true
        let dropped = try FixPlanner.plan(clip, timelines: timelines, options: drop)
        #expect(dropped.tracks.map(\.kind) == [.video] && dropped.tracks.first?.presentedFrames == 30)
        #expect(dropped.dropped == [1] && !dropped.isNoop && !dropped.reencodesAudio)
    }

    /// The same short sound in Matroska (its container's own, as a phone's MKV has it): padding AAC to the picture
    /// encodes it again in whole frames Matroska cannot end inside (nor hide the priming of), so `--keep video` is
    /// refused by the plan, naming `--to mp4`; converted to MP4 the pad is planned, and so is Opus in Matroska.
    @Test func keepVideoRefusesAPaddingMatroskaCannotEnd() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 1000), samples: Make.video(frames: 30, step: 33, delay: 0, gop: 1, timescale: 1000))
        let audio = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 30))
        var keep = FixOptions()
        keep.keepVideo = true
        for codec in ["aac", "ac3", "opus"] {
            var (clip, timelines) = Clips.pair(video: video, audio: audio, audioCodec: codec)
            clip.container = Container(name: "matroska")
            if codec == "opus" {
                #expect(try FixPlanner.plan(clip, timelines: timelines, options: keep).padsAudio)
                continue
            }
            #expect(throws: PlanError.self) { try FixPlanner.plan(clip, timelines: timelines, options: keep) }
            do { _ = try FixPlanner.plan(clip, timelines: timelines, options: keep) } catch let error as PlanError {
                #expect(error.reason.contains("Matroska cannot end \(codec.uppercased()) inside its last frame"))
                #expect(error.reason.contains("--to mp4 writes an MP4"))
            }
            var converted = keep
            converted.convertTo = .mp4
            #expect(try FixPlanner.plan(clip, timelines: timelines, options: converted).padsAudio)
        }
    }

    /// B-frames without an edit list at 29.97 fps: the video presented from 2002/30000 s, the
    /// audio (44.1 kHz) from sample 2943, 0.06 of a sample after it. A match: the cut starts on the first frame
    /// (it started a tick later, inside it, and lost a frame), all 60 frames kept.
    @Test func audioWithinHalfASampleAfterTheVideoStartsOnIt() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 30000),
            samples: Make.video(frames: 60, step: 1001, delay: 2002, gop: 1, timescale: 30000))
        let audio = TrackTimeline(
            timeBase: Rational(1, 44100),
            samples: Make.aac(packets: 90).map { s in
                var s = s
                s.pts += 2943
                s.dts += 2943
                return s
            })
        let (clip, timelines) = Clips.pair(video: video, audio: audio, audioCodec: "pcm_s16le", rate: 44100)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let cut = try #require(plan.tracks.first { $0.kind == .video })
        #expect(plan.start == Rational(2002, 30000) && cut.trimmedHead.isZero && cut.presentedFrames == 60)
        #expect(FixPlanner.onVideoStart(Rational(2944, 44100), []) == Rational(2944, 44100))
    }
}

/// The loop range's CMTime: the video's clock where it says both figures exactly, else the least clock
/// that does, else none (a 32-bit timescale cannot).
@Suite struct LoopRangeTimescaleTests {
    @Test func theTimescaleIsExact() throws {
        let video = Clips.video(step: 512, timescale: 15360)
        let onVideo = try #require(LoopRanges.cmTime(Rational(1, 5), Rational(6, 5), video: video))
        #expect(onVideo.start.value == 3072 && onVideo.start.timescale == 15360 && onVideo.duration.value == 18432)
        // A seventh of a second is not on a 15360 clock: the least exact one for 1/7 and 1/2, 14.
        let least = try #require(LoopRanges.cmTime(Rational(1, 7), Rational(1, 2), video: video))
        #expect(least.start.value == 2 && least.start.timescale == 14 && least.duration.value == 7)
        // 1/(2^31 + 11) needs a timescale past 32 bits.
        #expect(LoopRanges.cmTime(Rational(1, 2_147_483_659), .one, video: nil) == nil)
    }
}

/// The container fix writes, decided in the planner, on facts built in code with a table of
/// what the muxers accept (as FFmpeg's answer it): MPEG-TS becomes an MP4 beside it, PCM a MOV, `--to` a
/// Matroska file's choice or a refusal naming the codec, an MP3 that needs a cut a refusal naming
/// --reencode-audio; the plan is adjusted to it (not a copy, the note, a clock counting the audio's samples).
@Suite struct FixConversionTests {
    static func accepts(_ format: Muxer, _ codec: String) -> Bool {
        switch format {
        case .mp4: ["h264", "hevc", "aac", "mp3", "opus"].contains(codec)
        case .mov: ["h264", "hevc", "aac", "mp3", "pcm_s16le"].contains(codec)
        default: false
        }
    }

    /// 30 frames (1 s) over 47 AAC packets, every frame a keyframe, in `container`.
    static func clip(container: String = "mp4", audio: String = "aac") -> (ClipFacts, [Int: TrackTimeline]) {
        let video = TrackTimeline(
            timeBase: Rational(1, 30000),
            samples: Make.video(frames: 30, step: 1000, delay: 0, gop: 1, timescale: 30000))
        let sound = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 47))
        var (clip, timelines) = Clips.pair(video: video, audio: sound, audioCodec: audio)
        clip.container = Container(name: container)
        return (clip, timelines)
    }

    /// The picture's last frame a millisecond past the sound, in Matroska (30 frames of 33 ms end at 990 ms, the
    /// PCM's 47472 samples at 989 ms): kept in Matroska, whose millisecond tick cannot say the difference, and left
    /// out when written as an MP4 (`--to mp4`), which says both ends to the sample: 29 frames end at 957 ms, the
    /// sound cut there (45936 samples).
    @Test func anEndWithinTheInputsTickIsTheOutputsTick() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 1000), samples: Make.video(frames: 30, step: 33, gop: 30, timescale: 1000))
        let audio = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 47, lastDuration: 368))
        var (clip, timelines) = Clips.pair(video: video, audio: audio, audioCodec: "pcm_s16le")
        clip.container = Container(name: "matroska")
        clip.moovBeforeMdat = nil
        let kept = try FixPlanner.plan(clip, timelines: timelines)
        #expect(kept.tracks.first { $0.kind == .video }?.presentedFrames == 30)
        var mp4 = FixOptions()
        mp4.convertTo = .mp4
        let converted = try FixPlanner.plan(clip, timelines: timelines, options: mp4)
        #expect(converted.tracks.first { $0.kind == .video }?.presentedFrames == 29)
        #expect(converted.duration == Rational(957, 1000))
        let sound = try #require(converted.tracks.first { $0.kind == .audio })
        #expect(sound.duration * 48000 == Rational(45936))
    }

    /// The writer is part of the plan: an MP4 stream copy from its index; FFmpeg's muxer and
    /// exact edits where the plan repeats the clip, converts it, or a track changes sample description midway;
    /// Matroska's own muxer.
    @Test func theWriterIsDecidedWithThePlan() throws {
        let (mp4, tl) = Self.clip()
        #expect(try FixPlanner.plan(mp4, timelines: tl).writer == .index)
        var three = FixOptions()
        three.loops = 3
        #expect(
            try FixPlanner.plan(mp4, timelines: tl, options: three).writer
                == .remuxThenEdit(reason: "the clip is repeated 3 times"))
        var described = mp4
        described.tracks[0].sampleDescriptions = 2
        #expect(
            try FixPlanner.plan(described, timelines: tl).writer
                == .remuxThenEdit(reason: "video track 0 (h264) has 2 sample descriptions"))
        let (mkv, mkvTimelines) = Self.clip(container: "matroska")
        #expect(try FixPlanner.plan(mkv, timelines: mkvTimelines).writer == .remux)
        let (ts, tsTimelines) = Self.clip(container: "mpegts")
        let converted = try FixPlanner.plan(
            ts, timelines: tsTimelines,
            output: FixPlanner.Output(destination: "out/clip.ts", accepts: Self.accepts))
        #expect(converted.outputPath == "out/clip.mp4" && converted.convertsTo == .mp4)
        #expect(converted.writer == .remuxThenEdit(reason: "written as MP4 by FFmpeg's muxer"))
        // A conversion refused is said as it is, with the plan in the input's own container.
        #expect(throws: ConversionRefusal.self) {
            try FixPlanner.plan(
                Self.clip(container: "matroska", audio: "ac3").0, timelines: mkvTimelines,
                options: {
                    var o = FixOptions()
                    o.convertTo = .mp4
                    return o
                }(),
                output: FixPlanner.Output(destination: "a.mkv", accepts: Self.accepts))
        }
    }

    @Test func theContainerIsDecidedAndThePlanSaysSo() throws {
        let (ts0, tl) = Self.clip(container: "mpegts")
        var plan = try FixPlanner.plan(ts0, timelines: tl)
        let ts = try #require(
            try FixConversion.convert(&plan, facts: ts0, destination: "out/clip.ts", to: nil, accepts: Self.accepts))
        #expect(ts == FixConversion.Output(format: .mp4, path: "out/clip.mp4"))
        #expect(!plan.isNoop && plan.convertsTo == .mp4)
        #expect(plan.notes.last == "mpegts cannot carry an edit list: writes clip.mp4 (MP4) beside it")
        #expect(plan.movieTimescale % 48000 == 0)
        let pcm = try FixConversion.decide(
            Self.clip(container: "flv", audio: "pcm_s16le").0, destination: "a.flv", noop: false,
            accepts: Self.accepts)
        #expect(pcm?.format == .mov && pcm?.path == "a.mov")
        // Kept containers stay, the plan untouched.
        let (mp4, mp4Timelines) = Self.clip()
        var kept = try FixPlanner.plan(mp4, timelines: mp4Timelines)
        let before = kept
        #expect(
            try FixConversion.convert(&kept, facts: mp4, destination: "x.mp4", to: nil, accepts: Self.accepts) == nil)
        #expect(kept == before)
        // --to across the ISO family: a MOV asked for as an MP4 is one (and the other way); the same family stays.
        #expect(
            try FixConversion.decide(
                Self.clip(container: "mov").0, destination: "a.m4v", noop: true, to: .mp4, accepts: Self.accepts)
                == FixConversion.Output(format: .mp4, path: "a.mp4"))
        #expect(
            try FixConversion.decide(mp4, destination: "a.mp4", noop: true, to: .mov, accepts: Self.accepts)?.path
                == "a.mov")
        #expect(
            try FixConversion.decide(mp4, destination: "a.mp4", noop: true, to: .mp4, accepts: Self.accepts) == nil)
        // --to mp4 on a Matroska file with Vorbis: refused, naming it.
        #expect(throws: PlanError.self) {
            try FixConversion.decide(
                Self.clip(container: "matroska", audio: "vorbis").0, destination: "a.mkv", noop: false, to: .mp4,
                accepts: Self.accepts)
        }
        do {
            _ = try FixConversion.decide(
                Self.clip(container: "mp3", audio: "mp3").0, destination: "a.mp3", noop: false, accepts: Self.accepts)
            Issue.record("an MP3 that needs a cut was not refused")
        } catch let error as PlanError {
            #expect(error.reason.contains("--reencode-audio"))
        }
    }

    /// AVI stores decode order only: a codec with no B-frames is never refused for reordering,
    /// nor is one whose stream FFmpeg's analysis says shows its frames as it stores them (reorder depth 0); a depth
    /// above 0, or none analysed, is refused in the sentence that says so.
    @Test func aviVideoIsLookedAtBeforeItIsCalledReordered() throws {
        func refusal(codec: String, depth: Int?) -> String? {
            var (clip, _) = Self.clip(container: "avi")
            for i in clip.tracks.indices where clip.tracks[i].kind == .video {
                clip.tracks[i].codec = codec
                clip.tracks[i].profile = "High"
                clip.tracks[i].reorderDepth = depth
            }
            do {
                _ = try FixConversion.decide(clip, destination: "a.avi", noop: false, accepts: { _, _ in true })
                return nil
            } catch { return "\(error)" }
        }
        #expect(refusal(codec: "h264", depth: 0) == nil)
        #expect(refusal(codec: "msmpeg4v2", depth: nil) == nil)
        #expect(refusal(codec: "mpeg4", depth: 0) == nil)
        for (codec, depth) in [("h264", 2), ("h264", nil), ("mpeg4", 1)] as [(String, Int?)] {
            #expect(refusal(codec: codec, depth: depth)?.contains("may show its frames in another order") == true)
        }
    }
}
