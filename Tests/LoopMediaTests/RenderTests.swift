import Foundation
import LoopAnalysis
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// fix options that re-encode audio: --unroll, --loops, --seam-fade. Video stays stream-copied.
@Suite struct RenderTests {
    static func fix(_ file: String, _ options: FixOptions, into dir: URL, name: String? = nil) -> (FileReport, String) {
        let out = dir.appendingPathComponent(name ?? file).path
        let report = ClipFix.fix(
            Fixtures.path(file),
            FixRequest(to: out, options: options, analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        return (report, out)
    }

    @Test func unrollRepeatsTheVideoPacketsAndJoinsAudioExactly() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = Self.fix("too-short.mp4", FixOptions(unrollTo: Rational(1)), into: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.fix?.plan?.repeats == 2)
        let after = try Probe.facts(path: out)
        #expect(after.mainVideo?.frameCount == 30)
        #expect(after.mainVideo?.durationSeconds == Rational(1))
        #expect(after.mainAudio?.sampleCount == Rational(48000))
        #expect(!Analyzer.findings(in: after).map(\.rule).contains("too-short-to-loop"))
        // The video is the source's packets, twice, byte for byte.
        let source = try FFprobe.packetHashes(Fixtures.path("too-short.mp4"))[0]!
        #expect(try FFprobe.packetHashes(out)[0] == source + source)
        // Every copy of the audio is the source's presented audio (to the AAC coder's precision).
        // (FFmpeg's AAC decoder emits whole 1024-sample frames past the end; the container's count is above.)
        let original = try FFmpegDecode.audio(Fixtures.path("too-short.mp4"))
        let unrolled = try FFmpegDecode.audio(out)
        #expect(unrolled.count >= 48000)
        let second = (0..<24000).map { abs(unrolled[24000 + $0] - original[$0]) }
        #expect(second.reduce(0, +) / Float(second.count) < 0.01)
    }

    @Test func loopsGivesTheCountAndStaysDeterministic() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, outA) = Self.fix("clean.mp4", FixOptions(loops: 3), into: dir, name: "a.mp4")
        let (_, outB) = Self.fix("clean.mp4", FixOptions(loops: 3), into: dir, name: "b.mp4")
        #expect(a.fix?.status == .fixed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: outA)) == (try Data(contentsOf: URL(fileURLWithPath: outB))))
        let after = try Probe.facts(path: outA)
        #expect(after.mainVideo?.frameCount == 90)
        #expect(after.mainAudio?.sampleCount == Rational(144000))
        #expect(Analyzer.findings(in: after).filter { $0.severity != .info }.isEmpty)
        // Fixing the unrolled file again changes nothing.
        let again = ClipFix.fix(
            outA,
            FixRequest(
                to: dir.appendingPathComponent("c.mp4").path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(again.fix?.status == .unchanged)
    }

    @Test func seamFadeRemovesTheClickAndLeavesVideoAlone() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = Self.fix("seam-click.mp4", FixOptions(seamFade: Rational(10, 1000)), into: dir)
        #expect(report.fix?.status == .fixed)
        let analysis = ClipAnalysis.report(path: out, options: .init())
        #expect(!analysis.findings.map(\.rule).contains("seam-audio-click"), "\(analysis.findings.map(\.message))")
        #expect(try FFprobe.packetHashes(out)[0] == (try FFprobe.packetHashes(Fixtures.path("seam-click.mp4"))[0]))
        #expect(try Probe.facts(path: out).mainAudio?.sampleCount == Rational(48000))
        let audio = try FFmpegDecode.audio(out)
        #expect(abs(audio[0]) < 0.01 && abs(audio[47999]) < 0.01)
        // Away from the seam the audio is the source's.
        let source = try FFmpegDecode.audio(Fixtures.path("seam-click.mp4"))
        // A second AAC generation at 48 kb/s differs by ~0.003 on this 0.125 tone; a misplaced copy by ~0.08.
        let middle = (2048..<40000).map { abs(audio[$0] - source[$0]) }
        #expect(middle.reduce(0, +) / Float(middle.count) < 0.01)
    }

    @Test func fadeLongerThanHalfTheClipIsRefused() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, _) = Self.fix("too-short.mp4", FixOptions(seamFade: Rational(3, 10)), into: dir)
        #expect(report.fix?.status == .failed)
        #expect(report.fix?.reason?.contains("--seam-fade") == true)
    }
}

@Suite struct ReencodeHeadTests {
    @Test func keepsTheLeadingFramesAndCopiesTheRest() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = RenderTests.fix("not-keyframe-start.mp4", FixOptions(reencodeHead: true), into: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.fix?.plan?.tracks.first?.head?.frames == 15)
        let after = try Probe.facts(path: out)
        #expect(after.mainVideo?.frameCount == 60)
        #expect(after.mainVideo?.durationSeconds == Rational(2))
        #expect(after.mainVideo?.firstFrameIsKeyframe == true)
        #expect(try FFmpegDecode.errors(out) == "")
        // The copied GOPs are the source's packets, byte for byte, and decode to the source's pixels.
        let source = try FFprobe.packetHashes(Fixtures.path("not-keyframe-start.mp4"))[0]!
        let output = try FFprobe.packetHashes(out)[0]!
        #expect(Array(output.dropFirst(15)) == Array(source.dropFirst(30)))
        let sourceFrames = try FFmpegDecode.frames(Fixtures.path("not-keyframe-start.mp4"))
        let outputFrames = try FFmpegDecode.frames(out)
        #expect(outputFrames.count == 60)
        #expect(Array(outputFrames.dropFirst(15)) == Array(sourceFrames.dropFirst(15)))
        // The re-encoded frames look like the source's.
        #expect(try FFmpegDecode.psnr(out, Fixtures.path("not-keyframe-start.mp4"), frames: 15) > 35)
        // And fixing the output again changes nothing.
        let again = ClipFix.fix(
            out,
            FixRequest(
                to: dir.appendingPathComponent("again.mp4").path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(again.fix?.status == .unchanged)
    }

    @Test func bFrameSourceKeepsDecodeOrder() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = RenderTests.fix("start-offset.mp4", FixOptions(reencodeHead: true), into: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let after = try Probe.facts(path: out)
        #expect(after.mainVideo?.frameCount == 38)
        #expect(Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }.isEmpty)
        #expect(try FFmpegDecode.errors(out) == "")
    }

    /// A codec loopprep cannot encode (MPEG-4 part 2, HEVC): --reencode-head cannot keep the frames
    /// before the first keyframe, so the start is planned on the next keyframe without re-encoding, and the plan
    /// says why. Cut at 0.2 s (frame 6) with keyframes every 10 frames: it starts at frame 10, 20 frames shown.
    @Test func otherCodecsStartOnTheNextKeyframe() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // HEVC with keyframes every 10 frames, cut at 0.2 s by stream copy: a start inside a GOP.
        let gop = dir.appendingPathComponent("hevc-gop.mp4").path
        let cut = dir.appendingPathComponent("hevc-cut.mp4").path
        for args in [
            [
                "-f", "lavfi", "-i", "smptebars=size=160x90:rate=30:duration=1", "-c:v", "libx265", "-preset",
                "ultrafast",
                "-x265-params", "log-level=none:keyint=10:min-keyint=10", "-tag:v", "hvc1", gop,
            ],
            ["-ss", "0.2", "-i", gop, "-c", "copy", cut],
        ] {
            let ff = Process()
            ff.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            ff.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y"] + args
            try ff.run()
            ff.waitUntilExit()
        }
        let report = ClipFix.fix(
            cut,
            FixRequest(
                to: dir.appendingPathComponent("out.mp4").path, options: FixOptions(reencodeHead: true),
                analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(report.fix?.plan?.tracks.first?.head == nil)
        #expect(report.fix?.plan?.tracks.first?.presentedFrames == 20)
        #expect(
            report.fix?.plan?.notes.contains { $0.contains("loopprep re-encodes only H.264, and copies hevc") } == true)
        #expect(try FFmpegDecode.frames(dir.appendingPathComponent("out.mp4").path).count == 20)
    }
}

@Suite struct TargetWebTests {
    /// Video packets as a player that ignores edit lists sees them (ffprobe -ignore_editlist 1).
    static func rawVideo(_ path: String) throws -> [Int64] {
        let data = try FFprobe.run([
            "-v", "error", "-ignore_editlist", "1", "-select_streams", "v", "-show_entries", "packet=pts",
            "-of", "csv=p=0", path,
        ])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Int64($0) }
    }

    @Test func bakesTheVideoTrimsIntoTheMedia() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // B-frames, and audio that ends inside a mini-GOP: frames after the cut are references of frames before it.
        let source = dir.appendingPathComponent("bframes.mp4").path
        let ff = Process()
        ff.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ff.arguments = [
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30:duration=2",
            "-f", "lavfi", "-i", "sine=duration=1.05", "-c:v", "libx264", "-preset", "veryfast",
            "-x264-params", "keyint=60:bframes=3:b-pyramid=normal:b-adapt=0", "-pix_fmt", "yuv420p", "-c:a", "aac",
            source,
        ]
        try ff.run()
        ff.waitUntilExit()
        let out = dir.appendingPathComponent("web.mp4").path
        let report = ClipFix.fix(
            source,
            FixRequest(
                to: out, options: FixOptions(bakeVideo: true), analysis: .init(target: .web, seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let video = try #require(report.fix?.plan?.tracks.first { $0.kind == .video })
        #expect(video.tail != nil)
        let raw = try Self.rawVideo(out)
        let end = (video.duration / video.timeBase).rounded
        #expect(raw.min() == 0)
        #expect(raw.allSatisfy { $0 < end })
        #expect(raw.count == Int((video.duration * 30).rounded))
        #expect(try FFmpegDecode.errors(out) == "")
        let after = try Probe.facts(path: out)
        #expect(Analyzer.findings(in: after).filter { OutputCheck.mustBeClean.contains($0.rule) }.isEmpty)
    }

    /// A first frame a muxer held for the priming (priming-not-signalled.mp4, fixtures/make-fixtures.sh: 30 frames
    /// at 30 fps with no B-frames, FFmpeg's muxer gave frame 0 840 ticks of 15360, its content from 328) is decoded
    /// at the time the cut gives it: each frame a run decodes comes at its own presented time, so a transition
    /// blends the frames it planned (each was the next one, frame 0 skipped as too early).
    @Test func aHeldFirstFrameIsDecodedAtItsCutTime() throws {
        let path = Fixtures.path("priming-not-signalled.mp4")
        let probe = try Probe.probe(path, keepInput: false, locations: true)
        let plan = try FixPlanner.plan(probe.facts, timelines: probe.timelines, options: FixOptions())
        let cut = try #require(plan.tracks.first { $0.kind == .video })
        #expect(cut.retimedFirstPts == 328)
        let source = try FrameSource(path: path, window: PacketWindow(cut), timelines: probe.timelines)
        var times: [Int64] = []
        while let frame = try source.next() { times.append(frame.pts ?? -1) }
        let expected: [Int64] = [328] + (0..<29).map { (k: Int64) -> Int64 in 840 + k * 512 }
        #expect(times == expected, "\(times)")
    }

    /// The frames of qp30.mp4 (fixtures/make-fixtures.sh: x264 at constant quantizer 30, B-frames with their
    /// pyramid, keyframes every 30 frames) from its second keyframe, as a run wanting frame 45 on reads them.
    static func qp30Frames(skipping: Bool) throws -> (luma: [[UInt8]], taken: Int, quantizers: [Int]) {
        let path = Fixtures.path("qp30.mp4")
        let probe = try Probe.probe(path, keepInput: false, locations: true)
        let plan = try FixPlanner.plan(probe.facts, timelines: probe.timelines, options: FixOptions())
        let cut = try #require(plan.tracks.first { $0.kind == .video })
        let presented = try #require(probe.timelines[cut.index]).samples.sorted { $0.pts < $1.pts }
        #expect(presented.count == 60 && presented[30].isSync)
        let want = presented[45].pts
        let source = try FrameSource(
            path: path, window: PacketWindow(cut, from: presented[30].dts, through: cut.keepThrough),
            timelines: probe.timelines)
        if skipping { source.skipUnreferenced(before: want) }
        var luma: [[UInt8]] = []
        var taken = 0
        while let frame = try source.next() {
            taken += 1
            guard let pts = frame.pts, pts >= want, let plane = frame.pointer.pointee.data.0 else { continue }
            let stride = Int(frame.pointer.pointee.linesize.0)
            let width = Int(frame.pointer.pointee.width)
            luma.append(
                (0..<Int(frame.pointer.pointee.height)).flatMap { y in
                    Array(UnsafeBufferPointer(start: plane + y * stride, count: width))
                })
        }
        return (luma, taken, source.quantizers)
    }

    /// A run that starts late in a GOP does not decode the B-frames before it that nothing refers to:
    /// frames 45 to 59 are the same pictures either way, and of the 15 before them, the pyramid's unreferenced
    /// B-frames (two in each group of three) are never taken.
    @Test func unreferencedPicturesBeforeTheWantedOneAreNotDecoded() throws {
        let all = try Self.qp30Frames(skipping: false)
        let skipped = try Self.qp30Frames(skipping: true)
        #expect(all.luma.count == 15 && skipped.luma == all.luma)
        #expect(all.taken == 30)
        #expect(skipped.taken < all.taken && skipped.taken > 15)
        // Every picture was coded at quantizer 30 (the recipe's constant QP): what the decoder exports.
        #expect(!all.quantizers.isEmpty && all.quantizers.allSatisfy { $0 == 30 })
        #expect(all.quantizers.count == all.taken && skipped.quantizers.count == skipped.taken)
    }
}
