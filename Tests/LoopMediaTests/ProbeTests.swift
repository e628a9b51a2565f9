import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

@Suite struct ProbeTests {
    /// Each defect fixture trips its rule.
    @Test(arguments: [
        ("audio-longer.mp4", "audio-longer-than-video"),
        ("video-longer.mp4", "video-longer-than-audio"),
        ("start-offset.mp4", "start-offset"),
        ("priming-not-signalled.mp4", "priming-not-signalled"),
        ("not-keyframe-start.mp4", "first-frame-not-keyframe"),
        ("audio-hole.mp4", "timestamp-gap"),
        ("moov-at-end.mp4", "moov-at-end"),
        ("too-short.mp4", "too-short-to-loop"),
        ("vp9-opus.webm", "not-playable-on-target"),
        ("seam-click.mp4", "seam-audio-click"),
        ("seam-jump.mp4", "seam-visual-jump"),
        ("rotated.mp4", "rotation"),
        ("empty-track.webm", "empty-track"),
        ("movie-duration-wrong.mp4", "movie-duration-mismatch"),
    ])
    func defectFixtureTripsItsRule(file: String, rule: String) {
        let report = ClipAnalysis.report(path: Fixtures.path(file), options: .init())
        #expect(report.error == nil)
        #expect(report.findings.map(\.rule).contains(rule), "\(file): \(report.findings.map(\.rule))")
    }

    /// Clean clips (29.97 fps, 44.1 kHz, HEVC, ProRes + PCM in MOV, 5.1, rotated, video-only, audio-only) have
    /// no error or warning.
    @Test(arguments: [
        "clean.mp4", "clean-2997.mp4", "clean-44k.mp4", "hevc.mp4", "prores-pcm.mov", "surround-51.mp4",
        "rotated.mp4", "video-only.mp4", "audio-only.m4a",
    ])
    func cleanFixtureHasNoErrorOrWarning(file: String) {
        let report = ClipAnalysis.report(path: Fixtures.path(file), options: .init())
        #expect(report.error == nil)
        #expect(report.findings.filter { $0.severity != .info }.isEmpty, "\(file): \(report.findings.map(\.message))")
    }

    @Test func webmIsPlayableOnTheWebTarget() {
        let report = ClipAnalysis.report(path: Fixtures.path("vp9-opus.webm"), options: .init(target: .web))
        #expect(!report.findings.map(\.rule).contains("not-playable-on-target"))
        #expect(report.facts?.container == .webm)
        // FFmpeg's WebM muxer starts the video 7 ms late to make room for Opus's codec delay: a true, small offset.
        #expect(report.facts?.mainVideo?.startSeconds == Rational(7, 1000))
        #expect(report.facts?.mainAudio?.priming == PrimingFacts(samples: 312, signalled: true, method: "codec header"))
    }

    @Test(arguments: [
        ("zero-bytes.mp4", "empty file (0 bytes)"),
        ("text.mp4", "not a video or audio file FFmpeg recognises"),
        ("truncated.mp4", "truncated"),
        ("no-such-file.mp4", "no such file"),
    ])
    func unreadableInputIsOneClearError(file: String, reason: String) {
        let report = ClipAnalysis.report(path: Fixtures.path(file), options: .init())
        #expect(report.findings.map(\.rule) == ["unreadable"])
        #expect(report.error?.contains(reason) == true, "\(report.error ?? "nil")")
        #expect(report.error?.contains("\n") == false)
    }

    /// A montage: moov-at-end.mp4's video (30 frames, 1 s at 30 fps) given two edits by box surgery,
    /// frames 0-14 (0.5 s from the first) then 20-29 (1/3 s from the 21st): 25 frames presented, as FFmpeg
    /// counts them too. The moov is the file's last box, so growing it moves no sample.
    @Test func aMontageReportsThePresentedFrames() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("montage.mp4").path
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("moov-at-end.mp4"))))
        let boxes = try MiniBox.read(Fixtures.path("moov-at-end.mp4"))
        let moov = try #require(boxes.last)
        #expect(moov.type == "moov")
        let ts = Int64(try #require(moov.child("mvhd")).u32(12))
        let trak = try #require(
            moov.all("trak").first { $0.path("mdia", "hdlr")?.payload[8..<12] == [0x76, 0x69, 0x64, 0x65] })
        let mediaScale = Int64(try #require(trak.path("mdia", "mdhd")).u32(12))
        let edts = try #require(trak.child("edts"))
        let elst = try #require(edts.child("elst"))
        func u32(_ v: Int64) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * Int64($0))) } }
        // From the first presented frame (the original edit's media time, past the B-frame delay).
        let base = Int64(elst.u32(12))
        let entries: [(duration: Int64, media: Int64)] = [(ts / 2, base), (ts / 3, base + 20 * mediaScale / 30)]
        let payload = [0, 0, 0, 0] + u32(2) + entries.flatMap { u32($0.duration) + u32($0.media) + u32(0x10000) }
        let grow = 8 + payload.count - (8 + elst.payload.count)
        bytes.replaceSubrange(
            elst.offset..<(elst.offset + 8 + elst.payload.count),
            with: u32(Int64(8 + payload.count)) + Array("elst".utf8) + payload)
        for box in [edts, trak, moov] {
            let size = Int64(MiniBox.u32(bytes, box.offset)) + Int64(grow)
            bytes.replaceSubrange(box.offset..<(box.offset + 4), with: u32(size))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let facts = try Probe.facts(path: path)
        let video = try #require(facts.mainVideo)
        #expect(video.frameCount == 25)
        // In the movie's timescale (FFmpeg's 1000): 500 + 333 ticks; the 25th frame is shown for 33 of its 33.3 ms.
        #expect(video.durationSeconds == Rational(ts / 2 + ts / 3, ts))
        // FFmpeg's own reading: the samples its demuxer does not discard.
        #expect(try FFmpegReading.read(path).tracks.first { $0.kind == .video }?.frames == 25)
    }

    @Test func exactFactsOfTheNtscClip() throws {
        let facts = try Probe.facts(path: Fixtures.path("clean-2997.mp4"))
        let video = try #require(facts.mainVideo)
        let audio = try #require(facts.mainAudio)
        #expect(video.frameRate == Rational(30000, 1001))
        #expect(video.frameCount == 30)
        #expect(video.durationSeconds == Rational(1001, 1000))
        #expect(audio.sampleCount == Rational(48048))
        #expect(audio.priming == PrimingFacts(samples: 1024, signalled: true, method: "edit list"))
        #expect(facts.moovBeforeMdat == true)
        #expect(video.profile == "High")
        // Declared tracks that all present something: no empty track, and nil in the facts (not an empty list).
        #expect(facts.emptyTracks == nil)
    }

    @Test func channelsRotationAndCodecs() throws {
        #expect(try Probe.facts(path: Fixtures.path("surround-51.mp4")).mainAudio?.channels == 6)
        #expect(try Probe.facts(path: Fixtures.path("rotated.mp4")).mainVideo?.rotation == 270)
        #expect(try Probe.facts(path: Fixtures.path("hevc.mp4")).mainVideo?.codec == "hevc")
        let mov = try Probe.facts(path: Fixtures.path("prores-pcm.mov"))
        #expect(mov.container == .mov)
        #expect(mov.tracks.map(\.codec) == ["prores", "pcm_s16le"])
        #expect(try Probe.facts(path: Fixtures.path("clean-44k.mp4")).mainAudio?.sampleRate == 44100)
    }

    /// Our index reader against ffprobe's demuxer: start and duration of every stream, after edit lists.
    @Test(arguments: [
        "clean.mp4", "clean-2997.mp4", "clean-44k.mp4", "hevc.mp4", "prores-pcm.mov", "audio-longer.mp4",
        "video-longer.mp4", "start-offset.mp4", "not-keyframe-start.mp4", "held-frame.mp4", "vfr-end.mp4",
        "too-short.mp4",
    ])
    func factsAgreeWithFFprobe(file: String) throws {
        let ours = try Probe.facts(path: Fixtures.path(file))
        let theirs = try FFprobe.streams(Fixtures.path(file))
        for track in ours.tracks {
            let stream = try #require(theirs.first { $0.index == track.index })
            let start = try #require(stream.start_time.flatMap(Double.init))
            let duration = try #require(stream.duration.flatMap(Double.init))
            // ffprobe prints microseconds; our values are exact.
            #expect(abs(track.startSeconds.doubleValue - start) < 0.000_002, "\(file) track \(track.index) start")
            #expect(
                abs(track.durationSeconds.doubleValue - duration) < 0.000_002, "\(file) track \(track.index) duration")
            // Our entries are the demuxer's packets (MOV PCM is grouped as FFmpeg groups it).
            #expect(
                stream.nb_read_packets.flatMap(Int.init) == track.packetCount, "\(file) track \(track.index) packets")
        }
    }

    /// A portrait clip's seam strip is drawn as it is displayed: rotated.mp4 is coded 160x90
    /// with a display matrix turning it 90 degrees counter-clockwise (270 clockwise), so its tiles are 160 wide
    /// and 160 x 160 / 90 = 284 (even) tall, SMPTE bars' right end (blue) on top and their left (grey) below.
    @Test func aRotatedClipsTilesAreDrawnAsDisplayed() throws {
        let probe = try Probe.probe(Fixtures.path("rotated.mp4"))
        let input = try #require(probe.input)
        let shot = try #require(try SeamProbe.measure(input, facts: probe.facts, capture: true).capture)
        let tile = try #require(shot.firstFrames.first)
        #expect(tile.width == 160 && tile.height == 284)
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let i = 3 * (y * tile.width + x)
            return (Int(tile.pixels[i]), Int(tile.pixels[i + 1]), Int(tile.pixels[i + 2]))
        }
        let top = pixel(40, 10)
        let bottom = pixel(40, 270)
        #expect(top.2 > 150 && top.0 < 60 && top.1 < 60, "\(top)")
        #expect(bottom.0 > 150 && bottom.1 > 150 && bottom.2 > 150, "\(bottom)")
    }

    /// Turning a picture: a 3x2 image whose pixels are numbered, each way a display matrix turns.
    @Test func rotationMovesEveryPixel() {
        var image = RGBImage(width: 3, height: 2)
        for k in 0..<6 { image.pixels[3 * k] = UInt8(k) }
        func reds(_ i: RGBImage) -> [UInt8] { stride(from: 0, to: i.pixels.count, by: 3).map { i.pixels[$0] } }
        // 0 1 2 / 3 4 5 turned clockwise: 3 0 / 4 1 / 5 2.
        let cw = image.rotated(clockwise: 90)
        #expect(cw.width == 2 && cw.height == 3 && reds(cw) == [3, 0, 4, 1, 5, 2])
        #expect(reds(image.rotated(clockwise: 180)) == [5, 4, 3, 2, 1, 0])
        #expect(reds(image.rotated(clockwise: 270)) == [2, 5, 1, 4, 0, 3])
        #expect(image.rotated(clockwise: 0) == image)
    }

    @Test func seamMeasuresSeparateCleanFromJumpy() throws {
        func seam(_ file: String) throws -> SeamFacts {
            let probe = try Probe.probe(Fixtures.path(file))
            return try SeamProbe.measure(try #require(probe.input), facts: probe.facts)
        }
        let clean = try seam("clean.mp4")
        let click = try seam("seam-click.mp4")
        let jump = try seam("seam-jump.mp4")
        #expect((clean.audioJump?.max() ?? 1) < 0.02)
        #expect((click.audioJump?.max() ?? 0) > 0.08)
        #expect((clean.videoDifference ?? 99) < 3)
        #expect((jump.videoDifference ?? 0) > 10)
        // Channels and track kinds come through whatever the layout.
        #expect(try seam("surround-51.mp4").audioJump?.count == 6)
        #expect(try seam("video-only.mp4").audioJump == nil)
        #expect(try seam("audio-only.m4a").videoDifference == nil)
        #expect((try seam("vp9-opus.webm").audioJump?.max() ?? 1) < 0.02)
    }

    @Test func seamOffReadsNoFrames() {
        let report = ClipAnalysis.report(path: Fixtures.path("seam-click.mp4"), options: .init(seamChecks: false))
        #expect(report.facts?.seam == nil)
        #expect(!report.findings.map(\.rule).contains("seam-audio-click"))
    }
}

/// The check that holds a muxer's output to what the plan keeps beside the tracks (CarriedCheck): an output made
/// without the input's cover, font and chapters (FFmpeg's stream copy of the tracks alone) is refused, naming each;
/// fix's own output passes.
@Suite struct CarriedCheckTests {
    @Test func anOutputWithoutThemIsRefused() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.path("mkv-attachments.mkv")
        let source = try Probe.probe(input, keepInput: false, locations: true)
        let plan = try FixPlanner.plan(source.facts, timelines: source.timelines)
        let bare = dir.appendingPathComponent("bare.mkv").path
        _ = try Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "ffmpeg", "-v", "error", "-i", input, "-map", "0:0", "-map", "0:1", "-c", "copy", "-map_chapters", "-1",
                bare,
            ])
        let said = try #require(
            try CarriedCheck.refusal(plan, input: source.facts, source: input, output: bare, container: .matroska))
        #expect(said.contains("the attached file font.ttf"), "\(said)")
        #expect(said.contains("the attached picture cover.png"), "\(said)")
        #expect(said.contains("2 chapters (it has 0)"), "\(said)")

        let report = ClipFix.fix(
            input,
            FixRequest(
                to: dir.appendingPathComponent("fixed.mkv").path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let fixed = dir.appendingPathComponent("fixed.mkv").path
        #expect(
            try CarriedCheck.refusal(plan, input: source.facts, source: input, output: fixed, container: .matroska)
                == nil)
    }

    /// The SubRip track the plan keeps (fixtures/make-robust.sh's subs-srt.mkv), left out by FFmpeg's copy of the
    /// picture and sound alone: refused, naming it.
    @Test func anOutputWithoutItsSubtitlesIsRefused() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.path("subs-srt.mkv")
        let source = try Probe.probe(input, keepInput: false, locations: true)
        let plan = try FixPlanner.plan(source.facts, timelines: source.timelines)
        #expect(plan.others.map(\.kind) == [.subtitle])
        let bare = dir.appendingPathComponent("bare.mkv").path
        _ = try Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "ffmpeg", "-v", "error", "-i", input, "-map", "0:v", "-map", "0:a",
                "-c", "copy", bare,
            ])
        let said = try CarriedCheck.refusal(
            plan, input: source.facts, source: input, output: bare, container: .matroska)
        #expect(said?.contains("1 subtitle track (it has 0)") == true, "\(said ?? "nil")")
    }
}

/// Audio encoded again plays as its input did (AudioFormatCheck): the recipe's 24-bit 48 kHz mono FLAC
/// (fixtures/make-metadata.sh, 9) written again at 16 bits, or in stereo, by FFmpeg's own tool is refused, naming
/// both formats; fix's own --seam-fade output (encoded again) passes.
@Suite struct AudioFormatCheckTests {
    @Test(arguments: [
        (["-sample_fmt", "s16"], "48000 Hz, 1 channel, 16-bit"), (["-ac", "2"], "48000 Hz, 2 channels, 24-bit"),
    ])
    func anotherFormatIsRefused(_ encode: [String], said: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.path("tone-24bit.flac")
        let source = try Probe.probe(input, keepInput: false, locations: true)
        var options = FixOptions()
        options.seamFade = Rational(1, 100)
        let plan = try FixPlanner.plan(source.facts, timelines: source.timelines, options: options)
        let other = dir.appendingPathComponent("other.flac").path
        _ = try Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["ffmpeg", "-v", "error", "-i", input, "-c:a", "flac", "-bits_per_raw_sample", "24"] + encode + [other])
        let refusal = try AudioFormatCheck.refusal(plan, source: input, output: other)
        #expect(refusal?.contains("plays as \(said) where the input's plays as 48000 Hz, 1 channel, 24-bit") == true)

        let fixed = dir.appendingPathComponent("fixed.flac").path
        let report = ClipFix.fix(
            input,
            FixRequest(to: fixed, options: options, analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(try AudioFormatCheck.refusal(plan, source: input, output: fixed) == nil)
    }
}
