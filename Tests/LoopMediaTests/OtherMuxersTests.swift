import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// Shapes other muxers write, fixed exactly and confirmed by FFmpeg's own reading and by ffmpeg
/// decoding the output. Expected figures from fixtures/make-fixtures.sh: 1 s of video at 30 fps (30 frames),
/// a 441 Hz tone at 44.1 kHz cut to the video (44100 samples).
@Suite struct OtherMuxersTests {
    struct Shape: CustomTestStringConvertible, Sendable {
        var file: String
        /// How far the muxer placed the video after the audio (ms), moved back by the fix.
        var shiftMs: Int64?
        var testDescription: String { file }
    }

    /// Vorbis beside video, in Ogg with Theora and in WebM with VP8: every frame kept, 44100 samples, the Vorbis
    /// warm-up packet kept before the first presented one (without it the first kept packet's samples are lost).
    /// In the WebM the video's 3 ms is where the audio's first sample is too (its second block: the first
    /// decodes to nothing), so nothing moves.
    @Test(arguments: [Shape(file: "theora-vorbis.ogg", shiftMs: nil), Shape(file: "vp8-vorbis.webm", shiftMs: nil)])
    func vorbisBesideVideoKeepsEveryFrameAndSample(shape: Shape) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix(shape.file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let video = try #require(report.fix?.plan?.tracks.first { $0.kind == .video })
        #expect(video.presentedFrames == 30 && video.shift == shape.shiftMs.map { Rational($0, 1000) })
        let reading = try FFmpegReading.read(out)
        let v = try #require(reading.tracks.first { $0.kind == .video })
        let a = try #require(reading.tracks.first { $0.kind == .audio })
        #expect(v.frames == 30 && v.start == .zero)
        #expect(a.start == .zero && a.sampleRate == 44100)
        // Matroska places a block to the millisecond: its end is known to 44.1 samples; Ogg's to the sample.
        let slack: Int64 = shape.file.hasSuffix(".webm") ? 44 : 0
        #expect(abs((a.samples ?? 0) - 44100) <= slack, "\(a.samples ?? 0) samples")
        #expect(try FFmpegDecode.frames(out).count == 30)
        // ffmpeg's Vorbis decoder gives nothing for the first packet it is fed; every sample after it is there.
        let decoded = try FFmpegDecode.audio(out).count
        #expect(decoded > 44100 - 2048 && decoded <= 44100, "\(decoded) samples")
    }

    /// The shortest track sets the end in Ogg: GStreamer's oggmux file (Theora 75 frames at
    /// 25 fps, Vorbis 133120 samples at 48 kHz = 2.773 s) keeps 69 frames (2.76 s, the last boundary at or before
    /// the audio's end) and 132480 samples; ffmpeg's at 29.97 fps with 2.5 s of 44.1 kHz Vorbis keeps 74 frames
    /// (2.469133 s) and 108889 samples (74 x 1001/30000 x 44100 = 108888.66, the nearest sample). Counted by
    /// ffmpeg decoding the output; the video never outlasts the audio.
    @Test(arguments: [
        ("gst-theora-vorbis.ogg", 69, Int64(132480)), ("theora-2997-audio-short.ogg", 74, 108889),
    ])
    func oggEndsWithItsShortestTrack(file: String, frames: Int, samples: Int64) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix(file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(try FFmpegDecode.frames(out).count == frames)
        #expect(try FFmpegDecode.audio(out).count == Int(samples))
        let after = try Probe.facts(path: out)
        let found = Analyzer.findings(in: after).map(\.rule)
        #expect(
            !found.contains(RuleID.videoLongerThanAudio.rawValue)
                && !found.contains(RuleID.audioLongerThanVideo.rawValue))
    }

    /// Vorbis with short and long blocks (fixtures/make-fixtures.sh): 3 s at 44.1 kHz, a
    /// burst every 0.25 s. Analyze finds no timestamp break in any container, fix copies the Ogg alone as it is
    /// (132300 samples) and cuts it beside 2 s of video at 25 fps to 50 frames and 88200 samples, in Ogg (to the
    /// sample) and in a WebM whose block times kept FFmpeg's holes (to the millisecond's 44 samples); mkvmerge's
    /// Matroska of it has no break either.
    @Test(arguments: [
        ("vorbis-blocks.ogg", 0, Int64(132300)), ("vorbis-blocks-theora.ogg", 50, 88200),
        ("vorbis-blocks.webm", 50, 88200), ("vorbis-blocks-mkvmerge.mkv", 0, nil),
    ])
    func vorbisBlocksHaveNoHoles(file: String, frames: Int, samples: Int64?) throws {
        let facts = try Probe.facts(path: Fixtures.path(file))
        #expect(!Analyzer.findings(in: facts).contains { $0.rule == RuleID.timestampGap.rawValue })
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix(file, in: dir)
        #expect(
            report.fix?.status == (file == "vorbis-blocks.ogg" ? .unchanged : .fixed), "\(report.fix?.reason ?? "")")
        if frames > 0 { #expect(try FFmpegDecode.frames(out).count == frames) }
        if let samples {
            let decoded = Int64(try FFmpegDecode.audio(out).count)
            #expect(abs(decoded - samples) <= (file.hasSuffix(".webm") ? 44 : 0), "\(decoded) samples")
        }
    }

    /// Matroska stream-copy cuts (`ffmpeg -ss 1.3 -i src -t 3 -c copy`, fixtures/make-fixtures.sh),
    /// as FFmpeg reads them: H.264 from 75 ms to 3.635 s (89 frames of 40 ms) over 167 AAC frames of 1024 samples
    /// at 48 kHz (21.33 ms) played back to back from 0, the first one priming (1024 samples hidden: the plan's
    /// assumption). The video's start falls between two AAC frames (64 and 85.33 ms: the nearest starts 10.33 ms
    /// later, and Matroska cannot start inside one), so the audio moves 10.33 ms to start with it; its 163 frames
    /// from there (3.477 s) cover 86 frames (3.44 s); VP9 to 3.32 s
    /// over Opus from 7 ms (rebased to 0, under half a frame) to 3.281 s: 3.274 s cover 81 frames (3.24 s). The
    /// frames kept are the source's first ones, and the audio ends with them to the millisecond.
    @Test(arguments: [("mkv-copy-cut.mkv", 86), ("webm-copy-cut.webm", 81)])
    func matroskaCopyCutsAreFixed(file: String, frames: Int) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix(file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let kept = try FFmpegDecode.frames(out)
        #expect(kept.count == frames)
        #expect(Array(try FFmpegDecode.frames(Fixtures.path(file)).prefix(frames)) == kept)
        let reading = try FFmpegReading.read(out)
        let audio = try #require(reading.tracks.first { $0.kind == .audio })
        #expect((audio.start ?? Rational(1)).magnitude <= Rational(1, 1000))
        #expect(abs((audio.samples ?? 0) - Int64(frames) * 48000 / 25) <= 48, "\(audio.samples ?? 0) samples")
        let after = try Probe.facts(path: out)
        let found = Set(Analyzer.findings(in: after).map(\.rule))
        let timing = [RuleID.videoLongerThanAudio, .audioLongerThanVideo, .startOffset].map(\.rawValue)
        #expect(found.isDisjoint(with: timing), "\(found)")
    }

    /// GStreamer's and mkvmerge's shapes (fixtures/make-other-muxers.sh): flvmux's repeated video decode times
    /// (0, 0, 0: remade from the presentation order), webmmux's Vorbis (warm-up and second packet both at 0 ms),
    /// mkvmerge's AAC in Matroska. 30 frames each, decoded by ffmpeg without an error; the audio to the video's
    /// end: FLV's millisecond clock puts GStreamer's 30th frame at 966 ms + 33 ms = 999 ms, 44056 samples at
    /// 44.1 kHz (999 x 44.1 = 44055.9); the others 1 s at 48 kHz and at 44.1 kHz.
    @Test(arguments: [
        ("gst-flv.flv", Int64(44056), 44100), ("gst-webm-vorbis.webm", 48000, 48000), ("mkvmerge.mkv", 44100, 44100),
    ])
    func otherMuxersShapesAreFixedExactly(file: String, samples: Int64, rate: Int) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix(file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try #require(report.fix?.output)
        #expect(try FFmpegDecode.frames(written).count == 30)
        #expect(try FFmpegDecode.errors(written) == "")
        let audio = try #require(try FFmpegReading.read(written).tracks.first { $0.kind == .audio })
        #expect(audio.sampleRate == rate)
        // Matroska places a block to the millisecond; MP4 to the sample.
        let slack = written.hasSuffix(".mp4") ? 0 : Int64(rate / 1000)
        #expect(abs((audio.samples ?? 0) - samples) <= slack, "\(audio.samples ?? 0) samples")
    }

    /// HE-AAC signalled explicitly (fixtures/make-fixtures.sh: SBR on a 24 kHz core, 48 kHz out): the decoder
    /// puts out 2048 samples a frame at 48 kHz, twice the core's 1024 at 24 kHz. The 1 s of video keeps its 30
    /// frames and the audio is cut to 1 s at the output rate, 48000 samples, FFmpeg's reading agreeing; the
    /// priming (FFmpeg's 1024 at the core rate) is 2048 output samples.
    @Test func heAACIsCutAtItsOutputRate() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("he-aac-sbr.mp4")
        let before = try #require(try Probe.facts(path: source).mainAudio)
        #expect(before.sampleRate == 48000 && before.priming?.samples == 2048)
        let (report, out) = FixRun.fix("he-aac-sbr.mp4", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.facts?.mainVideo?.frameCount == 30)
        #expect(report.facts?.mainAudio?.sampleCount == Rational(48000))
        let audio = try #require(try FFmpegReading.read(out).tracks.first { $0.kind == .audio })
        #expect(audio.sampleRate == 48000 && audio.samples == 48000 && audio.decoderDisagrees == nil)
    }

    /// HE-AAC copied by FFmpeg's mov muxer (fixtures/make-fixtures.sh: he-aac-output-clock.m4a, the 1.5 s tone of
    /// he-aac-sbr.mp4, 72000 samples at 48 kHz, on a 48 kHz clock with an edit media time of 2048, the priming of
    /// FFmpeg's encoder, 1024 at the 24 kHz core). FFmpeg's reading doubles an edit's skip for SBR, so fix writes
    /// the track on its core clock (mdhd 24000, media time 1024) and both readings present the 72000 samples.
    @Test func heAACOnItsOutputClockIsWrittenOnItsCoreClock() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try #require(try Probe.facts(path: Fixtures.path("he-aac-output-clock.m4a")).mainAudio)
        #expect(before.sampleRate == 48000 && before.priming?.samples == 2048 && before.priming?.signalled == true)
        #expect(before.sampleCount == Rational(72000))
        let (report, out) = FixRun.fix("he-aac-output-clock.m4a", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let trak = try #require(try MiniBox.read(out).first { $0.type == "moov" }?.child("trak"))
        #expect(trak.path("mdia", "mdhd")?.u32(12) == 24000)
        #expect(trak.path("edts", "elst")?.u32(12) == 1024)
        let audio = try #require(try FFmpegReading.read(out).tracks.first { $0.kind == .audio })
        #expect(audio.sampleRate == 48000 && audio.samples == 72000)
        // Idempotent: the output is on its core clock, and a second fix copies it unchanged.
        let again = ClipFix.fix(
            out,
            FixRequest(
                to: dir.appendingPathComponent("again.m4a").path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(again.fix?.status == .unchanged, "\(again.fix?.reason ?? "")")
    }

    /// HE-AACv2 in ADTS from pymediainfo's test data (fixtures/third-party.md): SBR and parametric stereo signalled
    /// implicitly (the headers say 22050 Hz mono, the decoder plays 44100 Hz stereo), 26 frames of 2048 output
    /// samples counted from its ADTS headers, no priming signalled. ADTS has no edit list, so fix writes an M4A
    /// that hides loopprep's assumed priming (1024 samples): 26 x 2048 - 1024 presented, on the 22050 Hz core
    /// clock (media time 512), FFmpeg's reading agreeing (it hid 2048 on the 44100 Hz clock).
    @Test func heAACv2FromADTSIsExactInItsM4A() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("he-aac-v2.aac"))))
        var frames = 0
        var at = 0
        var coreRates = Set<Int>()
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        while at + 7 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] & 0xF0 == 0xF0 {
            coreRates.insert(rates[Int(bytes[at + 2] >> 2) & 0x0F])
            let length = (Int(bytes[at + 3]) & 0x03) << 11 | Int(bytes[at + 4]) << 3 | Int(bytes[at + 5]) >> 5
            frames += 1
            at += length
        }
        #expect(at == bytes.count && frames == 26 && coreRates == [22050])
        let (report, _) = FixRun.fix("he-aac-v2.aac", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let out = try #require(report.fix?.output)
        #expect(out.hasSuffix("he-aac-v2.m4a"))
        let expected = Int64(frames) * 2048 - 1024
        #expect(report.facts?.mainAudio?.sampleCount == Rational(expected))
        let trak = try #require(try MiniBox.read(out).first { $0.type == "moov" }?.child("trak"))
        #expect(trak.path("mdia", "mdhd")?.u32(12) == 22050)
        #expect(trak.path("edts", "elst")?.u32(12) == 512)
        let audio = try #require(try FFmpegReading.read(out).tracks.first { $0.kind == .audio })
        #expect(audio.sampleRate == 44100 && audio.samples == expected)
    }

    /// An Ogg Vorbis cut by stream copy (fixtures/make-fixtures.sh: loop-vorbis.ogg, 44100 samples, from 0.3 s):
    /// its last granule position says 0.7 s are left, 30870 samples, ending before its last packets start
    /// (FFmpeg gives that packet a duration near 2^32; it was read as 97392 s). fix writes what the granule
    /// says, the packets after it left out.
    @Test func anOggCutEndsAtItsLastGranule() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("vorbis-cut.ogg")
        #expect(try Probe.facts(path: source).mainAudio?.sampleCount == Rational(30870))
        let (report, out) = FixRun.fix("vorbis-cut.ogg", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.facts?.mainAudio?.sampleCount == Rational(30870))
        #expect(try FFmpegReading.read(out).tracks.first?.samples == 30870)
    }

    /// AAC whose priming frame is stored with no length at the first content frame's time (fixtures/
    /// make-fixtures.sh: 1024 + 44100 samples, the first stts delta set to 0): FFmpeg plays the priming, so the
    /// clip reads as 45124 samples with its priming unsignalled; fix gives the frame its length and hides it with
    /// an edit list (media time 1024), keeping all 44100 samples of content (it hid 1024 of them before).
    @Test func aZeroLengthPrimingFrameIsHiddenNotTheContent() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try #require(try Probe.facts(path: Fixtures.path("zero-length-priming.m4a")).mainAudio)
        #expect(before.sampleCount == Rational(45124) && before.priming?.signalled == false)
        let (report, out) = FixRun.fix("zero-length-priming.m4a", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.facts?.mainAudio?.sampleCount == Rational(44100))
        let moov = try #require(try MiniBox.read(out).first { $0.type == "moov" })
        let elst = try #require(moov.child("trak")?.path("edts", "elst"))
        #expect(elst.u32(12) == 1024)
        #expect(try FFmpegReading.read(out).tracks.first?.samples == 44100)
    }

    /// The same file with its audio encoded again (--reencode-audio, --seam-fade, --loops): the packets are read on
    /// the timeline that gives the priming frame its length (FFmpeg's reading keeps both first packets at 0), so the
    /// decoded content is the input's, not a frame later (it came out 43 frames, 44032 of the 44100 samples, and
    /// was refused). ffmpeg plays the input's priming (no edit list): the output's samples are the input's from
    /// 1024 on, within what AAC encoded again changes, and one frame either way is far worse (a 441 Hz tone: 1024
    /// samples are a quarter cycle off).
    @Test(arguments: ["--reencode-audio", "--seam-fade", "--loops"])
    func aZeroLengthPrimingFrameEncodedAgainKeepsItsContent(option: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = FixOptions(loops: option == "--loops" ? 2 : nil)
        options.seamFade = option == "--seam-fade" ? Rational(1, 100) : nil
        options.reencodeAudio = option == "--reencode-audio"
        let (report, out) = RenderTests.fix("zero-length-priming.m4a", options, into: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let passes = option == "--loops" ? 2 : 1
        #expect(try FFmpegReading.read(out).tracks.first?.samples == Int64(44100 * passes))
        let input = try FFmpegDecode.audio(Fixtures.path("zero-length-priming.m4a"))
        let output = try FFmpegDecode.audio(out)
        // (ffmpeg's command line keeps the last frame's padding on FFmpeg 5.1 (46080 samples of the input), and
        // trims it by the stored durations on 9.0: the content is read, the priming before it.)
        #expect(input.count >= 1024 + 44100 && output.count >= 44100 * passes)
        // Away from the faded ends: samples 2048 to 40000 of the content.
        func error(lag: Int) -> Float {
            let range = 2048..<40000
            return range.map { abs(output[$0] - input[1024 + $0 + lag]) }.reduce(0, +) / Float(range.count)
        }
        #expect(error(lag: 0) < 0.01 && error(lag: 1024) > 0.05 && error(lag: -1024) > 0.05, "\(error(lag: 0))")
    }

    /// GStreamer's oggmux writes libvorbis's granule positions: the warm-up packet is timed before 0 (the
    /// Vorbis pre-roll class: it was read as a start 2.667 ms before 0 and fix refused). 70 buffers of 1024
    /// samples at 48 kHz are 71680 samples from 0, and fix has nothing to do.
    @Test func vorbisWarmUpBeforeZeroIsNotAStartOffset() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let facts = try Probe.facts(path: Fixtures.path("gst-vorbis.ogg"))
        let audio = try #require(facts.mainAudio)
        #expect(audio.startSeconds.isZero && audio.sampleCount == Rational(71680))
        #expect(!Analyzer.findings(in: facts).contains { $0.ruleID == .startOffset })
        let (report, _) = FixRun.fix("gst-vorbis.ogg", in: dir)
        #expect(report.fix?.status == .unchanged, "\(report.fix?.reason ?? "")")
    }

    /// GStreamer 1.22's mp4mux writes Opus's dOps little-endian: a pre-skip of 14337 samples as players read it,
    /// 312 (libopus's) the other way round. fix refuses in one sentence naming both and the muxer, writes nothing.
    @Test func aByteSwappedOpusHeaderIsRefusedInWords() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("gst-opus.mp4", in: dir)
        #expect(report.fix?.status == .failed)
        #expect(
            report.fix?.reason?.contains(
                "its Opus header says a pre-skip of 14337 samples (298.688 ms) where the same bytes read the other way "
                    + "round say 312") == true, "\(report.fix?.reason ?? "")")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// AV1 and Opus in WebM from other muxers, each with audio longer than the picture (make-other-muxers.sh).
    /// GStreamer's webmmux (30 frames at 30 fps, 70 x 1024 samples of Opus at 48 kHz) writes the AV1 track with no
    /// CodecPrivate, which FFmpeg's Matroska muxer needs (it answered "write packet: Invalid data" to the trim): its
    /// configuration is read from the first packet as `ffmpeg -c copy` does; its temporal delimiters, which the
    /// muxer drops, are no part of the first frame the check compares. mkvmerge's (50 frames at 25 fps, 2.4 s of
    /// Opus) is the control. Trimmed to the picture: its frames, and its length of sound at 48 kHz by the Opus end
    /// discard.
    @Test(arguments: [("gst-av1-opus.webm", 30, 48000), ("mkvmerge-av1-opus.webm", 50, 96000)])
    func av1AndOpusFromOtherMuxersAreTrimmed(file: String, frames: Int, samples: Int) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix(file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try #require(report.fix?.output)
        #expect(try FFmpegDecode.frames(written).count == frames)
        #expect(try FFmpegDecode.audio(written).count == samples)
    }

    /// A live muxer's WebM (make-robust.sh, opus-jitter-live.webm): 72 frames of VP9 at 24 fps beside 3.2 s of Opus
    /// whose pre-skip is 156 samples and whose 20 ms packets sit at block times stepping 15, 25, 20, 21 and 19 ms. The
    /// jitter is no hole: analyze finds none, and fix trims the sound to the picture (3 s; Matroska's milliseconds
    /// hold it to within one, 48 samples) with every block on the sample clock, 20 ms apart to the millisecond. What
    /// FFmpeg decodes from the output is the input's own sound from its start. (It was refused: the jitter read as
    /// holes, the cut 5 ms short of the picture.)
    @Test func opusBlocksThatJitterAreTrimmedEndToEnd() throws {
        let file = "opus-jitter-live.webm"
        let facts = try Probe.facts(path: Fixtures.path(file))
        #expect(facts.mainAudio?.timingBreakCount == 0)
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix(file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try #require(report.fix?.output)
        #expect(try FFmpegDecode.frames(written).count == 72)
        let sound = try FFmpegDecode.audio(written)
        #expect(abs(sound.count - 144_000) <= 48, "\(sound.count)")
        #expect(Array(try FFmpegDecode.audio(Fixtures.path(file)).prefix(sound.count)) == sound)
        let probe = ["-v", "error", "-select_streams", "a", "-show_entries", "packet=pts", "-of", "csv=p=0", written]
        let times = try Tool.run("ffprobe", probe)
        // (The last block's line carries its end discard after the time.)
        let blocks = String(decoding: times.out, as: UTF8.self).split(separator: "\n")
            .compactMap { $0.split(separator: ",").first.flatMap { Int($0) } }
        // Packets of 960 samples (20 ms) enough for the pre-skip and the sound decoded.
        #expect(blocks.count == (156 + sound.count + 959) / 960, "\(blocks)")
        #expect(zip(blocks, blocks.dropFirst()).allSatisfy { (19...21).contains($1 - $0) }, "\(blocks)")
    }

    /// Ogg's page checksum (RFC 3533: CRC-32, polynomial 0x04C11DB7, the field read as zero) against the ones libogg
    /// stored in a file it wrote: every page of loop-vorbis.ogg holds its own; one payload byte flipped, it fails.
    @Test func everyPageLiboggWroteHoldsItsChecksum() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("loop-vorbis.ogg"))))
        var pages: [[UInt8]] = []
        var at = 0
        while at + 27 <= bytes.count, bytes[at..<at + 4].elementsEqual("OggS".utf8) {
            let segments = Int(bytes[at + 26])
            let end = at + 27 + segments + bytes[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
            pages.append(Array(bytes[at..<end]))
            at = end
        }
        #expect(at == bytes.count && pages.count >= 3)
        #expect(pages.allSatisfy(OggChecksum.holds(page:)))
        var flipped = pages[pages.count - 1]
        flipped[flipped.count - 1] ^= 0xFF
        #expect(!OggChecksum.holds(page: flipped))
    }

    /// GStreamer's mpegtsmux with x265's HEVC and AAC 0.3 s longer (make-other-muxers.sh: 60 frames at 30 fps):
    /// the transport stream's last NAL unit of a frame ends on a zero byte its reader drops and FFmpeg's MP4
    /// muxer keeps, which the check read as "starts on another frame" and refused a right output. Written: 60
    /// frames, the first the source's first as FFmpeg decodes both.
    @Test func mpegtsmuxHEVCStartsOnItsFirstFrame() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix("gst-hevc-aac.ts", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try #require(report.fix?.output)
        let frames = try FFmpegDecode.frames(written)
        #expect(frames.count == 60)
        #expect(frames.first == (try FFmpegDecode.frames(Fixtures.path("gst-hevc-aac.ts"))).first)
    }

    /// GStreamer's mpegtsmux: 90 kHz times that jitter a tick (2999/3000/3001), MPEG-1 Layer II audio. Written
    /// as an MP4 whose last frame lasts to the next decode step (a tick less than its own 3000): the checks take
    /// a video's end to one tick of its clock (it was refused over 0.011 ms). 30 frames; the audio named mp2 in
    /// the MP4 as in the TS, without an invented MP3 priming.
    @Test func mpegtsmuxJitterIsATickNotARefusal() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix("gst-ts.ts", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try #require(report.fix?.output)
        #expect(try FFmpegDecode.frames(written).count == 30)
        #expect(try Probe.facts(path: written).mainAudio?.codec == "mp2")
    }

    /// AAC alone in FLV (millisecond times): the assumed priming is hidden as 1024 whole samples, not the
    /// 1008 that 21 ms gives, so the MP4 written and the plan agree (it was refused over 0.333 ms).
    @Test func aacOnlyFLVHidesAWholePrimingFrame() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let flv = dir.appendingPathComponent("tone.flv").path
        #expect(
            try Tool.run(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=441:sample_rate=48000:duration=1",
                    "-c:a", "aac", flv,
                ]
            ).status == 0)
        let report = ClipFix.fix(
            flv,
            FixRequest(
                to: dir.appendingPathComponent("out.flv").path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let cut = try #require(report.fix?.plan?.tracks.first)
        #expect(cut.trimmedHead * 48000 == Rational(1024))
    }

    /// MPEG-2 Layer III in AVI (fixtures/make-fixtures.sh): 576-sample frames on a clock of one tick a frame.
    /// Laid a frame apart at 576 samples (not MPEG-1's 1152) on the sample clock, so the cut is exact: 30 frames
    /// over 32 ticks of 1/30 s and 32/30 s of audio, 23520 samples (it was written at 1152 a frame, then cut 66
    /// samples short on the coarse clock).
    @Test func mpeg2LayerIIIInAVIIsCutToTheSample() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix("mpeg2-mp3.avi", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try #require(report.fix?.output)
        #expect(report.facts?.mainVideo?.frameCount == 30)
        #expect(report.facts?.mainAudio?.sampleCount == Rational(23520))
        let audio = try #require(try FFmpegReading.read(written).tracks.first { $0.kind == .audio })
        #expect(audio.samples == 23520 && audio.decoderDisagrees == nil)
    }

    struct AVIClip: CustomTestStringConvertible, Sendable {
        var file: String, rate: Int
        var testDescription: String { file }
    }

    /// AVI from the ffmpeg CLI whose video reorders nothing (fixtures/make-fixtures.sh): 50 frames
    /// at 25 fps, the first held two ticks by the empty chunk FFmpeg's AVI muxer writes (51 ticks, 2.04 s), over an
    /// MP3 of 2 s of tone whose 1105 samples of LAME delay AVI cannot signal. The audio holds 2 s of content, so
    /// the cut is at 2 s, the last frame boundary in it: written as MP4 beside it, 49 frames and 2 s of samples
    /// as FFmpeg decodes it, one channel, the input untouched. (AVI's clocks are frame and packet counts: the end
    /// is planned to the sample, not to the video's 40 ms tick.)
    @Test(arguments: [AVIClip(file: "avi-h264-mp3.avi", rate: 44100), AVIClip(file: "avi-mpeg4-mp3.avi", rate: 48000)])
    func aviThatReordersNothingIsCutToTheSample(clip: AVIClip) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(clip.file)))
        let (report, _) = FixRun.fix(clip.file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try #require(report.fix?.output)
        #expect(written.hasSuffix(".mp4"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(clip.file))) == before)
        let reading = try FFmpegReading.read(written)
        let audio = try #require(reading.tracks.first { $0.kind == .audio })
        #expect(audio.samples == Int64(2 * clip.rate) && audio.decoderDisagrees == nil)
        // (The ffmpeg CLI of 5.1 decodes MP3 in MP4 past its edit's end; the reading above applies the edit.)
        #expect(try FFmpegDecode.frames(written).count == 49)
        #expect(report.facts?.mainAudio?.channels == 1)
        #expect(try FFmpegDecode.errors(written) == "")
    }

    /// MS-MPEG4 v2 in AVI shows its frames as it stores them but goes into neither MP4 nor MOV: refused for that,
    /// with the remedy, not as reordered video; nothing written.
    @Test func msMPEG4InAVIIsRefusedForItsCodec() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix("avi-msmpeg4-mp3.avi", in: dir)
        #expect(report.fix?.status == .failed)
        let reason = report.fix?.reason ?? ""
        #expect(reason.contains("msmpeg4v2 cannot go into MP4 or MOV") && reason.contains("re-encode that track"))
        #expect(!reason.contains("another order"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// VLC 3's recorder, Theora + Vorbis in Ogg (fixtures/make-other-muxers.sh: 60 frames at
    /// 30 fps over a tone at 44.1 kHz). The first page's granule puts the Vorbis warm-up before 0 and the first
    /// sample after it (FFmpeg's second packet time, 83 samples: a start offset under half a frame, moved to 0),
    /// and the last page holds an empty packet (it decodes to nothing, not to 1024 more samples). The audio, as
    /// FFmpeg decodes it, is the shortest track: the cut is the last frame boundary in it, 1470 samples a frame.
    @Test func vlcTheoraVorbisOggIsCutToItsAudio() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.path("vlc-theora-vorbis.ogg")
        let times = try Tool.run(
            "ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "packet=pts", "-of", "csv=p=0", input])
        let second = try #require(
            String(decoding: times.out, as: UTF8.self).split(separator: "\n").dropFirst().first.flatMap { Int64($0) })
        let decoded = Int64(try FFmpegDecode.audio(input).count)
        let frames = decoded * 30 / 44100
        let (report, out) = FixRun.fix("vlc-theora-vorbis.ogg", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let facts = try Probe.facts(path: input)
        let audioIn = try #require(facts.mainAudio)
        #expect(audioIn.start.ticks * audioIn.timeBase * 44100 == Rational(second))
        #expect(audioIn.sampleCount == Rational(decoded))
        #expect(facts.mainVideo?.frameRate == Rational(30))
        let reading = try FFmpegReading.read(out)
        let audio = try #require(reading.tracks.first { $0.kind == .audio })
        #expect(audio.samples == frames * 1470 && audio.start == .zero && audio.decoderDisagrees == nil)
        #expect(try FFmpegDecode.frames(out).count == Int(frames))
        #expect(try FFmpegDecode.audio(out).count == Int(frames * 1470))
        #expect(try FFmpegDecode.errors(out) == "")
    }

    /// VLC 3's H.264 + Opus Matroska (libavformat's muxer, 33 ms blocks, no DefaultDuration): FFmpeg's stream says
    /// 1000/33 fps, but every timestamp rounds from the 30 fps grid the recipe encoded, so the clip is 30 fps, and
    /// stays so written; the output starts at 0 and its tracks end together, 1600 samples a frame.
    @Test func vlcMatroskaIsReadAtItsFrameGrid() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try Probe.facts(path: Fixtures.path("vlc-h264-opus.mkv")).mainVideo?.frameRate == Rational(30))
        let (report, out) = FixRun.fix("vlc-h264-opus.mkv", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let after = try Probe.facts(path: out)
        let video = try #require(after.mainVideo)
        let audio = try #require(after.mainAudio)
        #expect(video.frameRate == Rational(30))
        #expect(audio.sampleCount == Rational(Int64(try #require(video.frameCount)) * 1600))
        #expect((audio.endSeconds - video.endSeconds).magnitude <= Rational(1, 1000))
        #expect(try FFmpegDecode.frames(out).count == video.frameCount)
        #expect(try FFmpegDecode.errors(out) == "")
    }

    /// VLC 3's Dirac in Ogg: the Dirac stream's header packet is empty, so FFmpeg reads it as data and would have
    /// left the picture out of a "fixed" audio-only file: refused in one sentence, nothing written.
    @Test func anOggStreamNamingNoCodecIsRefused() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix("vlc-dirac.ogg", in: dir)
        #expect(report.fix?.status != .fixed && report.fix?.status != .unchanged)
        let said = (report.error ?? "") + (report.fix?.reason ?? "")
        #expect(said.contains("header packet that names no codec"), "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// MPEG-4 video in OGM: ogmmerge's file, which FFmpeg reads whole, needs a change here
    /// (--seam-fade) that no Ogg muxer of FFmpeg's can write back: refused as OGM, with the remedy; VLC's, which
    /// FFmpeg's OGM reader gives up on at its last page, is said to be an OGM file FFmpeg cannot read to its end
    /// (not a damaged one). Nothing written either way.
    @Test func mpeg4InOGMIsSaidToBeOGM() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = FixOptions()
        options.seamFade = Rational(1, 100)
        let (changed, _) = FixRun.fix("ogmmerge-mpeg4.ogm", in: dir, options: options)
        #expect(changed.facts?.mainVideo?.codec == "mpeg4" && changed.facts?.mainVideo?.frameCount == 50)
        #expect(changed.fix?.reason?.contains("carries mpeg4 in OGM headers") == true, "\(changed.fix?.reason ?? "")")
        let (vlc, _) = FixRun.fix("vlc-mpeg4.ogm", in: dir)
        let said = (vlc.error ?? "") + (vlc.fix?.reason ?? "")
        #expect(said.contains("an OGM file") && !said.contains("damaged"), "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// ogmmerge's OGM needs nothing from a plain fix, but FFmpeg 5.1's MPEG-4 decoder cannot decode its frames
    /// (analyze skips its seam, saying so): the copy is the input byte for byte, kept as unchanged, not refused because
    /// FFmpeg cannot read back what it cannot read in the input either.
    @Test func aByteCopyFFmpegCannotDecodeIsKeptUnchanged() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("ogmmerge-mpeg4.ogm").path
        let report = ClipFix.fix(
            Fixtures.path("ogmmerge-mpeg4.ogm"), FixRequest(to: out, temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .unchanged, "\(report.fix?.reason ?? "")")
        #expect(report.fix?.plan?.writer == .copy)
        #expect(FileManager.default.contentsEqual(atPath: out, andPath: Fixtures.path("ogmmerge-mpeg4.ogm")))
        // (FFmpeg 9 decodes its frames: the seam is measured there.)
        let skipped = report.notes?.contains { $0.contains("the seam checks were skipped") } == true
        #expect(skipped != (report.facts?.seam != nil), "\(report.notes ?? [])")
    }

    /// 3GP with MPEG-4 video and AMR-NB (fixtures/make-other-muxers.sh): 60 frames at 30000/1001
    /// fps (2.002 s) over 2.2 s of 8 kHz AMR in 160-sample frames. The audio is cut to the video by the edit list,
    /// 2.002 s x 8000 = 16016 samples, no frame dropped; FFmpeg reads the same.
    @Test func mpeg4AndAMRIn3GPIsCutToTheVideo() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("mpeg4-amr.3gp", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let reading = try FFmpegReading.read(out)
        #expect(reading.tracks.first { $0.kind == .audio }?.samples == 16016)
        #expect(reading.tracks.first { $0.kind == .video }?.frames == 60)
        #expect(try FFmpegDecode.frames(out).count == 60)
        #expect(try FFmpegDecode.errors(out) == "")
    }

    /// The same at 23.976 fps (mpeg4-amr-film.3gp): 82 frames are 82 x 1001/24000 s x 8000 = 27360.67 samples over
    /// 171 AMR frames of 160 (27360): the picture ends 2/3 of a sample (0.083 ms) after the sound. That is no
    /// difference: analyze finds none, and fix only moves the index before the media (a frame and 333 samples were
    /// cut for it, then the output was refused); every frame and sample is in the output, and fix of it does nothing.
    @Test func pictureLessThanASamplePastAMRIsNoDifference() throws {
        let input = Fixtures.path("mpeg4-amr-film.3gp")
        let rules = try Analyzer.findings(in: Probe.facts(path: input)).map(\.rule)
        #expect(!rules.contains("video-longer-than-audio") && !rules.contains("audio-longer-than-video"), "\(rules)")
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("mpeg4-amr-film.3gp", in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let reading = try FFmpegReading.read(out)
        #expect(reading.tracks.first { $0.kind == .audio }?.samples == 27360)
        #expect(reading.tracks.first { $0.kind == .video }?.frames == 82)
        #expect(try FFmpegDecode.frames(out).count == 82)
        let second = ClipFix.fix(
            out,
            FixRequest(
                to: dir.appendingPathComponent("again.3gp").path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(second.fix?.status == .unchanged, "\(second.fix?.reason ?? "")")
    }

    /// FLAC in Ogg cut by stream copy (fixtures/make-fixtures.sh): the cut at 0.3 s is sample
    /// 13230, inside the FLAC frame of 4608 samples from 9216, which the copy keeps whole: 4014 samples before 0,
    /// which FFmpeg plays and granule-following players skip. Refused with that figure, nothing written.
    @Test func anOggFLACCutByCopyIsRefusedWithItsEarlyStart() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = FixRun.fix("flac-ss-cut.ogg", in: dir)
        let said = (report.error ?? "") + (report.fix?.reason ?? "")
        #expect(said.contains("an Ogg FLAC stream that starts 4014 samples (91 ms) before 0"), "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// MPEG-2 Layer III (22.05 kHz, 576-sample frames) with a LAME header saying its delay and padding: clean,
    /// so fix copies it unchanged, and FFmpeg reads the 22050 samples made.
    @Test func mpeg2LayerIIIWithALAMEHeaderIsLeftAlone() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("mpeg2-lame.mp3", in: dir)
        #expect(report.fix?.status == .unchanged, "\(report.fix?.reason ?? "")")
        #expect(report.facts?.mainAudio?.sampleCount == Rational(22050))
        #expect(try FFmpegReading.read(out).tracks.first?.samples == 22050)
        #expect(try FFmpegDecode.audio(out).count == 22050)
    }
}
