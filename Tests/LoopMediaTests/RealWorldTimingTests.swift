import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// The MP4 shapes phones, editors, recorders and packagers write, each fixed exactly: the expected
/// frames and samples come from how the fixture was made (fixtures/make-fixtures.sh), never from loopprep.
@Suite struct RealWorldTimingTests {
    struct Shape: CustomTestStringConvertible, Sendable {
        var file: String
        /// Presented frames and audio samples the fixed file must have.
        var frames: Int
        var samples: Int64?
        var rate: Int = 48000
        var fps: Rational
        /// The video's presented length, when it is not frames / fps (held or variable frames).
        var videoSeconds: Rational?
        var testDescription: String { file }
    }

    static let shapes: [Shape] = [
        // trim=end_frame=32 at 30000/1001; atrim=end_sample=51251: 0.2 sample short of the 32nd frame's end.
        Shape(file: "ntsc-audio-early.mp4", frames: 32, samples: 51251, fps: Rational(30000, 1001)),
        // trim=end_frame=24 at 24000/1001; atrim=end_sample=44144 at 44.1 kHz: 0.1 sample short.
        Shape(file: "film-44k-audio-early.mp4", frames: 24, samples: 44144, rate: 44100, fps: Rational(24000, 1001)),
        // 1 s at 30 fps, a 1.5 s tone: cut to the video's 30 frames = 48000 samples.
        Shape(file: "negative-cts.mp4", frames: 30, samples: 48000, fps: Rational(30)),
        Shape(file: "signed-ctts-v0.mp4", frames: 30, samples: 48000, fps: Rational(30)),
        // 1 s at 30 fps and a 1 s tone, fragmented: every frame and sample kept.
        Shape(file: "fragmented.mp4", frames: 30, samples: 48000, fps: Rational(30)),
        Shape(file: "fragmented-separate-moof.mp4", frames: 30, samples: 48000, fps: Rational(30)),
        // Frames 10-54 of 90 at 30 fps dropped with their timestamps kept: 45 frames over 3 s, a 3 s tone.
        Shape(file: "held-frame.mp4", frames: 45, samples: 144000, fps: Rational(30), videoSeconds: Rational(3)),
        // 25 frames of 40 ms and 10 of 20 ms; a 1.18 s tone: cut to 34 frames, 1.18 s = 56640 samples.
        Shape(file: "vfr-end.mp4", frames: 34, samples: 56640, fps: Rational(25), videoSeconds: Rational(118, 100)),
        // 3 frames at 30 fps, 0.15 s of 24-bit 96 kHz PCM in an lpcm entry: cut to 0.1 s = 9600 samples.
        Shape(file: "lpcm-24bit-96k.mov", frames: 3, samples: 9600, rate: 96000, fps: Rational(30)),
        // FFmpeg's HLS muxer places tracks with millisecond empty edits: every frame is kept; the audio is cut
        // to the video within half a sample (its length depends on those rounded edits).
        Shape(file: "hls-fmp4.mp4", frames: 30, samples: nil, fps: Rational(30)),
        Shape(file: "cmaf-sidx.mp4", frames: 30, samples: nil, fps: Rational(30)),
        // FLV's millisecond timestamps: every frame kept, audio durations made 1024.
        Shape(file: "irregular-aac.mp4", frames: 30, samples: nil, rate: 44100, fps: Rational(30)),
    ]

    static func fix(_ source: String, to out: String) -> FileReport {
        ClipFix.fix(
            source,
            FixRequest(to: out, options: .init(), analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
    }

    @Test(arguments: shapes)
    func fixedExactly(shape: Shape) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(shape.file).path
        let report = Self.fix(Fixtures.path(shape.file), to: out)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        if shape.file.hasPrefix("fragmented") || shape.file.hasPrefix("cmaf") || shape.file.hasPrefix("hls") {
            #expect(report.fix?.plan?.notes.contains { $0.contains("one plain MP4") } == true)
        }

        // loopprep's own strict re-analysis.
        let after = try Probe.facts(path: out)
        let bad = Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }
        #expect(bad.isEmpty, "\(bad.map(\.message))")
        #expect(after.mainVideo?.frameCount == shape.frames)
        #expect(after.mainVideo?.frameRate == shape.fps)
        let video = try #require(after.mainVideo)
        let audio = try #require(after.mainAudio)
        if let samples = shape.samples { #expect(audio.sampleCount == Rational(samples)) }
        // Audio ends within half a sample of the video.
        #expect((audio.endSeconds - video.endSeconds).magnitude * Int64(shape.rate) <= Rational(1, 2))

        // ffmpeg, independently: decoded frames with the edit lists applied, and the audio's length.
        #expect(try FFmpegDecode.frames(out).count == shape.frames)
        let streams = try FFprobe.streams(out)
        let audioDuration = try #require(streams.first { $0.sample_rate != nil }?.duration.flatMap(Double.init))
        if let samples = shape.samples { #expect(abs(audioDuration * Double(shape.rate) - Double(samples)) < 0.5) }

        // Our second box reader: moov before mdat, one edit per track, and the edits' lengths.
        let top = try MiniBox.read(out)
        let types = top.map(\.type)
        #expect(types.firstIndex(of: "moov")! < types.firstIndex(of: "mdat")!)
        #expect(!types.contains("moof"))
        let moov = try #require(top.first { $0.type == "moov" })
        let movieScale = try #require(moov.child("mvhd")).timescale
        for trak in moov.all("trak") {
            let edits = try #require(trak.path("edts", "elst")).edits
            #expect(edits.count == 1 && edits[0].mediaTime >= 0)
            let handler = try #require(trak.path("mdia", "hdlr")).handler
            let seconds = Rational(edits[0].duration, Int64(movieScale))
            if handler == "vide", shape.samples != nil {
                #expect(seconds == shape.videoSeconds ?? Rational(Int64(shape.frames)) / shape.fps)
            }
            if handler == "soun", let samples = shape.samples {
                #expect(seconds == Rational(samples, Int64(shape.rate)))
            }
            if handler == "soun", shape.file == "irregular-aac.mp4" {
                // Every AAC frame 1024 samples but the last.
                let runs = try #require(trak.path("mdia", "minf", "stbl", "stts")).runs
                #expect(runs.first?.delta == 1024 && runs.dropLast().allSatisfy { $0.delta == 1024 } && runs.count <= 2)
            }
        }
    }

    /// AAC stored with durations rounded from a millisecond clock (1016/1024/1032 samples) and an edit that
    /// hides 784 of the first frame's samples: the decoder plays every frame 1024 long from the first one, and fix
    /// lays them so (the edit kept where FFmpeg's reading of the source puts it): the fixed file's audio is, sample
    /// for sample, the source's as FFmpeg decodes it, cut to the 200 frames of video (8 s = 384000 samples).
    @Test func millisecondClockAACKeepsWhatTheDecoderPlays() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("loop-ms-clock-50.mp4")
        let out = dir.appendingPathComponent("fixed.mp4").path
        let report = Self.fix(source, to: out)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let before = try FFmpegDecode.audio(source)
        let after = try FFmpegDecode.audio(out)
        let channels = 2
        #expect(after.count >= 384000 * channels)
        #expect(Array(after.prefix(384000 * channels)) == Array(before.prefix(384000 * channels)))
    }

    /// AAC priming marked by a composition offset (fixtures/make-fixtures.sh): FFmpeg's AAC of
    /// N samples (1024 of priming before them) with a ctts presenting the first frame at the second's time. The
    /// content is the N samples: analyze says the priming is signalled, fix hides exactly the first frame, and
    /// FFmpeg decodes the fixed file to the source's frames from sample 1024 on.
    @Test(arguments: [("ctts-priming.m4a", 162496, 2), ("ctts-priming-48k.m4a", 48000, 1)])
    func compositionOffsetPrimingIsHidden(file: String, samples: Int, channels: Int) throws {
        let source = Fixtures.path(file)
        let facts = try Probe.facts(path: source)
        let audio = try #require(facts.mainAudio)
        #expect(audio.priming?.samples == 1024 && audio.priming?.signalled == true)
        #expect(audio.sampleCount == Rational(Int64(samples)))
        let found = Set(Analyzer.findings(in: facts).map(\.rule))
        #expect(
            found.isDisjoint(with: [RuleID.primingNotSignalled, .startOffset, .timestampGap].map(\.rawValue)),
            "\(found)")
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(file).path
        let report = Self.fix(source, to: out)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let probed = try #require(try FFprobe.streams(out).first)
        #expect(probed.duration_ts == Int64(samples))
        let before = try FFmpegDecode.audio(source)
        let after = try FFmpegDecode.audio(out)
        let presented = samples * channels
        #expect(after.count >= presented && before.count >= 1024 * channels + presented)
        #expect(Array(after.prefix(presented)) == Array(before[(1024 * channels)..<(1024 * channels + presented)]))
    }

    /// Negative composition offsets: the copied frames are the source's, and the first one shown is the
    /// source's first (FFmpeg's mov muxer used to start 80 ms late with 2 frames lost).
    @Test(arguments: ["negative-cts.mp4", "signed-ctts-v0.mp4", "fragmented.mp4"])
    func presentsTheSourceFrames(file: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(file).path
        _ = Self.fix(Fixtures.path(file), to: out)
        let source = try FFmpegDecode.frames(Fixtures.path(file))
        let fixed = try FFmpegDecode.frames(out)
        #expect(fixed.count == 30)
        #expect(Array(source.prefix(fixed.count)) == fixed)
    }

    /// The analysis reads fragments from the index: durations from trun (FFmpeg 5.1 says 0), the stretched
    /// first AAC packet of FFmpeg's fragmenter named, and nothing refused.
    @Test func fragmentsAreReadFromTheIndex() throws {
        let facts = try Probe.facts(path: Fixtures.path("fragmented.mp4"))
        #expect(facts.fragmented == true)
        #expect(facts.mainVideo?.frameCount == 30)
        #expect(facts.mainVideo?.durationSeconds == Rational(1))
        let rules = Set(Analyzer.findings(in: facts).map(\.rule))
        #expect(rules.contains("irregular-audio-durations"))
        #expect(!rules.contains("timestamp-gap"))
    }

    /// A stored AAC duration 200 ms long is missing audio, not jitter: reported as a hole, and fix refuses
    /// rather than close it (which would move every later sample 200 ms against the video).
    @Test func aRealAudioHoleIsNotJitter() throws {
        let facts = try Probe.facts(path: Fixtures.path("audio-hole.mp4"))
        let rules = Analyzer.findings(in: facts).map(\.rule)
        #expect(rules.contains("timestamp-gap") && !rules.contains("irregular-audio-durations"))
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Self.fix(Fixtures.path("audio-hole.mp4"), to: dir.appendingPathComponent("out.mp4").path)
        #expect(report.fix?.status == .failed && report.fix?.reason?.contains("has a hole of 213.500 ms") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// iTunSMPB (priming 2112, padding 0, length 48000, as the fixture's maker wrote it over 1088 samples of
    /// silence and FFmpeg's 1024 priming): signalled priming, and fix presents exactly the tone.
    @Test func iTunesGaplessMetadataIsHonoured() throws {
        let file = "itunsmpb-2112.m4a"
        let facts = try Probe.facts(path: Fixtures.path(file))
        let audio = try #require(facts.mainAudio)
        #expect(audio.priming == PrimingFacts(samples: 2112, signalled: true, method: "iTunSMPB"))
        #expect(audio.sampleCount == Rational(48000) && audio.startSeconds.isZero)
        let rules = Analyzer.findings(in: facts).map(\.rule)
        #expect(!rules.contains("priming-not-signalled") && !rules.contains("start-offset"))

        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(file).path
        #expect(Self.fix(Fixtures.path(file), to: out).fix?.status == .fixed)
        // Our box reader: one edit skipping 2112 samples and presenting 48000.
        let moov = try #require(try MiniBox.read(out).first { $0.type == "moov" })
        let edit = try #require(moov.child("trak")?.path("edts", "elst")?.edits.first)
        #expect(edit.mediaTime == 2112 && Rational(edit.duration, Int64(moov.child("mvhd")!.timescale)) == Rational(1))
        // ffprobe: the rewritten iTunSMPB still says 2112 / 0 / 48000 (0x840, 0xBB80).
        let tags = String(
            decoding: try FFprobe.run(["-v", "error", "-show_entries", "format_tags=iTunSMPB", "-of", "csv=p=0", out]),
            as: UTF8.self)
        #expect(tags.contains(" 00000840 00000000 000000000000BB80"))
        // ffmpeg's decode starts on the tone's first sample (amplitude 1/8, 1 kHz at 48 kHz).
        let decoded = try FFmpegDecode.audio(out)
        func difference(_ shift: Int) -> Double {
            let window = 2048..<40000
            return window.reduce(0.0) {
                $0 + abs(Double(decoded[$1]) - 0.125 * sin(2 * Double.pi * 1000 * Double($1 + shift) / 48000))
            } / Double(window.count)
        }
        #expect(difference(0) < 1e-3 && difference(0) * 10 < min(difference(-1), difference(1)))
    }

    /// 24-bit PCM in an lpcm sample entry is written (FFmpeg's muxer refused it): the sample entry as it was,
    /// and the kept samples bit for bit.
    @Test func lpcmIsCopiedBitForBit() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("lpcm-24bit-96k.mov")
        let out = dir.appendingPathComponent("out.mov").path
        #expect(Self.fix(source, to: out).fix?.status == .fixed)
        let audio = try #require(try FFprobe.streams(out).first { $0.sample_rate != nil })
        #expect(audio.codec_name == "pcm_s24le" && audio.nb_frames == "9600")
        let before = try FFmpegDecode.audio(source)
        let after = try FFmpegDecode.audio(out)
        #expect(after.count == 9600 && Array(before.prefix(9600)) == after)
    }

    /// Cover art survives fix byte for byte (a PNG attached picture in covr).
    @Test func coverArtIsKept() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("cover-art.mp4").path
        let report = Self.fix(Fixtures.path("cover-art.mp4"), to: out)
        #expect(report.fix?.status == .fixed && report.fix?.plan?.notes.contains("keeps the cover art") == true)
        #expect(report.fix?.plan?.dropped.isEmpty == true)
        let streams = try FFprobe.streams(out)
        #expect(streams.map(\.codec_name) == ["h264", "aac", "png"])
        let picture = { (path: String) in try FFprobe.packetHashes(path)[2] }
        #expect(try picture(out) != nil && picture(out) == picture(Fixtures.path("cover-art.mp4")))
        #expect(try Probe.facts(path: out).mainVideo?.frameCount == 30)
    }

    /// Chapters (QuickTime chapter track and Nero chpl) and a timecode track survive fix, cut and retimed to the
    /// kept range: the fixture's chapters at 0 and 0.7 s and timecode 01:00:00:00 (30 fps), cut from 0.2 s.
    @Test func chaptersAndTimecodeAreCutAndRetimed() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("chapters-timecode.mov").path
        let report = Self.fix(Fixtures.path("chapters-timecode.mov"), to: out)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.fix?.plan?.start == Rational(1, 5) && report.fix?.plan?.others.count == 2)
        struct Chapters: Decodable {
            // swift-format-ignore: AlwaysUseLowerCamelCase
            // (ffprobe's JSON names.)
            struct C: Decodable {
                var start_time: String
                var tags: [String: String]?
            }
            var chapters: [C]
        }
        let chapters = try JSONDecoder().decode(
            Chapters.self, from: try FFprobe.run(["-v", "error", "-show_chapters", "-of", "json", out])
        ).chapters
        #expect(chapters.map(\.start_time) == ["0.000000", "0.500000"])
        #expect(chapters.map { $0.tags?["title"] } == ["One", "Two"])
        let timecode = String(
            decoding: try FFprobe.run(["-v", "error", "-show_entries", "stream_tags=timecode", "-of", "csv=p=0", out]),
            as: UTF8.self)
        #expect(timecode.contains("01:00:00:06"))
        // Our box reader: Nero chapters at 0 and 5,000,000 (100 ns units), the text track's samples 0.5 s and the rest.
        let moov = try #require(try MiniBox.read(out).first { $0.type == "moov" })
        let chpl = try #require(moov.child("udta")?.child("chpl"))
        #expect(chpl.payload[8] == 2 && chpl.u64(9) == 0 && chpl.u64(9 + 8 + 1 + 3) == 5_000_000)
        let text = try #require(moov.all("trak").first { $0.path("mdia", "hdlr")?.handler == "text" })
        let scale = Int64(try #require(text.path("mdia", "mdhd")).timescale)
        let runs = try #require(text.path("mdia", "minf", "stbl", "stts")).runs
        #expect(runs.first.map { Rational($0.delta, scale) } == Rational(1, 2))
    }

    /// The same cut through FFmpeg's muxer (`--seam-fade`: the audio encoded again), which writes its own
    /// timecode track from the video's timecode tag: the tag is the output's start, 01:00:00:06 as the index writer's
    /// sample says, not the input's 01:00:00:00, and the track's edit ends with the movie (the muxer's spans the
    /// video's media). The check holds both writers to that start.
    @Test func theMuxerPathWritesTheTimecodeOfTheCut() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("chapters-timecode.mov").path
        var options = FixOptions()
        options.seamFade = Rational(1, 100)
        let report = ClipFix.fix(
            Fixtures.path("chapters-timecode.mov"),
            FixRequest(to: out, options: options, analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        if case .remuxThenEdit = report.fix?.plan?.writer {} else { Issue.record("not FFmpeg's muxer") }
        #expect(report.fix?.plan?.start == Rational(1, 5))
        // (JSON: FFmpeg 9's CSV also lists the streams of its stream groups, a timecode reference among them.)
        struct Probed: Decodable {
            // swift-format-ignore: AlwaysUseLowerCamelCase
            // (ffprobe's JSON names.)
            struct Stream: Decodable {
                var codec_tag_string: String
                var duration: String?
                var tags: [String: String]?
            }
            struct Format: Decodable { var duration: String? }
            var streams: [Stream]
            var format: Format
        }
        let probed = try JSONDecoder().decode(
            Probed.self,
            from: try FFprobe.run([
                "-v", "error", "-show_entries", "stream=codec_tag_string,duration:stream_tags=timecode:format=duration",
                "-of", "json", out,
            ]))
        let lines = probed.streams.map { [$0.codec_tag_string, $0.duration ?? "", $0.tags?["timecode"] ?? ""] }
        // Video, audio, chapters, timecode; the movie: each 35 frames (1.166667 s) or the chapters' milliseconds.
        #expect(lines.first == ["avc1", "1.166667", "01:00:00:06"], "\(lines)")
        #expect(lines.contains(["tmcd", "1.166667", "01:00:00:06"]), "\(lines)")
        #expect(probed.format.duration == "1.166667")
    }

    /// The check holds an output to the input's timecode: one that starts elsewhere, or has none, is refused
    /// (clean.mp4, fixtures/make-fixtures.sh, has no timecode track: as the output of a writer that dropped one, it
    /// is refused where a timecode is expected, passed where none is).
    @Test func anOutputWithoutTheExpectedTimecodeIsRefused() throws {
        let path = Fixtures.path("clean.mp4")
        let facts = try Probe.facts(path: path)
        var expected = KeptMetadataExpectation(items: [], tracks: [:])
        #expect(try expected.refusal(output: path, facts: facts) == nil)
        expected.timecode = "01:00:00:06"
        let refusal = try #require(try expected.refusal(output: path, facts: facts))
        #expect(
            refusal.hasPrefix(
                "the output's timecode is missing, where the input's at the output's start is 01:00:00:06"))
    }

    @Test func irregularAACDurationsAreNamed() throws {
        let facts = try Probe.facts(path: Fixtures.path("irregular-aac.mp4"))
        let finding = try #require(Analyzer.findings(in: facts).first { $0.rule == "irregular-audio-durations" })
        #expect(finding.severity == .warning && finding.message.contains("1024 samples"))
        #expect(facts.mainVideo?.frameRate == Rational(30))
    }
}

/// fix is idempotent on every fixture: fixing its own output finds nothing to do and changes no byte.
@Suite struct FixTwiceTests {
    static let fixtures: [String] =
        (try? FileManager.default.contentsOfDirectory(atPath: Repository.fixtures.path))?
        .filter {
            ["mp4", "mov", "m4a", "webm", "mkv", "ts", "m2ts", "flv", "avi", "mpg", "ogg", "opus", "aac", "mp3"]
                .contains(($0 as NSString).pathExtension)
        }.sorted() ?? []

    @Test(arguments: fixtures)
    func fixingTheOutputChangesNothing(file: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = RealWorldTimingTests.fix(Fixtures.path(file), to: dir.appendingPathComponent("1-" + file).path)
        guard report.fix?.status == .fixed || report.fix?.status == .unchanged, let first = report.fix?.output else {
            return
        }  // refused
        let second = dir.appendingPathComponent("2-" + (first as NSString).lastPathComponent).path
        let again = RealWorldTimingTests.fix(first, to: second)
        #expect(again.fix?.status == .unchanged, "\(file): \(again.fix?.plan?.notes ?? []) \(again.fix?.reason ?? "")")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: first)) == (try Data(contentsOf: URL(fileURLWithPath: second))))
    }
}
