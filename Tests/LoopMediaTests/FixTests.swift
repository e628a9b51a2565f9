import Foundation
import LoopAnalysis
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

@Suite struct FixTests {
    static let defective = [
        "audio-longer.mp4", "video-longer.mp4", "start-offset.mp4", "priming-not-signalled.mp4",
        "not-keyframe-start.mp4", "moov-at-end.mp4", "movie-duration-wrong.mp4",
    ]

    static func fix(_ file: String, into dir: URL, dryRun: Bool = false) -> FileReport {
        ClipFix.fix(
            Fixtures.path(file),
            FixRequest(
                to: dir.appendingPathComponent(file).path, options: .init(), analysis: .init(seamChecks: false),
                dryRun: dryRun, temporaries: TemporaryFiles()))
    }

    /// Every fixture with a length, start, priming, keyframe or moov defect comes out clean, by our probe and by
    /// ffprobe (per-stream start 0 and equal end times, with edit lists applied).
    @Test(arguments: defective)
    func defectiveFixtureComesOutClean(file: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Self.fix(file, into: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let out = dir.appendingPathComponent(file).path
        let after = try Probe.facts(path: out)
        let bad = Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }
        #expect(bad.isEmpty, "\(bad.map(\.message))")
        #expect(after.moovBeforeMdat == true)

        let streams = try FFprobe.streams(out)
        let starts = streams.compactMap { $0.start_time.flatMap(Double.init) }
        let ends = streams.compactMap { s in
            s.start_time.flatMap(Double.init).flatMap { st in s.duration.flatMap(Double.init).map { st + $0 } }
        }
        #expect(starts.allSatisfy { $0 == 0 })
        let rate = Double(streams.compactMap { $0.sample_rate.flatMap(Int.init) }.max() ?? 48000)
        #expect((ends.max()! - ends.min()!) <= 0.5 / rate + 0.000_001, "\(file): ends \(ends)")
    }

    /// Lossless: every copied packet is byte-identical to the source's (a contiguous run of them per stream).
    @Test(arguments: defective)
    func copiedPacketsAreByteIdentical(file: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = Self.fix(file, into: dir)
        let source = try FFprobe.packetHashes(Fixtures.path(file))
        let output = try FFprobe.packetHashes(dir.appendingPathComponent(file).path)
        for (stream, hashes) in output {
            let original = try #require(source[stream])
            let found = (0...(original.count - hashes.count)).contains {
                Array(original[$0..<$0 + hashes.count]) == hashes
            }
            #expect(found, "\(file) stream \(stream): output packets are not a run of the source's")
        }
    }

    /// FFmpeg's muxer without an edit list holds the first frame for the priming on the video's clock
    /// (priming-not-signalled.mp4, fixtures/make-fixtures.sh: 1 s of 30 fps bars over 1 s of tone at 48 kHz; frame 0
    /// lasts 840 ticks of 15360, its content from 328, where the 1024 samples of priming end at 327.68). The
    /// starts are under one video tick apart: the sound moves onto the picture's tick, and all 30 frames and 48000
    /// samples are kept (cut at the tick, the sound lost its first sample and the picture its last frame).
    @Test func aStartUnderOneVideoTickKeepsEveryFrame() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Self.fix("priming-not-signalled.mp4", into: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let audio = try #require(report.fix?.plan?.tracks.first { $0.kind == .audio })
        #expect(audio.shift == -Rational(8, 384000))
        let out = dir.appendingPathComponent("priming-not-signalled.mp4").path
        let read = try FFmpegReading.read(out)
        #expect(read.tracks.map(\.frames) == [30, nil] && read.tracks.last?.samples == 48000, "\(read.tracks)")
    }

    @Test func exactFiguresOfAnAudioTrim() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Self.fix("audio-longer.mp4", into: dir)
        let audio = try #require(report.fix?.plan?.tracks.first { $0.kind == .audio })
        #expect(audio.trimmedTail == Rational(1, 2))
        #expect(audio.duration * 48000 == Rational(48000))
        let after = try Probe.facts(path: dir.appendingPathComponent("audio-longer.mp4").path)
        #expect(after.mainAudio?.sampleCount == Rational(48000))
        #expect(after.mainVideo?.frameCount == 30)
        #expect(after.mainAudio?.priming?.samples == 1024)
    }

    /// Uncompressed audio is cut in its bytes: exactly the video's length is stored (no tail for an edit list to
    /// hide), and every kept frame is the source's, bit for bit. An hour of it is 170,000 index entries, as FFmpeg
    /// packs it, not 170 million.
    @Test func pcmIsCutToTheFrame() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("pcm.mov").path
        let out = dir.appendingPathComponent("out.mov").path
        let made = try Tool.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=15:duration=1",
                "-f", "lavfi", "-i", "sine=r=48000:duration=1.3", "-c:v", "libx264", "-g", "15",
                "-c:a", "pcm_s16le", source,
            ])
        #expect(made.status == 0)
        let report = ClipFix.fix(
            source,
            FixRequest(to: out, options: .init(), analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let audio = try #require(try FFprobe.streams(out).first { $0.codec_name == "pcm_s16le" })
        #expect(audio.nb_frames == "48000")
        #expect(audio.duration == "1.000000")
        let before = try FFmpegDecode.audio(source)
        let after = try FFmpegDecode.audio(out)
        #expect(after.count == 48000)
        #expect(Array(before.prefix(48000)) == after)
        let facts = try Probe.facts(path: source)
        let demuxed = try FFprobe.streams(source).first { $0.codec_name == "pcm_s16le" }?.nb_read_packets.flatMap(
            Int.init)
        #expect(facts.mainAudio?.packetCount == demuxed && (demuxed ?? 0) < 100)
    }

    @Test func idempotentAndDeterministic() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for file in ["start-offset.mp4", "moov-at-end.mp4", "clean-44k.mp4"] {
            let first = dir.appendingPathComponent("a-" + file).path
            let second = dir.appendingPathComponent("b-" + file).path
            let again = dir.appendingPathComponent("c-" + file).path
            let t = TemporaryFiles()
            _ = ClipFix.fix(
                Fixtures.path(file),
                FixRequest(to: first, options: .init(), analysis: .init(seamChecks: false), temporaries: t))
            _ = ClipFix.fix(
                Fixtures.path(file),
                FixRequest(to: second, options: .init(), analysis: .init(seamChecks: false), temporaries: t))
            let refix = ClipFix.fix(
                first, FixRequest(to: again, options: .init(), analysis: .init(seamChecks: false), temporaries: t))
            let a = try Data(contentsOf: URL(fileURLWithPath: first))
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: second))), "\(file): two runs differ")
            #expect(refix.fix?.status == .unchanged, "\(file): fixing the output is not a no-op")
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: again))), "\(file): fixing the output changed it")
        }
    }

    @Test func cleanInputIsCopiedByteForByte() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Self.fix("clean.mp4", into: dir)
        #expect(report.fix?.status == .unchanged)
        #expect(
            try Data(contentsOf: dir.appendingPathComponent("clean.mp4"))
                == (try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("clean.mp4")))))
    }

    @Test func dryRunWritesNothing() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Self.fix("audio-longer.mp4", into: dir, dryRun: true)
        #expect(report.fix?.status == .planned)
        #expect(report.fix?.plan?.tracks.count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func unfixableGapIsRefusedAndLeavesNothing() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Self.fix("audio-hole.mp4", into: dir)
        #expect(report.fix?.status == .failed)
        // (The plan's refusal, before anything is written: 213.5 ms missing at 0.64 s.)
        #expect(report.fix?.refusal?.cause == .plan)
        #expect(report.fix?.reason?.contains("has a hole of 213.500 ms at 0.640 s") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func rotationAndMetadataSurvive() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Force a real remux of the rotated clip: copy it with moov at the end first.
        let moved = dir.appendingPathComponent("rotated-end.mp4").path
        _ = try FFprobe.run(["-version"])
        let ff = Process()
        ff.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ff.arguments = [
            "ffmpeg", "-nostdin", "-v", "error", "-i", Fixtures.path("rotated.mp4"), "-c", "copy", "-metadata:s:a",
            "language=fra", moved,
        ]
        try ff.run()
        ff.waitUntilExit()
        let out = dir.appendingPathComponent("out.mp4").path
        let report = ClipFix.fix(
            moved,
            FixRequest(to: out, options: .init(), analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed)
        let after = try Probe.facts(path: out)
        #expect(after.mainVideo?.rotation == 270)
        #expect(after.mainAudio?.language == "fra")
    }
}

@Suite struct FixContentTests {
    /// A/V placement: the output presents the source's own samples and frames from the planned start, so no
    /// track moved against another. (Equal lengths alone would not show a track cut 78 ms off.)
    @Test(arguments: FixTests.defective)
    func outputPresentsTheSourceFromThePlannedStart(file: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = FixTests.fix(file, into: dir)
        let plan = try #require(report.fix?.plan)
        let out = dir.appendingPathComponent(file).path

        let source = try FFmpegDecode.audio(Fixtures.path(file))
        let fixed = try FFmpegDecode.audio(out)
        // ffmpeg's decoded audio begins at the audio track's own presented start.
        let audio = try #require(plan.tracks.first { $0.kind == .audio })
        let offset = Int((audio.trimmedHead * 48000).rounded)
        // Skip the first two AAC frames (pre-roll) and the last. FFmpeg's AAC decoder carries a noise-substitution
        // random state across frames, so identical packets decode equal only to ~1e-4 after a different start:
        // compare the mean difference at the planned offset with one sample either side.
        let window = 2048..<(fixed.count - 1024)
        #expect(!window.isEmpty)
        func meanDifference(_ shift: Int) -> Double {
            let pairs = window.filter { $0 + offset + shift < source.count && $0 + offset + shift >= 0 }
            return pairs.reduce(0.0) { $0 + Double(abs(fixed[$1] - source[$1 + offset + shift])) }
                / Double(max(pairs.count, 1))
        }
        let exact = meanDifference(0)
        let neighbour = min(meanDifference(-1), meanDifference(1))
        #expect(
            exact < 1e-4 && exact * 10 < neighbour,
            """
            \(file): audio is not the source's from sample \(offset) (mean difference \(exact), one sample off \
            \(neighbour))
            """
        )

        let sourceFrames = try FFmpegDecode.frames(Fixtures.path(file))
        let fixedFrames = try FFmpegDecode.frames(out)
        let video = try #require(plan.tracks.first { $0.kind == .video })
        let first = ((plan.start - video.startBefore) * (video.frameRate ?? .one)).floor
        #expect(fixedFrames.count == ((video.duration * (video.frameRate ?? .one)).rounded))
        #expect(
            Array(sourceFrames.dropFirst(Int(first)).prefix(fixedFrames.count)) == fixedFrames, "\(file): frames differ"
        )
    }
}
