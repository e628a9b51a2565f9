import Testing

@testable import LoopAnalysis

@Suite struct RuleTests {
    @Test func cleanClipHasNoErrorOrWarning() {
        #expect(Clips.rules(Clips.clean) == [])
    }

    @Test func ntscClipWithExactAudioIsClean() {
        let v = Clips.video(
            frames: 30, step: 1001, timescale: 30000, edits: [Edit(mediaTime: 0, duration: Rational(1001, 1000))])
        #expect(v.frameRate == Rational(30000, 1001))
        let clip = Clips.clip([v, Clips.audio(seconds: Rational(1001, 1000))])
        #expect(Clips.rules(clip) == [])
    }

    @Test func ntscClipAt44kWithinHalfASampleIsClean() {
        // 1.001 s is 44144.1 samples at 44.1 kHz: the nearest whole count is 0.1 sample short.
        let v = Clips.video(frames: 30, step: 1001, timescale: 30000, edits: nil)
        let a = Clips.audio(seconds: Rational(44144, 44100), rate: 44100)
        #expect(Clips.rules(Clips.clip([v, a])) == [])
    }

    @Test func emptyTrackIsAWarningAndLeftOutByTheFix() throws {
        var clip = Clips.clip([Clips.video()])
        clip.emptyTracks = [EmptyTrack(index: 1, kind: .audio, codec: "aac")]
        let f = try #require(Analyzer.findings(in: clip).first)
        #expect(f.rule == "empty-track" && f.severity == .warning && f.track == 1)
        let timeline = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 30, step: 512, timescale: 15360),
            edits: [Edit(mediaTime: 0, duration: .one)])
        let plan = try FixPlanner.plan(clip, timelines: [0: timeline], options: .init())
        #expect(plan.dropped == [1] && !plan.isNoop)
    }

    @Test func movieHeaderLongerOrShorterThanTheTracks() throws {
        var clip = Clips.clean
        clip.movieDuration = Rational(3, 2)
        let f = try #require(Analyzer.findings(in: clip).first)
        #expect(f.rule == "movie-duration-mismatch" && f.severity == .warning)
        #expect(
            f.message
                == """
                the movie header says 1.500 s but the tracks end at 1.000 s: a looping player waits 500.000 ms at \
                the end of every loop
                """
        )
        clip.movieDuration = Rational(9, 10)
        #expect(Clips.rules(clip) == ["movie-duration-mismatch"])
        // Within one movie tick (muxers round to whole ticks), or fragmented: nothing.
        clip.movieDuration = Rational(1001, 1000)
        #expect(Clips.rules(clip) == [])
        clip.movieDuration = .zero
        clip.fragmented = true
        #expect(Clips.rules(clip) == [])
    }

    @Test func audioLongerIsAnErrorWithFigures() throws {
        let clip = Clips.clip([Clips.video(), Clips.audio(seconds: Rational(3, 2))])
        let f = try #require(Analyzer.findings(in: clip).first)
        #expect(f.rule == "audio-longer-than-video")
        #expect(f.severity == .error)
        #expect(f.figures["samples"] == 24000)
        #expect(f.figures["frames"] == 15)
        #expect(f.message.contains("500.000 ms = 24000 samples = 15 frames"))
    }

    @Test func videoLongerBelowHalfAFrameIsAWarning() throws {
        // 10 ms short: more than half a sample, less than half a frame (16.7 ms).
        let clip = Clips.clip([Clips.video(), Clips.audio(seconds: Rational(99, 100))])
        let f = try #require(Analyzer.findings(in: clip).first)
        #expect(f.rule == "video-longer-than-audio")
        #expect(f.severity == .warning)
    }

    @Test func halfASampleIsTolerated() {
        let clip = Clips.clip([Clips.video(), Clips.audio(seconds: Rational(96001, 96000))])
        #expect(Clips.rules(clip) == [])
    }

    /// Picture past the sound by a fraction of a sample is no difference (no frame is dropped for it, and the sound
    /// cannot be longer by a fraction); a whole sample is. Sound past the picture by more than half a sample is
    /// (the fix cuts it to the nearest sample). At 30000/1001 fps and 48 kHz, 33 frames are 52852.8 samples and
    /// 32 frames 51251.2.
    @Test func pictureLessThanASamplePastTheSoundIsNoDifference() {
        let ntsc = { (frames: Int64, samples: Int64) in
            Clips.rules(
                Clips.clip([
                    Clips.video(
                        frames: Int(frames), step: 1001, timescale: 30000,
                        edits: [Edit(mediaTime: 0, duration: Rational(frames * 1001, 30000))]),
                    Clips.audio(seconds: Rational(samples, 48000)),
                ]))
        }
        #expect(ntsc(33, 52852) == [])  // picture 0.8 of a sample past
        #expect(ntsc(33, 52851) == ["video-longer-than-audio"])  // 1.8
        #expect(ntsc(33, 52853) == [])  // sound 0.2 past
        #expect(ntsc(32, 51252) == ["audio-longer-than-video"])  // sound 0.8 past
    }

    @Test func startOffset() {
        var late = Clips.audio()
        late.startSeconds = Rational(1, 10)
        #expect(Clips.rules(Clips.clip([Clips.video(), late])).contains("start-offset"))
    }

    @Test func primingNotSignalled() {
        let clip = Clips.clip([Clips.video(), Clips.audio(priming: nil)])
        #expect(Clips.rules(clip) == ["priming-not-signalled"])
        let pcm = Clips.clip([Clips.video(), Clips.audio(priming: nil, codec: "pcm_s16le")])
        #expect(Clips.rules(pcm) == [])
    }

    @Test func firstFrameNotKeyframe() {
        let v = Clips.video(frames: 60, edits: [Edit(mediaTime: 512 * 5, duration: .one)])
        #expect(Clips.rules(Clips.clip([v])).contains("first-frame-not-keyframe"))
    }

    @Test func timestampGap() {
        var v = Clips.video()
        v.timingBreaks = [TimingBreak(at: 10240, expectedAt: 7680, length: 2560)]
        v.timingBreakCount = 1
        let findings = Analyzer.findings(in: Clips.clip([v, Clips.audio()]))
        #expect(findings.map(\.rule) == ["timestamp-gap"])
        #expect(findings[0].message.contains("166.667 ms = 5 frames"))
    }

    @Test func oddLastFrameMovesTheEnd() {
        var v = Clips.video()
        v.lastFrameDuration = 2048
        #expect(Clips.rules(Clips.clip([v, Clips.audio()])) == ["timestamp-gap"])
        v.lastFrameDuration = 600
        #expect(Clips.rules(Clips.clip([v, Clips.audio()])) == [])
    }

    @Test func moovAtEnd() {
        #expect(Clips.rules(Clips.clip([Clips.video(), Clips.audio()], moovFirst: false)) == ["moov-at-end"])
        #expect(
            Clips.rules(
                Clips.clip([Clips.video(), Clips.audio()], container: "webm", moovFirst: nil),
                options: .init(target: .web)) == [])
    }

    @Test func tooShortSaysHowManyRepeats() throws {
        let clip = Clips.clip([Clips.video(frames: 9, edits: nil), Clips.audio(seconds: Rational(3, 10))])
        let f = try #require(Analyzer.findings(in: clip).first { $0.rule == "too-short-to-loop" })
        #expect(f.figures["repeats"] == 4)
        let longer = AnalysisOptions(minimumLoopSeconds: Rational(1, 5))
        #expect(!Clips.rules(clip, options: longer).contains("too-short-to-loop"))
    }

    @Test func notPlayableDependsOnTarget() {
        let vp9 = Clips.video(basics: TrackBasics(index: 0, kind: .video, codec: "vp9"))
        let clip = Clips.clip([vp9, Clips.audio(priming: nil, codec: "opus")], container: "webm", moovFirst: nil)
        #expect(Clips.rules(clip, options: .init(target: .apple)).filter { $0 == "not-playable-on-target" }.count == 3)
        #expect(Clips.rules(clip, options: .init(target: .web)) == [])
        let prores = Clips.clip(
            [
                Clips.video(basics: TrackBasics(index: 0, kind: .video, codec: "prores")),
                Clips.audio(priming: nil, codec: "pcm_s16le"),
            ], container: "mov")
        #expect(Clips.rules(prores) == [])
    }

    @Test func seamRules() {
        let click = Clips.clip(
            [Clips.video(), Clips.audio()], seam: SeamFacts(videoDifference: 1, videoMotion: 0, audioJump: [0.01, 0.2]))
        let f = Analyzer.findings(in: click)
        #expect(f.map(\.rule) == ["seam-audio-click"])
        #expect(f.first?.figures["channel"] == 2)
        let jump = Clips.clip(
            [Clips.video(), Clips.audio()], seam: SeamFacts(videoDifference: 20, videoMotion: 2, audioJump: [0]))
        #expect(Clips.rules(jump) == ["seam-visual-jump"])
        // Lots of motion anyway: a big difference at the seam is not a cut.
        let moving = Clips.clip(
            [Clips.video(), Clips.audio()], seam: SeamFacts(videoDifference: 20, videoMotion: 10, audioJump: [0]))
        #expect(Clips.rules(moving) == [])
    }

    @Test func rotationIsOnlyInfo() {
        let v = Clips.video(basics: TrackBasics(index: 0, kind: .video, codec: "h264", rotation: 90))
        let f = Analyzer.findings(in: Clips.clip([v, Clips.audio()]))
        #expect(f.map(\.rule) == ["rotation"])
        #expect(f.first?.severity == .info)
    }

    @Test func everyRuleIdIsKebabCaseAndUnique() {
        let ids = Analyzer.allIDs
        #expect(Set(ids).count == ids.count)
        for id in ids { #expect(id.allSatisfy { $0.isLowercase || $0 == "-" }, "\(id)") }
    }
}

@Suite struct ReportTests {
    static func file(_ path: String, _ severities: [Severity], unreadable: Bool = false) -> FileReport {
        FileReport(
            path: path, facts: nil,
            findings: severities.map { Finding(rule: "r", severity: $0, message: "m", hint: "h") },
            error: unreadable ? "open: bad" : nil)
    }

    @Test func exitStatusFollowsFailOn() {
        let report = Report(
            command: "analyze", options: .init(), files: [Self.file("b", [.warning]), Self.file("a", [])])
        #expect(report.exitStatus(failOn: .error) == .clean)
        #expect(report.exitStatus(failOn: .warning) == .findings)
        #expect(report.exitStatus(failOn: .never) == .clean)
        #expect(report.files.map(\.path) == ["a", "b"])
    }

    @Test func unreadableWinsOverFindings() {
        let report = Report(
            command: "analyze", options: .init(),
            files: [Self.file("a", [.error]), Self.file("b", [.error], unreadable: true)])
        #expect(report.exitStatus(failOn: .never) == .unreadable)
        #expect(report.summary.unreadable == 1)
        #expect(report.summary.errors == 2)
    }
}

@Suite struct ResolutionTests {
    /// Matroska timestamps are milliseconds: a difference under one tick cannot be stored, so it is not reported;
    /// MP4 edit lists can express it, so there it is.
    @Test func millisecondContainersTolerateOneTick() {
        func clip(audioEnd: Rational, container: String, moov: Bool?) -> ClipFacts {
            var v = Clips.video()
            var a = Clips.audio()
            v.timeBase = Rational(1, 1000)
            a.timeBase = Rational(1, 1000)
            a.durationSeconds = audioEnd
            return Clips.clip([v, a], container: container, moovFirst: moov)
        }
        let webm = AnalysisOptions(target: .web)
        #expect(Clips.rules(clip(audioEnd: Rational(10005, 10000), container: "webm", moov: nil), options: webm) == [])
        #expect(
            Clips.rules(clip(audioEnd: Rational(1002, 1000), container: "webm", moov: nil), options: webm) == [
                "audio-longer-than-video"
            ])
        #expect(
            Clips.rules(clip(audioEnd: Rational(10005, 10000), container: "mp4", moov: true)) == [
                "audio-longer-than-video"
            ])
    }
}

/// The seam's structure against the frames around it, on pictures built in code: a 64x36
/// pattern of sparse dots is its own match (0); the same dots elsewhere are a cut however small the mean luma
/// step; unrelated noise is about half unlike; and the verdict weighs the seam against its neighbours' spread.
@Suite struct SeamStructureTests {
    static func dots(_ seed: Int) -> [UInt8] {
        var state = UInt64(seed) &* 6_364_136_223_846_793_005 &+ 1
        return (0..<(64 * 36)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 60 == 0 ? 255 : 0
        }
    }

    @Test func dissimilaritySeesStructure() {
        let a = Self.dots(1)
        let b = Self.dots(2)
        #expect(SeamStructure.dissimilarity(a, a, width: 64, height: 36) == 0)
        let mean = zip(a, b).map { abs(Double($0) - Double($1)) }.reduce(0, +) / Double(a.count)
        // Sparse dots elsewhere (1 pixel in 16 lit): a mean luma step of about 2 x 255/16 = 30 at most, a large
        // change of structure.
        #expect(mean < 40 && SeamStructure.dissimilarity(a, b, width: 64, height: 36) > 0.5)
    }

    @Test func theVerdictWeighsTheSeamAgainstItsNeighbours() {
        // Game of Life's figures: neighbours 0.04-0.05, the seam 0.33.
        #expect(SeamStructure.verdict(seam: 0.33, neighbours: [0.035, 0.052, 0.036, 0.04]) == .cut)
        // A repeat under temporal noise: the seam like its neighbours.
        #expect(SeamStructure.verdict(seam: 0.012, neighbours: [0.014, 0.012, 0.012, 0.015]) == .seamless)
        #expect(SeamStructure.verdict(seam: 0.042, neighbours: [0.025, 0.047, 0.017, 0.085]) == .seamless)
        // Noise: every pair half unlike.
        #expect(SeamStructure.verdict(seam: 0.5, neighbours: [0.5, 0.49, 0.45, 0.47]) == .noStructure)
        // Under the floor, never a cut.
        #expect(SeamStructure.verdict(seam: 0.09, neighbours: [0, 0, 0, 0]) == .seamless)
        // A car passing close on one side of the seam (the street: 0.88 against 0.46): their spread would
        // hide it (0.2 + 4 x 0.2), half again above the largest does not.
        #expect(SeamStructure.verdict(seam: 0.88, neighbours: [0.46, 0.3, 0.01, 0.01]) == .cut)
        // One frame unlike both its neighbours (a flash on the loop's first frame): the seam is one of the steps.
        #expect(SeamStructure.verdict(seam: 0.5, neighbours: [0.01, 0.01, 0.5, 0.01]) == .seamless)
        // A cut in the footage beside the seam (a new shot on the loop's last frame) is no motion to judge it by;
        // a slide's steps, which last, are (stitch's slideleft joined to itself: 0.80 against 0.67 and 0.81).
        #expect(SeamStructure.verdict(seam: 0.85, neighbours: [0.01, 1.0, 0.01, 0.01]) == .cut)
        #expect(SeamStructure.verdict(seam: 0.80, neighbours: [0.67, 0.81, 0.04, 0.06]) != .cut)
        // Fast footage half unlike frame to frame: a seam far beyond it is a cut, one like it is no structure.
        #expect(SeamStructure.verdict(seam: 0.95, neighbours: [0.45, 0.47, 0.46, 0.44]) == .cut)
        #expect(SeamStructure.verdict(seam: 0.48, neighbours: [0.45, 0.47, 0.46, 0.44]) == .noStructure)
        // analyze's rule takes it: a seam-visual-jump with a small luma step.
        var clip = Clips.clean
        clip.seam = SeamFacts(videoDifference: 6.8, videoMotion: 2.4)
        clip.seam?.structure = SeamStructureFigures(seam: 0.33, neighbours: [0.035, 0.052, 0.036, 0.04])
        #expect(Clips.rules(clip).contains("seam-visual-jump"))
        clip.seam?.structure = nil
        #expect(!Clips.rules(clip).contains("seam-visual-jump"))
    }
}

/// Colour counts at the seam: SeamPicture is the larger of the mean luma and the mean chroma
/// step. BT.601 (limited range) puts red #FF0000 at Y 81.5, Cb 90, Cr 240 and #3535FF at Y 81.3, Cb 216.7, Cr
/// 113.6: one luma, a colour step of (127 + 126) / 2 = 126.5.
@Suite struct SeamPictureTests {
    @Test func aHueCutAtOneLumaIsAStep() {
        let luma = [UInt8](repeating: 81, count: 64 * 36)
        let quarter = 32 * 18
        let red = [UInt8](repeating: 90, count: quarter) + [UInt8](repeating: 240, count: quarter)
        let blue = [UInt8](repeating: 217, count: quarter) + [UInt8](repeating: 114, count: quarter)
        #expect(SeamPicture.difference(luma, red, luma, blue) == 126.5)
        // The luma alone, as before, where the colour holds (or is not read).
        let brighter = [UInt8](repeating: 91, count: 64 * 36)
        #expect(SeamPicture.difference(luma, red, brighter, red) == 10)
        #expect(SeamPicture.difference(luma, [], brighter, []) == 10)
        // analyze's rule takes it: a still red field cut to blue (no motion) is a cut.
        var clip = Clips.clean
        clip.seam = SeamFacts(videoDifference: SeamPicture.difference(luma, red, luma, blue), videoMotion: 0)
        #expect(Clips.rules(clip).contains("seam-visual-jump"))
    }
}

/// Ogg counts granules: a Theora clock of 1/25 s is no tolerance for the audio's end, which a
/// page's granule places to the sample. 70 frames (2.8 s) over 133120 samples (2.773 s) is 26.7 ms too long.
@Suite struct OggResolutionTests {
    @Test func theFinestCutNotTheCoarsestClock() {
        var video = Clips.video(frames: 70, step: 1, timescale: 25, edits: nil)
        video.codec = "theora"
        let audio = Clips.audio(seconds: Rational(133120, 48000), priming: nil, codec: "vorbis")
        let ogg = Clips.clip([video, audio], container: "ogg", moovFirst: nil)
        #expect(ogg.timestampResolution == .zero)
        #expect(Clips.rules(ogg, options: AnalysisOptions(target: .web)).contains("video-longer-than-audio"))
    }
}

/// Opus's dOps written little-endian: an implausible pre-skip whose bytes swapped are a usual one.
@Suite struct OpusHeaderByteOrderTests {
    static func opus(preSkip: Int64) -> TrackFacts {
        var t = Clips.audio(priming: nil, codec: "opus")
        t.priming = PrimingFacts(samples: preSkip, signalled: true, method: "codec header")
        return t
    }

    @Test func aSwappedPreSkipIsFound() {
        #expect(OpusHeaderByteOrder.swappedPreSkip(Self.opus(preSkip: 0x3801), in: .mp4) == 312)
        #expect(OpusHeaderByteOrder.swappedPreSkip(Self.opus(preSkip: 312), in: .mp4) == nil)
        // Implausible both ways round: not a byte-order slip.
        #expect(OpusHeaderByteOrder.swappedPreSkip(Self.opus(preSkip: 0xFFFF), in: .mp4) == nil)
    }

    /// Matroska's and Ogg's OpusHead is little-endian by its own spec: a cut 128 ms in that hides 6144 samples
    /// (0x1800, 24 read the other way round) is what it says.
    @Test func onlyAnMP4sDOpsIsBigEndian() {
        #expect(OpusHeaderByteOrder.swappedPreSkip(Self.opus(preSkip: 0x1800), in: .mp4) == 24)
        #expect(OpusHeaderByteOrder.swappedPreSkip(Self.opus(preSkip: 0x1800), in: .webm) == nil)
        #expect(OpusHeaderByteOrder.swappedPreSkip(Self.opus(preSkip: 0x1800), in: .matroska) == nil)
        #expect(OpusHeaderByteOrder.swappedPreSkip(Self.opus(preSkip: 0x1800), in: .ogg) == nil)
    }
}

/// Matroska video durations no frame has: under half the step to the next frame, the step is
/// taken; the last frame's, under half the usual step, takes that; plausible ones (33 and 34 ms) stay.
@Suite struct ImplausibleDurationsTests {
    @Test func aLengthUnderHalfTheStepIsTheStep() {
        let pts: [Int64] = [0, 33, 67, 100]
        let oneMs = pts.map { SampleTiming(dts: $0, pts: $0, duration: 1, isSync: $0 == 0) }
        #expect(ImplausibleDurations.fix(oneMs).map(\.duration) == [33, 34, 33, 33])
        let real = zip(pts, [33, 34, 33, 34] as [Int64]).map {
            SampleTiming(dts: $0.0, pts: $0.0, duration: $0.1, isSync: false)
        }
        #expect(ImplausibleDurations.fix(real) == real)
    }
}

/// What a Matroska file carries beside its tracks, said in the plan: attached files kept in a Matroska output,
/// chapters and an attached picture in each container with a place for them, the rest named as left out.
@Suite struct CarriedNoteTests {
    static func clip(files: [String], pictures: [String], chapters: Int) -> ClipFacts {
        var c = Clips.clip([Clips.video()], container: "matroska", moovFirst: nil)
        c.attachedFiles = files
        c.attachedPictures = pictures
        c.chapterCount = chapters
        return c
    }

    @Test func keptOrNamed() {
        let both = Self.clip(files: ["font.ttf"], pictures: ["cover.png"], chapters: 2)
        #expect(
            FixPlanner.carriedNote(both, output: .matroska)
                == "keeps the attached file font.ttf, 2 chapters (cut to the output) and the attached picture cover.png"
        )
        // MP4: chapters as its chapter track, the cover as covr; no place for a font.
        #expect(
            FixPlanner.carriedNote(both, output: .mp4)
                == "keeps 2 chapters (cut to the output) and the attached picture cover.png; "
                + "leaves out the attached file font.ttf"
        )
        // FFmpeg's WebM muxer writes chapters and passes over attachments.
        #expect(
            FixPlanner.carriedNote(both, output: .webm)
                == "keeps 2 chapters (cut to the output); "
                + "leaves out the attached file font.ttf and the attached picture cover.png"
        )
        #expect(FixPlanner.carriedNote(Self.clip(files: [], pictures: [], chapters: 0), output: .webm) == nil)
        // Tags by name in any case (Matroska's are upper case); the writing application and an MP4's own brands
        // are every muxer's own, written anew.
        var tagged = Self.clip(files: [], pictures: [], chapters: 0)
        tagged.tags = ["ENCODER", "COMPATIBLE_BRANDS", "MAJOR_BRAND", "ARTIST", "title", "CREATOR"]
        #expect(FixPlanner.carriedNote(tagged, output: .mp4) == "leaves out the tag CREATOR (MP4 has no place for it)")
        #expect(FixPlanner.carriedNote(tagged, output: .matroska) == nil)
    }
}
