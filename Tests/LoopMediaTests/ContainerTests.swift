import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// Containers other than MP4, analysis side: each is read, and its figures come from how the
/// fixture was made (fixtures/make-fixtures.sh).
@Suite struct ContainerTests {
    /// FLV and MPEG-PS declare their streams only with the packets: they used to be "unreadable".
    @Test(arguments: [("rtmp.flv", "h264", "aac", 30), ("camcorder.mpg", "mpeg2video", "mp2", 25)])
    func streamsThatComeWithThePacketsAreRead(file: String, video: String, audio: String, frames: Int) throws {
        let facts = try Probe.facts(path: Fixtures.path(file))
        #expect(facts.mainVideo?.codec == video && facts.mainAudio?.codec == audio)
        #expect(facts.mainVideo?.frameCount == frames)
        // 1 s of video: frames / fps.
        #expect(facts.mainVideo?.durationSeconds == Rational(1))
        #expect(!Analyzer.findings(in: facts).contains { $0.rule == "timestamp-gap" })
    }

    /// MPEG-TS never starts at 0: what counts is the offset between tracks. FFmpeg's AAC encoder primes 1024
    /// samples, written before the video's first frame: the video starts 1024 / rate later than the audio (one
    /// tick of the container's clock either way), and nothing else is offset.
    @Test(arguments: [
        ("broadcast.ts", 44100, Rational(1, 90000)), ("camera.m2ts", 48000, Rational(1, 90000)),
        ("rtmp.flv", 44100, Rational(1, 1000)),
    ])
    func onlyTheOffsetBetweenTracksCounts(file: String, rate: Int, tick: Rational) throws {
        let facts = try Probe.facts(path: Fixtures.path(file))
        let video = try #require(facts.mainVideo)
        let audio = try #require(facts.mainAudio)
        #expect(audio.startSeconds.isZero)
        #expect((video.startSeconds - Rational(1024, Int64(rate))).magnitude <= tick)
        if file.hasSuffix("ts") { #expect((facts.clockOrigin ?? .zero) > Rational(1)) }
        let offsets = Analyzer.findings(in: facts).filter { $0.rule == "start-offset" }
        #expect(offsets.count == 1 && offsets[0].track == video.index)
        // 44.1 kHz AAC on the 90 kHz clock: frames of 2089.8 ticks rounded by the muxer are not holes.
        #expect(!Analyzer.findings(in: facts).contains { $0.rule == "timestamp-gap" })
    }

    struct Conversion: CustomTestStringConvertible, Sendable {
        var file: String, output: String, frames: Int, samples: Int64?, rate: Int
        var testDescription: String { file }
    }

    /// Containers that cannot say a trim or a priming are fixed into an MP4 (a MOV for PCM) beside them, named
    /// NAME.mp4, exactly: 1 s of video (30 frames; the AVI 15) and the tone cut to it.
    static let conversions = [
        Conversion(file: "broadcast.ts", output: "broadcast.mp4", frames: 30, samples: 44100, rate: 44100),
        Conversion(file: "camera.m2ts", output: "camera.mp4", frames: 30, samples: 48000, rate: 48000),
        // FLV's millisecond clock: every frame, and the audio within half a sample of the video (its length
        // follows the video's millisecond start).
        Conversion(file: "rtmp.flv", output: "rtmp.mp4", frames: 30, samples: nil, rate: 44100),
        Conversion(file: "capture.avi", output: "capture.mov", frames: 15, samples: 8000, rate: 8000),
        // MPEG-PS gives most packets no PTS: the copies take the ones the probe filled in (25 frames, not 24
        // with two at 0). (ffmpeg decodes MP2 in MP4 past the edit's end; the edit says 48000.)
        Conversion(file: "camcorder.mpg", output: "camcorder.mp4", frames: 25, samples: 48000, rate: 48000),
        // With B-frames the I and P frames have no PTS: each takes the free place on the frame grid in decode order.
        Conversion(
            file: "camcorder-bframes.mpg", output: "camcorder-bframes.mp4", frames: 25, samples: 48000, rate: 48000),
    ]

    @Test(arguments: conversions)
    func writtenAsMP4BesideIt(conversion c: Conversion) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path(c.file)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        let report = ClipFix.fix(
            source,
            FixRequest(
                to: dir.appendingPathComponent(c.file).path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.fix?.output == dir.appendingPathComponent(c.output).path)
        #expect(report.fix?.plan?.notes.contains { $0.contains("writes \(c.output)") } == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [c.output])
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)

        let out = dir.appendingPathComponent(c.output).path
        let after = try Probe.facts(path: out)
        #expect(after.moovBeforeMdat == true)
        #expect(Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }.isEmpty)
        let video = try #require(after.mainVideo)
        let audio = try #require(after.mainAudio)
        #expect(video.frameCount == c.frames)
        if let samples = c.samples { #expect(audio.sampleCount == Rational(samples)) }
        #expect((audio.endSeconds - video.endSeconds).magnitude * Int64(c.rate) <= Rational(1, 2))
        // ffmpeg, independently: every frame decodes, with no complaint.
        #expect(try FFmpegDecode.frames(out).count == c.frames)
        #expect(try FFmpegDecode.errors(out) == "")
        // Every frame the source shows, in its order (the audio was the longer track: no frame is cut).
        #expect(try FFmpegDecode.frames(out) == (try FFmpegDecode.frames(source)))
    }

    /// The first-frame check is made for outputs that are not MP4-from-MP4 too: the output's first presented
    /// frame holds what the source's planned one holds (MPEG-TS and -PS start codes become MP4 lengths; the
    /// NAL units are the same), and a different frame is caught.
    @Test(arguments: [
        ("broadcast.ts", "broadcast.mp4"), ("camcorder-bframes.mpg", "camcorder-bframes.mp4"), ("obs.mkv", "obs.mkv"),
        ("web-video-late.webm", "web-video-late.webm"),
    ])
    func firstFrameIsCheckedInEveryContainer(file: String, output: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Probe.probe(Fixtures.path(file), keepInput: false, locations: true)
        let plan = try FixPlanner.plan(source.facts, timelines: source.timelines)
        let expected = try OutputCheck.plannedFirstFrames(plan, source: source)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        #expect(expected[video.index]?.isEmpty == false)
        let report = ClipFix.fix(
            Fixtures.path(file),
            FixRequest(
                to: dir.appendingPathComponent(file).path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let written = try Probe.probe(dir.appendingPathComponent(output).path, keepInput: false, locations: true)
        #expect(try OutputCheck.firstFrameDifference(plan, expected: expected, output: written) == nil)
        var other = expected
        other[video.index] = [[0x65, 0x88]]
        #expect(try OutputCheck.firstFrameDifference(plan, expected: other, output: written) != nil)
    }

    /// A long copy lands at the source's offset within a 4 KB block (a free box pads the moov; XFS and btrfs then
    /// share the blocks instead of copying them), and the file is still a plain moov-first MP4. The clip: 6 MB of
    /// video (lossless noise) with the moov at the end, so ffmpeg wrote the first sample right after the mdat header.
    @Test func aLongCopyKeepsTheSourcesBlockOffset() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("long.mp4").path
        let made = try Tool.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=6", "-f",
                "lavfi", "-i", "sine=duration=6.5", "-vf", "noise=alls=60:allf=t", "-c:v", "libx264", "-preset",
                "ultrafast", "-qp", "0", "-c:a", "aac", source,
            ])
        #expect(made.status == 0)
        let sourceMdat = try #require(try MiniBox.read(source).first { $0.type == "mdat" })
        #expect(sourceMdat.payload.count >= 4 << 20)
        let firstSample = sourceMdat.offset + 8
        let output = dir.appendingPathComponent("out/long.mp4").path
        let report = ClipFix.fix(
            source,
            FixRequest(to: output, options: .init(), analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let boxes = try MiniBox.read(output).map(\.type)
        #expect(boxes == ["ftyp", "moov", "free", "mdat"], "\(boxes)")
        let mdat = try #require(try MiniBox.read(output).first { $0.type == "mdat" })
        #expect((mdat.offset + 8) % 4096 == firstSample % 4096)
        let free = try #require(try MiniBox.read(output).first { $0.type == "free" })
        #expect(free.payload.count + 8 < 4096 + 8)
        // ffprobe reads every packet of it.
        let probe = try Tool.run("ffprobe", ["-v", "error", "-count_packets", "-show_streams", "-of", "json", output])
        #expect(probe.status == 0 && String(decoding: probe.out, as: UTF8.self).contains("nb_read_packets"))
    }

    /// AVI stores decode order only: H.264 that may reorder frames is refused in one sentence, nothing written.
    @Test func aviWithReorderingVideoIsRefused() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("bframes.avi").path
        let made = try Tool.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=15:duration=1",
                "-c:v", "libx264", "-bf", "2", source,
            ])
        #expect(made.status == 0)
        let out = dir.appendingPathComponent("out").path
        let report = ClipFix.fix(
            source,
            FixRequest(
                to: out + "/bframes.avi", options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .failed)
        #expect(report.fix?.reason?.contains("AVI keeps no presentation times") == true)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// OBS's Matroska (H.264 with B-frames: no DTS from FFmpeg's demuxer; SimpleBlocks without durations) stays
    /// Matroska: the 1 s of video whole, the AAC priming packet dropped (Matroska cannot hide it) and said in a
    /// tag the next analysis reads, the audio cut to the video within Matroska's millisecond.
    @Test func obsMatroskaStaysMatroska() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("obs.mkv").path
        let report = ClipFix.fix(
            Fixtures.path("obs.mkv"),
            FixRequest(to: out, options: .init(), analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let after = try Probe.facts(path: out)
        #expect(after.container == .matroska)
        #expect(report.fix?.plan?.notes.contains { $0.contains("whole milliseconds") } == true)
        // DefaultDuration written: the copy still reads as 30 fps (not 1000/33 from 33 and 34 ms steps).
        #expect(after.mainVideo?.frameRate == Rational(30))
        #expect(after.mainVideo?.frameCount == 30)
        #expect(after.mainAudio?.priming == PrimingFacts(samples: 1024, signalled: true, method: "removed by fix"))
        let video = try #require(after.mainVideo)
        let audio = try #require(after.mainAudio)
        #expect((audio.endSeconds - video.endSeconds).magnitude <= Rational(1, 1000))
        #expect(Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }.isEmpty)
        #expect(try FFmpegDecode.frames(out).count == 30)
        #expect(try FFmpegDecode.errors(out) == "")
    }

    struct WebMCut: CustomTestStringConvertible, Sendable {
        var file: String
        /// Where FFmpeg's muxer put the video (ffprobe's start_time, milliseconds): the Opus pre-skip, 312 samples
        /// = 6.5 ms, moved to the next whole millisecond (plus -itsoffset where the fixture used it).
        var videoStartMs: Int64
        /// Video frames written, and those the audio covers from the video's start.
        var frames: Int
        var testDescription: String { file }
        /// A start under half a frame (16.7 ms at 30 fps) is rebased, not cut: the video moves to the audio's 0.
        var rebased: Bool { videoStartMs * 2 * 30 < 1000 }
        /// Opus samples cut before the video's first frame (48 a millisecond).
        var trimmed: Int64 { rebased ? 0 : videoStartMs * 48 }
    }

    /// WebM's Opus is cut to the sample, losslessly: the packets are copied, the OpusHead's pre-skip and the
    /// CodecDelay drop the samples before the video's first frame (with 80 ms of decoder pre-roll when the cut
    /// starts mid-stream) and a DiscardPadding the ones after its last. The 7 ms the muxer moved the video for
    /// the pre-skip is under half a frame: the video is moved back to 0 and all 30 frames written are kept.
    @Test(arguments: [
        WebMCut(file: "vp9-opus.webm", videoStartMs: 7, frames: 30),
        WebMCut(file: "mediarecorder.webm", videoStartMs: 7, frames: 30),
        WebMCut(file: "av1-opus.webm", videoStartMs: 7, frames: 30),
        WebMCut(file: "web-video-late.webm", videoStartMs: 507, frames: 30),
    ])
    func webmOpusIsCutToTheSampleByItsPreSkip(c: WebMCut) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path(c.file)
        let out = dir.appendingPathComponent(c.file).path
        let before = try FFprobe.streams(source)
        #expect(
            before.first { $0.codec_name != "opus" }?.start_time.flatMap(Double.init) == Double(c.videoStartMs) / 1000)
        let sourcePreSkip = try #require(Opus.preSkip(before.first { $0.codec_name == "opus" }!.extradataBytes))
        #expect(sourcePreSkip == 312)

        let report = ClipFix.fix(
            source,
            FixRequest(
                to: out, options: .init(), analysis: .init(target: .web, seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let after = try Probe.facts(path: out)
        #expect(after.container == .webm)
        let video = try #require(after.mainVideo)
        let audio = try #require(after.mainAudio)
        #expect(video.frameCount == c.frames && video.startSeconds.isZero && audio.startSeconds.isZero)
        // The audio lasts the frames, to Matroska's millisecond (the video's end is known to no better).
        let frames = Rational(Int64(c.frames), 30)
        #expect((audio.durationSeconds - frames).magnitude <= Rational(1, 1000))
        #expect(Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }.isEmpty)

        // ffmpeg, independently: the samples it decodes are the ones we count, and the pre-skip in the header
        // it reads is the source's plus the trimmed samples, less the packets dropped before the pre-roll.
        let decoded = try FFmpegDecode.audio(out)
        let original = try FFmpegDecode.audio(source)
        #expect(Rational(Int64(decoded.count)) == audio.sampleCount)
        let trimmed = c.trimmed
        let opus = try #require(try FFprobe.streams(out).first { $0.codec_name == "opus" })
        let preSkip = try #require(Opus.preSkip(opus.extradataBytes))
        #expect(preSkip >= sourcePreSkip && (preSkip - sourcePreSkip - trimmed) % 960 == 0, "pre-skip \(preSkip)")
        // The same samples as the source's from the video's start: bit for bit where the decoder starts on the
        // same packet, within the pre-roll's convergence where it starts 80 ms before the cut.
        let worst = decoded.indices.map { abs(decoded[$0] - original[Int(trimmed) + $0]) }.max() ?? 1
        #expect(worst <= (trimmed < 80 * 48 ? 0 : 0.01), "largest difference \(worst)")
        #expect(try FFmpegDecode.frames(out).count == c.frames)
        #expect(try FFmpegDecode.errors(out) == "")
    }

    /// Audio-only files keep their format: a clean WAV is copied byte for byte, and so is an Ogg file whose
    /// last granule position says its exact length (libvorbis and libsndfile decode the 44100 samples made;
    /// FFmpeg's Vorbis decoder gives 128 fewer, and its demuxer marks the end trim twice).
    @Test(arguments: [("loop-vorbis.ogg", Int64(44100), Int64?.none), ("loop-opus.opus", 48000, 312)])
    func oggLengthIsItsLastGranule(file: String, samples: Int64, preSkip: Int64?) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let facts = try Probe.facts(path: Fixtures.path(file))
        let audio = try #require(facts.mainAudio)
        #expect(audio.sampleCount == Rational(samples) && audio.startSeconds.isZero)
        #expect(audio.priming?.samples == preSkip)
        #expect(
            !Analyzer.findings(in: facts).contains {
                ["too-short-to-loop", "start-offset", "priming-not-signalled"].contains($0.rule)
            })
        let out = dir.appendingPathComponent(file).path
        let report = ClipFix.fix(
            Fixtures.path(file),
            FixRequest(to: out, options: .init(), analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .unchanged)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: out))
                == (try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(file)))))
    }

    /// A game loop in Ogg Vorbis: its seam is heard where libvorbis plays it. FFmpeg's clock runs a quarter
    /// block (128 samples) ahead of the content and its decoder drops as many real samples at the end, so the
    /// seam is measured on the timeline's clock with the end decoded whole. lavfi's sine is 1/8 of full scale:
    /// 440 Hz for 44126 samples ends 0.26 of a cycle on, and the jump across the seam is the wave's value
    /// where the next cycle should have gone on (the lossy codec moves it by a little).
    @Test func oggVorbisSeamClickIsHeardWhereItIs() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("loop-click.ogg")
        let count = 44126
        func x(_ n: Int) -> Double { sin(2 * Double.pi * 440 * Double(n) / 44100) / 8 }
        let predicted = x(count - 1) + ((x(count - 1) - x(count - 2)) + (x(1) - x(0))) / 2
        let expected = abs(x(0) - predicted)
        let report = ClipAnalysis.report(path: source, options: .init())
        #expect(report.facts?.mainAudio?.sampleCount == Rational(Int64(count)))
        let jump = try #require(report.facts?.seam?.audioJump?.first)
        #expect(abs(jump - expected) < 0.01, "jump \(jump), made \(expected)")
        #expect(report.findings.contains { $0.rule == "seam-audio-click" })
        // --seam-fade: the same length, faded to silence at both ends, still Ogg.
        let out = dir.appendingPathComponent("loop-click.ogg").path
        let fixed = ClipFix.fix(
            source,
            FixRequest(
                to: out, options: .init(seamFade: Rational(10, 1000)), analysis: .init(), temporaries: TemporaryFiles())
        )
        #expect(fixed.fix?.status == .fixed, "\(fixed.fix?.reason ?? "")")
        let after = ClipAnalysis.report(path: out, options: .init())
        #expect(after.facts?.container == .ogg && after.facts?.mainAudio?.sampleCount == Rational(Int64(count)))
        #expect(!after.findings.contains { $0.rule == "seam-audio-click" })
    }

    /// ADTS AAC cannot say its priming: fix writes NAME.m4a beside it, the same 45 frames (46080 samples: the
    /// 44100 made, padded to whole frames) behind an edit list that hides FFmpeg's 1024 samples of priming.
    /// (ADTS does not say the end padding either, so the 956 samples after the tone stay.)
    @Test func adtsAACBecomesAnM4AWithAnEditList() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("loop-adts.aac")
        let before = try Probe.facts(path: source)
        #expect(before.mainAudio?.sampleCount == Rational(46080))
        #expect(Analyzer.findings(in: before).contains { $0.rule == "priming-not-signalled" })
        let report = ClipFix.fix(
            source,
            FixRequest(
                to: dir.appendingPathComponent("loop-adts.aac").path, options: .init(),
                analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let out = dir.appendingPathComponent("loop-adts.m4a").path
        #expect(report.fix?.output == out)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["loop-adts.m4a"])
        let after = try Probe.facts(path: out)
        #expect(after.mainAudio?.priming == PrimingFacts(samples: 1024, signalled: true, method: "edit list"))
        #expect(after.mainAudio?.sampleCount == Rational(46080 - 1024))
        #expect(Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }.isEmpty)
        // Independently: the edit list in the box bytes, and ffmpeg decodes what it presents.
        let moov = try #require(try MiniBox.read(out).first { $0.type == "moov" })
        #expect(moov.path("trak", "mdia", "mdhd")?.timescale == 44100)
        #expect(moov.path("trak", "edts", "elst")?.edits.map(\.mediaTime) == [1024])
        #expect(try FFmpegDecode.audio(out).count == 46080 - 1024)
    }

    /// An MP3 without its LAME/Xing header says no encoder delay: 1105 samples of silence at every loop, said
    /// as such. Only a LAME header can say it in an MP3, so fix refuses in one sentence and writes nothing.
    @Test func mp3WithoutLAMEHeaderIsRefusedByName() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("loop-nolame.mp3")
        let facts = try Probe.facts(path: source)
        let finding = try #require(Analyzer.findings(in: facts).first { $0.rule == "priming-not-signalled" })
        #expect(finding.message.contains("1105 samples"))
        let out = dir.appendingPathComponent("out").path
        let report = ClipFix.fix(
            source,
            FixRequest(
                to: out + "/loop-nolame.mp3", options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(
            report.fix?.status == .failed && report.fix?.reason?.contains("only in a LAME header") == true
                && report.fix?.reason?.contains("--reencode-audio") == true)
        #expect(
            report.fix?.plan?.notes.contains { $0.contains("hides 1105 samples of unsignalled MP3 priming") } == true)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// --reencode-audio: the same MP3 encoded again, with a LAME header that says the new encoder's delay and
    /// padding. The 1105 samples of unsignalled priming are hidden; the rest (46080 - 1105 samples, the
    /// source's own end padding included, which nothing said) is the content, as ffmpeg decodes it too.
    @Test func mp3ReencodedGetsALAMEHeader() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("loop-nolame.mp3")
        let out = dir.appendingPathComponent("loop-nolame.mp3").path
        var options = FixOptions()
        options.reencodeAudio = true
        let report = ClipFix.fix(
            source,
            FixRequest(to: out, options: options, analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let after = try Probe.facts(path: out)
        let audio = try #require(after.mainAudio)
        #expect(after.container == .mp3 && audio.priming?.method == "LAME header" && audio.priming?.signalled == true)
        #expect(audio.sampleCount == Rational(46080 - 1105) && audio.startSeconds.isZero)
        let decoded = try FFmpegDecode.audio(out)
        let original = try FFmpegDecode.audio(source)
        #expect(decoded.count == 46080 - 1105 && original.count == 46080)
        // The tone where the source has it, 1105 samples on (two lossy encodings apart).
        let error = zip(decoded, original.dropFirst(1105)).map { abs($0 - $1) }.reduce(0, +) / Float(decoded.count)
        #expect(error < 0.01, "mean difference \(error)")
    }

    /// An MP3's LAME header signals its encoder delay and padding: FFmpeg's libmp3lame writes 576 samples of
    /// encoder delay, to which every decoder adds 529 (1105), and the 1 s tone of 44100 samples plays from 0.
    /// No start offset, and fix has nothing to do.
    @Test func mp3EncoderDelayIsSignalledPriming() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp3 = dir.appendingPathComponent("loop.mp3").path
        #expect(
            try Tool.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=1", mp3]).status == 0
        )
        let facts = try Probe.facts(path: mp3)
        let audio = try #require(facts.mainAudio)
        #expect(audio.priming == PrimingFacts(samples: 1105, signalled: true, method: "LAME header"))
        #expect(audio.startSeconds.isZero && audio.sampleCount == Rational(44100))
        #expect(
            !Analyzer.findings(in: facts).contains { $0.rule == "start-offset" || $0.rule == "priming-not-signalled" })
        let report = ClipFix.fix(
            mp3,
            FixRequest(
                to: dir.appendingPathComponent("out/loop.mp3").path, options: .init(),
                analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .unchanged)
    }
}

/// MP3 of MPEG-2 and 2.5 Layer III whose LAME padding runs more than a frame past the decoder's delay
/// (fixtures/make-other-muxers.sh: LAME, 2 s of a tone at 24 and 12 kHz, one more frame of padding): the
/// tag's own bytes say the content, 48000 and 24000 samples, and fix copies the file as it is (it refused it).
@Suite struct LAMETagTests {
    @Test(arguments: [("lame-mpeg2-24000.mp3", Int64(48000), Int64(576)), ("lame-mpeg2-12000.mp3", 24000, 576)])
    func aFileThatNeedsNothingIsCopied(file: String, samples: Int64, frame: Int64) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path(file))))
        let tag = try #require(LAMETag(fileStart: bytes))
        #expect(tag.frameSamples == frame && tag.delay == 576 && tag.padding > 576 + LAMEGapless.decoderDelay)
        let facts = try Probe.facts(path: Fixtures.path(file))
        #expect(facts.mainAudio?.sampleCount == Rational(samples))
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix(file, in: dir)
        #expect(report.fix?.status == .unchanged, "\(report.fix?.reason ?? "")")
        // ffmpeg decodes the copy to the content (2 channels).
        #expect(Int64(try FFmpegDecode.audio(out).count) == samples * 2)
    }
}

/// Matroska blocks before 0 (a stream copy that kept its pre-roll, a split's second part): FFmpeg's demuxer reads
/// them truly only after the streams' information. The fuzzer found the first reading of such a file lacking what
/// that information adds (the VP9 profile, its reorder depth) while every later reading had it: each reading of one
/// file now says the same.
@Suite struct StreamInfoFirstTests {
    @Test(arguments: ["webm-before-zero.webm", "mkvmerge-split-part2.webm"])
    func everyReadingOfAFileWithBlocksBeforeZeroAgrees(file: String) throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A copy of its own: no earlier reading in this process has named it.
        let clip = dir.appendingPathComponent(file).path
        try FileManager.default.copyItem(atPath: Fixtures.path(file), toPath: clip)
        let first = try Probe.probe(clip, keepInput: false)
        let second = try Probe.probe(clip, keepInput: true)
        #expect(first.facts == second.facts)
        #expect(first.timelines == second.timelines)
        // What the streams' information adds, in the first reading too.
        #expect(file != "webm-before-zero.webm" || first.facts.mainVideo?.profile != nil)
    }

    /// A file is known by what it is, not by its name: another clip written at the path is judged afresh.
    @Test func aNewFileAtTheSamePathIsJudgedAfresh() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.webm").path
        try FileManager.default.copyItem(atPath: Fixtures.path("webm-before-zero.webm"), toPath: clip)
        _ = try Probe.probe(clip)
        #expect(StreamInfoFirst.required(clip))
        try FileManager.default.removeItem(atPath: clip)
        try FileManager.default.copyItem(atPath: Fixtures.path("vp8-vorbis.webm"), toPath: clip)
        #expect(!StreamInfoFirst.required(clip))
    }
}
