import LoopAnalysis
import Testing

/// The container timing repairs are values (LoopAnalysis/Timing): each expected figure comes from the
/// container's documented behaviour, worked by hand.
@Suite struct TimingRepairTests {
    /// MPEG-2 with B-frames in MPEG-PS, decode order I P B B P B B on a 10-tick grid: the B-frames (shown at
    /// 20, 30, 50, 60) and the first I (10) have a PTS, the P frames none. They are shown at the free places,
    /// 40 and 70, in decode order.
    @Test func missingPresentationTimesTakeTheFreePlacesOnTheGrid() throws {
        let dts: [Int64] = [0, 10, 20, 30, 40, 50, 60]
        let pts: [Int64] = [10, -1, 20, 30, -1, 50, 60]
        let samples = zip(dts, pts).map { SampleTiming(dts: $0, pts: $1 < 0 ? $0 : $1, duration: 10, isSync: $1 == 10) }
        let filled = try #require(MissingPresentation.fill(samples, missing: [1, 4]))
        #expect(filled.map(\.pts) == [10, 40, 20, 30, 70, 50, 60])
        // Without B-frames: one reorder delay for all.
        let plain = dts.map { SampleTiming(dts: $0, pts: $0 == 30 ? $0 : $0 + 10, duration: 10, isSync: $0 == 0) }
        #expect(MissingPresentation.fill(plain, missing: [3])?.map(\.pts) == [10, 20, 30, 40, 50, 60, 70])
        // A known PTS off the grid: no guess.
        var odd = samples
        odd[2].pts = 25
        #expect(MissingPresentation.fill(odd, missing: [1, 4]) == nil)
    }

    /// Matroska SimpleBlocks carry no duration: each takes the step to the next block in presentation order
    /// (B-frames are stored out of it), the last the commonest step; of two as common, the smaller.
    @Test func missingDurationsAreTheStepToTheNextFrame() {
        let blocks = [0, 33, 67, 100].map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: $0 == 0) }
        #expect(MissingDurations.fill(blocks).map(\.duration) == [33, 34, 33, 33])
        let reordered = [0, 30, 10, 20].map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: $0 == 0) }
        #expect(MissingDurations.fill(reordered).map(\.duration) == [10, 10, 10, 10])
        let tie = [0, 40, 81].map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: true) }
        #expect(MissingDurations.fill(tie).map(\.duration) == [40, 41, 40])
        // Known durations are kept.
        let known = [SampleTiming(dts: 0, pts: 0, duration: 20, isSync: true)]
        #expect(MissingDurations.fill(known) == known)
    }

    /// AAC in Matroska joined by `ffmpeg -stream_loop`: 1024-sample frames at 44.1 kHz (23.22 ms) stamped at whole
    /// milliseconds, one stamp skipped at the join (46 ms after the one before) where no sample is missing: laid end
    /// to end on the sample clock, a frame apart. Three frames' step (70 ms) is a real hole: it starts at its stamp.
    /// The last packet's DiscardPadding is the end trim. Stamps that step by no AAC frame length are left alone.
    @Test func fixedFramesOnMillisecondsLieEndToEndPastASkippedStamp() throws {
        let stored: [Int64] = [0, 23, 46, 70, 116, 139]
        let list = stored.map { SampleTiming(dts: $0, pts: $0, duration: 23, isSync: true) }
        let t = try #require(
            SampleClock.fixedFrames(list, codec: "aac", rate: 44100, timeBase: Rational(1, 1000), discardEnd: 100))
        #expect(t.timeBase == Rational(1, 44100))
        #expect(t.samples.map(\.pts) == (0..<6).map { Int64($0) * 1024 })
        #expect(t.samples.allSatisfy { $0.duration == 1024 } && t.skipEnd == 100)
        // 116 -> 186 ms: three frames' step, a hole kept where its stamp says (70 ms after the one before).
        var holed = list
        for i in 4..<6 { holed[i].pts += 70 - 46 }
        let kept = try #require(
            SampleClock.fixedFrames(holed, codec: "aac", rate: 44100, timeBase: Rational(1, 1000)))
        #expect(kept.samples[4].pts == 3 * 1024 + (Rational(70, 1000) * 44100).rounded)
        #expect(kept.samples[5].pts == kept.samples[4].pts + 1024)
        // MP3's 1152 samples (26.12 ms) and AC-3's 1536 at 48 kHz (32 ms) by their own steps; 40 ms is none of AAC's.
        let mp3 = [0, 26, 52, 78].map { SampleTiming(dts: $0, pts: $0, duration: 26, isSync: true) }
        #expect(
            SampleClock.fixedFrames(mp3, codec: "mp3", rate: 44100, timeBase: Rational(1, 1000))?.samples.map(\.pts)
                == [0, 1152, 2304, 3456])
        let odd = [0, 40, 80, 120].map { SampleTiming(dts: $0, pts: $0, duration: 40, isSync: true) }
        #expect(SampleClock.fixedFrames(odd, codec: "aac", rate: 44100, timeBase: Rational(1, 1000)) == nil)
    }

    /// Opus in Matroska: 2.5 ms packets (120 samples at 48 kHz) stored on the millisecond clock, which FFmpeg's
    /// muxer rounds half a millisecond either way (2.5 -> 3, 7.5 -> 8): laid end to end on the sample clock.
    @Test func opusPacketsLieEndToEndOnTheSampleClock() throws {
        let stored: [Int64] = [0, 3, 5, 8, 10]
        let list = stored.map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: true) }
        let packets = stored.indices.map { OpusSampleClock.Packet(samples: 120, discard: $0 == 4 ? 50 : 0) }
        let t = try #require(
            OpusSampleClock.timeline(list, packets: packets, preSkip: 312, codecDelay: 0, timeBase: Rational(1, 1000)))
        #expect(t.timeBase == Rational(1, 48000))
        #expect(t.samples.map(\.pts) == [0, 120, 240, 360, 480])
        #expect(t.samples.map(\.duration) == [120, 120, 120, 120, 120])
        #expect(t.skipStart == 312 && t.skipEnd == 50)
        // 600 samples decoded, 312 pre-skipped, 50 discarded: 238 presented.
        #expect(t.presentedRange()?.duration == Rational(600 - 312 - 50, 48000))
    }

    /// FFmpeg's Matroska demuxer moves each block back by the CodecDelay rounded to the millisecond (312
    /// samples = 6.5 ms -> 7 ms): the sample clock puts the first sample at -312 exactly. A block 40 ms after
    /// where the samples before it end is a real hole: it starts anew there.
    @Test func codecDelayRoundingIsUndoneAndRealHolesKept() throws {
        let stored: [Int64] = [-7, 13, 73]
        let list = stored.map { SampleTiming(dts: $0, pts: $0, duration: 20, isSync: true) }
        let packets = stored.map { _ in OpusSampleClock.Packet(samples: 960, discard: 0) }
        let t = try #require(
            OpusSampleClock.timeline(list, packets: packets, preSkip: 312, codecDelay: 312, timeBase: Rational(1, 1000))
        )
        #expect(t.samples.map(\.pts) == [-312, 648, 73 * 48 + 24])
        // A packet whose TOC byte cannot be read leaves the millisecond timeline as it was.
        var unknown = packets
        unknown[1].samples = nil
        #expect(
            OpusSampleClock.timeline(list, packets: unknown, preSkip: 312, codecDelay: 312, timeBase: Rational(1, 1000))
                == nil)
    }

    /// A live muxer's Opus (fixtures/make-robust.sh, opus-jitter-live.webm): 20 ms packets (960 samples) at block
    /// times that step 15, 25, 20, 21 ms after a CodecDelay of 156 samples (3.25 ms, which FFmpeg's demuxer takes off
    /// each block rounded to 3 ms). Each block strays from where the samples before it end by less than a packet: the
    /// decoder plays them end to end from -156. A block a packet and more late (a lost packet) starts anew.
    @Test func opusBlocksThatJitterLessThanAPacketLieEndToEnd() throws {
        let stored: [Int64] = [0, 15, 40, 60, 81, 100].map { $0 - 3 }
        let list = stored.map { SampleTiming(dts: $0, pts: $0, duration: 20, isSync: true) }
        let packets = stored.map { _ in OpusSampleClock.Packet(samples: 960, discard: 0) }
        let t = try #require(
            OpusSampleClock.timeline(list, packets: packets, preSkip: 156, codecDelay: 156, timeBase: Rational(1, 1000))
        )
        #expect(t.samples.map(\.pts) == (0..<6).map { Int64($0) * 960 - 156 })
        // The sixth packet 21 ms late (a lost one's length and a millisecond): a hole where its block says.
        var late = list
        late[5].pts = 121 - 3
        let holed = try #require(
            OpusSampleClock.timeline(late, packets: packets, preSkip: 156, codecDelay: 156, timeBase: Rational(1, 1000))
        )
        #expect(holed.samples.map(\.pts).last == Int64(121 * 48 - 156))
    }

    /// H.264 with B-frames on a 90 kHz clock (I0 P3 B1 B2 P6 B4 B5 in decode order, 3003 ticks a frame, decode times
    /// from -6006) whose every second decode time from the fourth was repeated and bumped a tick by the ffmpeg CLI
    /// (1 where 3003 was, 6007 where 9009 was): laid anew, each decode time is the presentation time of its rank less
    /// the two frames' delay the first one had, the encoder's own; the presentation times stay.
    @Test func bumpedDecodeTimesAreLaidAFrameApart() throws {
        let order: [Int64] = [0, 3, 1, 2, 6, 4, 5]
        var dts = order.indices.map { Int64($0 - 2) * 3003 }
        dts[3] = dts[2] + 1
        dts[5] = dts[4] + 1
        let samples = order.indices.map { i in
            SampleTiming(
                dts: dts[i], pts: order[i] * 3003, duration: i + 1 < dts.count ? dts[i + 1] - dts[i] : 3003,
                isSync: i == 0)
        }
        let t = TrackTimeline(timeBase: Rational(1, 90000), samples: samples)
        let relaid = try #require(BumpedDecodeTimes.relaid(t))
        #expect(relaid.samples.map(\.dts) == order.indices.map { Int64($0 - 2) * 3003 })
        #expect(relaid.samples.map(\.pts) == samples.map(\.pts))
        #expect(relaid.samples.allSatisfy { $0.duration == 3003 })
        #expect(relaid.relaidDecodeTimes == 2 && relaid.laidAnew)
        // Decode times a frame apart already: nothing to lay.
        #expect(BumpedDecodeTimes.relaid(relaid) == nil)
        // A variable rate's short step without reordering (each decode time its presentation time): none bumped.
        let vfr = [Int64(0), 512, 1024, 1124, 1636].map {
            SampleTiming(dts: $0, pts: $0, duration: 512, isSync: $0 == 0)
        }
        #expect(BumpedDecodeTimes.relaid(TrackTimeline(timeBase: Rational(1, 15360), samples: vfr)) == nil)
    }

    /// Vorbis in Ogg: FFmpeg gives the first packet a quarter block (128 samples) that decodes to nothing; the
    /// last granule counts from the first real sample, so it equals the sum of FFmpeg's durations (3052 here).
    /// libvorbis's clock: that packet hidden, the first real sample at 0, the end 128 samples later than FFmpeg's.
    @Test func vorbisFirstPacketIsNotPresented() throws {
        let durations: [Int64] = [128, 576, 1024, 1024, 300]
        var at: Int64 = 0
        let samples = durations.map { d -> SampleTiming in
            defer { at += d }
            return SampleTiming(dts: at, pts: at, duration: d, isSync: true)
        }
        let t = VorbisInOgg.timeline(TrackTimeline(timeBase: Rational(1, 44100), samples: samples))
        #expect(t.samples.first?.pts == -128 && t.skipStart == 128)
        let range = try #require(t.presentedRange())
        #expect(range.start == .zero)
        // The last granule's 128 + 576 + 1024 + 1024 + 300 samples, all presented.
        #expect(range.duration == Rational(3052, 44100))
        // A stream that already says its start skip is left alone.
        var signalled = TrackTimeline(timeBase: Rational(1, 44100), samples: samples)
        signalled.skipStart = 128
        #expect(VorbisInOgg.timeline(signalled).samples == samples)
    }

    /// Vorbis packets last previous_blocksize/4 + current_blocksize/4: blocks S S L L S S S
    /// (256 and 2048) make packets of 128, 576, 1024, 576, 128, 128 after the warm-up. FFmpeg's Ogg demuxer gives
    /// the long-to-short packet 128 at 2176, a hole of 448 after the long one ends at 1728; laid as the decoder
    /// plays them the packets run end to end from the second one's time to the last granule (2560).
    @Test func vorbisPacketsRunEndToEndByTheirBlocks() throws {
        let pts: [Int64] = [-128, 0, 128, 704, 2176, 2304, 2432]
        let stored: [Int64] = [128, 128, 576, 1024, 128, 128, 128]
        let samples = zip(pts, stored).map { SampleTiming(dts: $0, pts: $0, duration: $1, isSync: true) }
        let t = TrackTimeline(timeBase: Rational(1, 44100), samples: samples)
        let lengths: [Int64?] = [128, 128, 576, 1024, 576, 128, 128]
        let laid = try #require(VorbisInOgg.laid(t, lengths: lengths))
        #expect(laid.samples.map(\.pts) == [-128, 0, 128, 704, 1728, 2304, 2432])
        #expect(laid.samples.map(\.duration) == [128, 128, 576, 1024, 576, 128, 128])
        #expect(laid.laidAnew)
        // The decoded samples end at the last granule: nothing between the packets.
        #expect(VorbisInOgg.timeline(laid).presentedRange()?.duration == Rational(2560, 44100))
        // A length unknown, or a last granule outside the last packet laid so: left as it was.
        #expect(VorbisInOgg.laid(t, lengths: [128, nil, 576, 1024, 576, 128, 128]) == nil)
        #expect(VorbisInOgg.laid(t, lengths: [128, 128, 1024, 1024, 576, 128, 128]) == nil)
    }

    /// VLC's Ogg Vorbis: the first page's granule puts the warm-up (128) at -44, so the first
    /// real sample is at 84, a start offset, not at 0; the last page's empty packet decodes to nothing (length 0)
    /// and the stream ends at the last granule (84 + 576 + 1024 + 1024 = 2708), not a nominal packet later.
    @Test func vorbisFirstSampleIsWhereTheGranuleSaysAndAnEmptyPacketLastsNothing() throws {
        let pts: [Int64] = [-44, 84, 660, 1684, 2708]
        let stored: [Int64] = [128, 576, 1024, 1024, 0]
        let samples = zip(pts, stored).map { SampleTiming(dts: $0, pts: $0, duration: $1, isSync: true) }
        let t = TrackTimeline(timeBase: Rational(1, 44100), samples: samples)
        let laid = try #require(VorbisInOgg.laid(t, lengths: [128, 576, 1024, 1024, 0]))
        #expect(laid.samples.map(\.pts) == [-44, 84, 660, 1684, 2708])
        #expect(laid.samples.map(\.duration) == [128, 576, 1024, 1024, 0])
        let range = try #require(VorbisInOgg.timeline(laid).presentedRange())
        #expect(range.start == Rational(84, 44100))
        #expect(range.end == Rational(2708, 44100))
    }

    /// A millisecond clock's 33 and 34 ms steps are a 30 fps grid (VLC's Matroska says 1000/33, the rounded step);
    /// 29.97 fps rounds otherwise over two seconds; a clock that ticks once a frame, or a step off every standard
    /// grid, is not taken for one.
    @Test func aMillisecondClockIsReadAtTheStandardRateItRoundsFrom() {
        let ms = Rational(1, 1000)
        let thirty = (0..<60).map { (Rational($0 * 1000, 30) + Rational(67)).rounded }
        #expect(TrackFacts.gridRate(thirty, timeBase: ms) == Rational(30))
        let vlc = TrackFacts.frameRate(nominal: 33, timeBase: ms, declared: Rational(1000, 33), grid: Rational(30))
        #expect(vlc == Rational(30))
        #expect(TrackFacts.frameRate(nominal: 33, timeBase: ms, declared: nil, grid: Rational(30)) == Rational(30))
        let ntsc = (0..<60).map { (Rational($0 * 1001, 30)).rounded }
        #expect(TrackFacts.gridRate(ntsc, timeBase: ms) == Rational(30000, 1001))
        #expect(TrackFacts.gridRate(Array(0..<60), timeBase: Rational(1, 30)) == nil)
        #expect(TrackFacts.gridRate([0, 33, 67, 100, 140], timeBase: ms) == nil)
        // A grid that is not the commonest step's (a held frame makes 0, 33, ..., 150 fit 60 fps) is not taken.
        #expect(
            TrackFacts.frameRate(nominal: 33, timeBase: ms, declared: nil, grid: Rational(60000, 1001))
                == Rational(1000, 33))
        // A declared rate every step denies (a 1 ms DefaultDuration: 1000 fps) is no rate: the grid's, or the
        // step's.
        let denied = { (grid: Rational?) in
            TrackFacts.frameRate(nominal: 33, timeBase: ms, declared: Rational(1000), grid: grid)
        }
        #expect(denied(Rational(30)) == Rational(30) && denied(nil) == Rational(1000, 33))
        // A declared rate that is not the rounded step stays (a declared 30000/1001 on FLV's clock).
        #expect(
            TrackFacts.frameRate(nominal: 33, timeBase: ms, declared: Rational(30000, 1001), grid: Rational(30))
                == Rational(30000, 1001))
    }

    /// An MP3 whose LAME header says 576 + 529 = 1105 samples of delay and 300 of padding (FFmpeg's skip
    /// samples), in 1152-sample frames at 44.1 kHz on the sample clock: one edit from sample 1105, 3 x 1152 -
    /// 1105 - 300 long.
    @Test func lameHeaderIsReadAsAnEdit() throws {
        let samples = (0..<3).map {
            SampleTiming(dts: Int64($0) * 1152, pts: Int64($0) * 1152, duration: 1152, isSync: true)
        }
        let t = LAMEGapless.timeline(
            TrackTimeline(timeBase: Rational(1, 44100), samples: samples, skipStart: 1105, skipEnd: 300))
        #expect(t.edits == [Edit(mediaTime: 1105, duration: Rational(3 * 1152 - 1105 - 300, 44100))])
        #expect(t.skipStart == 0 && t.skipEnd == 0 && t.primingMethod == "LAME header")
        #expect(t.presentedRange()?.signalledDelay == 1105)
        // No delay said: unchanged.
        #expect(LAMEGapless.timeline(TrackTimeline(timeBase: Rational(1, 44100), samples: samples)).edits == nil)
    }

    /// The LAME tag's own figures: MPEG-2 frames of 576 samples at 24 kHz, 87 of them, a delay
    /// of 576 and a padding of 1536 (more than a frame past the decoder's 529): the content is 87 x 576 - 576 -
    /// 1536 = 48000 samples from 576 + 529 = 1105 on.
    @Test func lameTagFiguresAreTheEdit() throws {
        let samples = (0..<87).map {
            SampleTiming(dts: Int64($0) * 576, pts: Int64($0) * 576, duration: 576, isSync: true)
        }
        let t = TrackTimeline(timeBase: Rational(1, 24000), samples: samples, skipStart: 1105, skipEnd: 576)
        let exact = try #require(LAMEGapless.timeline(t, delay: 576, padding: 1536, rate: 24000))
        #expect(exact.edits == [Edit(mediaTime: 1105, duration: Rational(48000, 24000))])
        #expect(exact.skipEnd == 0 && exact.primingMethod == "LAME header")
        // Figures that leave nothing, or a clock that does not count whole samples: not believed.
        #expect(LAMEGapless.timeline(t, delay: 576, padding: 50000, rate: 24000) == nil)
        #expect(LAMEGapless.timeline(t, delay: 576, padding: 1536, rate: 44100) == nil)
    }

    /// iTunSMPB with Apple's 2112 samples of priming and 44100 of length, on an AAC track counting samples
    /// (timescale 44100): one edit from 2112, 1 s long; figures that claim more than the track holds are not
    /// believed, and a track with its own media edit keeps it.
    @Test func iTunSMPBIsReadAsTheEditItDescribes() throws {
        let frames = (0..<46).map {
            SampleTiming(dts: Int64($0) * 1024, pts: Int64($0) * 1024, duration: 1024, isSync: true)
        }
        let t = TrackTimeline(timeBase: Rational(1, 44100), samples: frames)
        let signalled = try #require(ITunesGaplessEdit.timeline(t, priming: 2112, length: 44100, rate: 44100))
        #expect(signalled.edits == [Edit(mediaTime: 2112, duration: Rational(1))])
        #expect(signalled.primingMethod == "iTunSMPB")
        // 46 x 1024 = 47104 samples: 2112 + 45000 would run past them.
        #expect(ITunesGaplessEdit.timeline(t, priming: 2112, length: 45000, rate: 44100) == nil)
        var edited = t
        edited.edits = [Edit(mediaTime: 1024, duration: Rational(1))]
        #expect(ITunesGaplessEdit.timeline(edited, priming: 2112, length: 44100, rate: 44100) == nil)
        // On a 90 kHz clock a sample is not a whole tick: no edit.
        #expect(
            ITunesGaplessEdit.timeline(
                TrackTimeline(timeBase: Rational(1, 90000), samples: frames), priming: 2112, length: 100, rate: 44100)
                == nil)
    }

    /// MPEG-TS starts at its PCR (here 1.4 s on the 90 kHz clock): the earliest audio or video start becomes 0
    /// and every track moves by whole ticks of its own clock; a subtitle track does not choose the origin.
    @Test func clockThatStartsAnywhereIsRebasedToTheEarliestTrack() throws {
        let video = TrackTimeline(
            timeBase: Rational(1, 90000),
            samples: (0..<3).map {
                SampleTiming(
                    dts: 126_000 + 3000 * Int64($0), pts: 129_000 + 3000 * Int64($0), duration: 3000, isSync: $0 == 0)
            })
        let audio = TrackTimeline(
            timeBase: Rational(1, 90000),
            samples: (0..<3).map {
                SampleTiming(
                    dts: 126_000 + 1920 * Int64($0), pts: 126_000 + 1920 * Int64($0), duration: 1920, isSync: true)
            })
        let text = TrackTimeline(
            timeBase: Rational(1, 1000), samples: [SampleTiming(dts: 1000, pts: 1000, duration: 500, isSync: true)])
        let (out, origin) = ClockOrigin.rebased([0: video, 1: audio, 2: text], tracks: [0, 1])
        #expect(origin == Rational(126_000, 90000))
        #expect(out[1]?.samples.first?.pts == 0)
        #expect(out[0]?.samples.first?.pts == 3000 && out[0]?.samples.first?.dts == 0)
        // 1.4 s on the millisecond clock: 1000 - 1400.
        #expect(out[2]?.samples.first?.pts == -400)
        let (same, none) = ClockOrigin.rebased([1: out[1]!], tracks: [1])
        #expect(none == nil && same[1]?.samples == out[1]?.samples)
    }

    /// What FFmpeg's demuxer said, made into the timeline every container starts from: MPEG-PS's missing
    /// presentation times on the grid, Matroska's missing decode times from the presentation order, missing
    /// durations, and Opus's CodecDelay (312 samples at 48 kHz on the millisecond clock: 6.5 -> 7 ms) as the
    /// start skip.
    @Test func scannedPacketsBecomeATimeline() {
        var mkv = ScannedTimeline(
            timeBase: Rational(1, 1000),
            samples: [0, 100, 33, 67].map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: $0 == 0) })
        mkv.missingDecode = true
        let video = mkv.timeline()
        // Presentation order 0, 33, 67, 100; decoded third, the block shown at 33 is decoded at 67 - delay, so
        // the delay is 34 and the decode times are the sorted presentation times less 34.
        #expect(video.samples.map(\.dts) == [-34, -1, 33, 66])
        #expect(video.samples.map(\.duration) == [33, 33, 34, 33])
        let opus = ScannedTimeline(
            timeBase: Rational(1, 1000), samples: [SampleTiming(dts: 0, pts: 0, duration: 20, isSync: true)])
        #expect(opus.timeline(codecDelay: 312, sampleRate: 48000).skipStart == 7)
        #expect(opus.timeline().skipStart == 0)
        // MP3 in AVI: a tick a frame (576/22050 s), put on the sample clock so a cut can fall inside a frame.
        let avi = ScannedTimeline(
            timeBase: Rational(576, 22050),
            samples: (0..<3).map { SampleTiming(dts: $0, pts: $0, duration: 1, isSync: true) })
        let samples = avi.timeline(sampleRate: 22050)
        #expect(samples.timeBase == Rational(1, 22050))
        #expect(samples.samples.map(\.pts) == [0, 576, 1152] && samples.samples.map(\.duration) == [576, 576, 576])
    }
}

/// Vorbis in Matroska on its sample clock: block times in whole milliseconds, packet lengths from the
/// codec. 48 kHz: a short block's packet after a short one is 128 samples, a long after long 1024.
@Suite struct VorbisInMatroskaTests {
    static let lengths: [Int64?] = [128, 128, 576, 1024, 1024]

    /// FFmpeg's layout: the warm-up at 0 ms, the second block a warm-up's length later (128 samples = 2.67 ms,
    /// written 3 ms), then 3 + 2.67 = 5.67 -> 6 ms, 17.67 -> 18 ms, 39 ms. The clock starts at the second block
    /// (144 samples) and runs end to end: 144, 272, 848, 1872; the warm-up just before, skipped.
    @Test func ffmpegsLayoutRunsEndToEndFromTheSecondBlock() throws {
        let list = [0, 3, 6, 18, 39].map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: true) }
        let t = try #require(
            VorbisInMatroska.timeline(list, lengths: Self.lengths, rate: 48000, timeBase: Rational(1, 1000)))
        #expect(t.timeBase == Rational(1, 48000))
        #expect(t.samples.map(\.pts) == [16, 144, 272, 848, 1872])
        #expect(t.samples.map(\.duration) == [128, 128, 576, 1024, 1024])
        #expect(t.skipStart == 128)
    }

    /// GStreamer's layout: the warm-up and the second packet both at 0 ms. The clock starts at 0; no overlap.
    @Test func gstreamersLayoutStartsAtTheSecondBlock() throws {
        let list = [0, 0, 3, 15, 36].map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: true) }
        let t = try #require(
            VorbisInMatroska.timeline(list, lengths: Self.lengths, rate: 48000, timeBase: Rational(1, 1000)))
        #expect(t.samples.map(\.pts) == [-128, 0, 128, 704, 1728])
    }

    /// A block more than a millisecond from where the samples before it end starts anew there: a real hole.
    @Test func aBlockFarFromTheClockStartsAnew() throws {
        let list = [0, 0, 3, 40, 61].map { SampleTiming(dts: $0, pts: $0, duration: 0, isSync: true) }
        let t = try #require(
            VorbisInMatroska.timeline(list, lengths: Self.lengths, rate: 48000, timeBase: Rational(1, 1000)))
        #expect(t.samples.map(\.pts) == [-128, 0, 128, 1920, 2944])
        #expect(
            VorbisInMatroska.timeline(list, lengths: [128, nil, 1, 1, 1], rate: 48000, timeBase: Rational(1, 1000))
                == nil)
    }
}

/// An AAC priming frame stored with no length: it gets its frame back and the content moves after it.
@Suite struct ZeroLengthPrimingTests {
    @Test func thePrimingFrameGetsItsLengthBack() {
        var samples = Make.aac(packets: 4)
        samples[0].duration = 0
        for i in 1..<4 {
            samples[i].dts -= 1024
            samples[i].pts -= 1024
        }
        let t = TrackTimeline(timeBase: Rational(1, 48000), samples: samples)
        let repaired = ZeroLengthPriming.timeline(t, frame: 1024)
        #expect(repaired.samples.map(\.pts) == [0, 1024, 2048, 3072])
        #expect(repaired.samples.map(\.duration) == [1024, 1024, 1024, 1024])
    }

    /// An edit list, or a first frame with a length, is left as it is.
    @Test func otherShapesAreLeftAlone() {
        let t = TrackTimeline(timeBase: Rational(1, 48000), samples: Make.aac(packets: 4))
        #expect(ZeroLengthPriming.timeline(t, frame: 1024).samples == t.samples)
        var zero = Make.aac(packets: 4)
        zero[0].duration = 0
        let edited = TrackTimeline(
            timeBase: Rational(1, 48000), samples: zero, edits: [Edit(mediaTime: 0, duration: Rational(1, 10))])
        #expect(ZeroLengthPriming.timeline(edited, frame: 1024).samples == edited.samples)
    }
}

/// AAC priming marked by a composition offset: samples 0 and 1 both presented at 1024 (ctts
/// +1024, then 0) is one frame of priming before the content, read as the edit that says so.
@Suite struct CompositionOffsetPrimingTests {
    static func shape(offsets: [Int64]) -> TrackTimeline {
        var samples = Make.aac(packets: offsets.count)
        for i in samples.indices { samples[i].pts = samples[i].dts + offsets[i] }
        return TrackTimeline(timeBase: Rational(1, 44100), samples: samples)
    }

    @Test func theFramePresentedWithTheFirstContentFrameIsPriming() throws {
        let repaired = try #require(CompositionOffsetPriming.timeline(Self.shape(offsets: [1024, 0, 0, 0])))
        #expect(repaired.samples.map(\.pts) == [0, 1024, 2048, 3072])
        #expect(repaired.edits == [Edit(mediaTime: 1024, duration: Rational(3 * 1024, 44100))])
        #expect(repaired.primingMethod == "composition offset")
        // Two frames presented with the third: two frames of priming.
        let two = try #require(CompositionOffsetPriming.timeline(Self.shape(offsets: [2048, 1024, 0, 0])))
        #expect(two.edits?.first?.mediaTime == 2048)
    }

    /// No offsets, a media edit already, or offsets that reorder the content are left alone.
    @Test func otherShapesAreLeftAlone() {
        #expect(CompositionOffsetPriming.timeline(Self.shape(offsets: [0, 0, 0, 0])) == nil)
        var edited = Self.shape(offsets: [1024, 0, 0, 0])
        edited.edits = [Edit(mediaTime: 0, duration: Rational(1, 10))]
        #expect(CompositionOffsetPriming.timeline(edited) == nil)
        #expect(CompositionOffsetPriming.timeline(Self.shape(offsets: [0, 2048, 0, 0])) == nil)
    }
}

/// Fixed-frame audio on FLV's millisecond clock put on its sample clock: AAC frames of 1024 samples
/// at 48 kHz stored at 0, 21, 43, 64 ms become 0, 1024, 2048, 3072, a frame each, so a hidden priming is 1024
/// samples, not the 1008 that 21 ms rounds to.
@Suite struct SampleClockTests {
    @Test func millisecondAACBecomesWholeFrames() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 1000),
            samples: [0, 21, 43, 64].map { SampleTiming(dts: $0, pts: $0, duration: 21, isSync: true) })
        let exact = try #require(AudioFrames.onSampleClock(t, rate: 48000, frame: 1024))
        #expect(exact.timeBase == Rational(1, 48000))
        #expect(exact.samples.map(\.pts) == [0, 1024, 2048, 3072])
        // The last keeps its stored length where shorter (21 ms = 1008 samples).
        #expect(exact.samples.map(\.duration) == [1024, 1024, 1024, 1008])
        // A clock as fine as the samples is left alone.
        #expect(AudioFrames.onSampleClock(exact, rate: 48000, frame: 1024) == nil)
    }
}

/// A capture clock's stamps laid as the decoder plays the packets (SampleClock): a browser's MediaRecorder stamps
/// each packet when it was captured, and every decoder plays the packets back to back.
@Suite struct CaptureClockTests {
    /// PCM float in WebM as Chromium records it: 10 ms packets (480 samples) on a millisecond clock, the first two
    /// stamped 0, the rest 8, 20, 30, 39: all end to end from 0, every one after the first moved 10-12 ms.
    @Test func pcmOnAMillisecondClock() throws {
        let list = [0, 0, 8, 20, 30, 39].map { SampleTiming(dts: $0, pts: $0, duration: 10, isSync: true) }
        let laid = try #require(
            SampleClock.timeline(
                list, lengths: Array(repeating: 480, count: 6), rate: 48000, timeBase: Rational(1, 1000)))
        #expect(laid.samples.map(\.pts) == [0, 480, 960, 1440, 1920, 2400])
        #expect(laid.relaidStamps == 5)
    }

    /// Opus in a fragmented MP4 as Chromium writes it: 60 ms packets (2880 samples) whose stored durations are the
    /// capture steps (2700, 3060, ...) and whose fragment's last is a guess (1008): laid from the first at the
    /// packets' own length, the last lasting what it decodes to.
    @Test func opusInAFragmentedMP4() throws {
        let steps: [Int64] = [2700, 3060, 2880, 1008]
        var at: Int64 = 0
        let samples = steps.map { step in
            defer { at += step }
            return SampleTiming(dts: at, pts: at, duration: step, isSync: true)
        }
        let t = TrackTimeline(timeBase: Rational(1, 48000), samples: samples)
        let laid = try #require(SampleClock.laid(t, lengths: Array(repeating: 2880, count: 4), rate: 48000))
        #expect(laid.samples.map(\.pts) == [0, 2880, 5760, 8640])
        #expect(laid.samples.map(\.duration) == [2880, 2880, 2880, 2880])
        #expect(laid.laidAnew)
        // The second stamp is 180 samples (3.75 ms) early; the others are where their samples are.
        #expect(laid.relaidStamps == 1)
        // A clock that is not the samples' is left to others; so is a track whose stamps are its samples.
        #expect(SampleClock.laid(t.scaled(by: 2), lengths: Array(repeating: 2880, count: 4), rate: 48000) == nil)
        #expect(SampleClock.laid(laid, lengths: Array(repeating: 2880, count: 4), rate: 48000) == nil)
    }

    /// A stamp a whole packet or more after the samples before it end is a hole (a dropped packet), kept; one before
    /// it is no overlap a decoder plays.
    @Test func aRealHoleStaysAHole() {
        let starts = SampleClock.starts(stamps: [0, 960, 2880, 2000], lengths: [960, 960, 960, 960], slack: 960)
        #expect(starts == [0, 960, 2880, 3840])
    }

    /// Opus in an MP4 with no edit list: its dOps pre-skip hidden as the edit FFmpeg's muxer writes for it.
    @Test func opusPreSkipWithoutAnEdit() throws {
        let t = TrackTimeline(
            timeBase: Rational(1, 48000),
            samples: (0..<3).map { SampleTiming(dts: $0 * 2880, pts: $0 * 2880, duration: 2880, isSync: true) })
        let edited = try #require(OpusPreSkipEdit.timeline(t, preSkip: 3840))
        #expect(edited.edits == [Edit(mediaTime: 3840, duration: Rational(8640 - 3840, 48000))])
        #expect(edited.presentedRange()?.duration == Rational(4800, 48000))
        // A track with an edit of its own keeps it.
        var own = t
        own.edits = [Edit(mediaTime: 312, duration: Rational(1, 10))]
        #expect(OpusPreSkipEdit.timeline(own, preSkip: 3840) == nil)
    }
}
