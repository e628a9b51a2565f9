import Foundation
import TestSupport
import Testing

/// A screen recording whose frames come at 30 and then 15 fps (fixtures/make-metadata.sh: 60 frames of 1/30 s,
/// then 30 of 1/15 s, 4.0 s, with 4.0 s of 48 kHz audio), beside a 1 s clip at 60 fps.
@Suite struct VariableFrameRateCommandTests {
    @Test func analyzeNamesTheVariableRate() throws {
        let run = try Run.loopprep(["analyze", Run.fixture("vfr-screen.mp4"), "--no-seam", "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        #expect((file["findings"] as? [Any])?.isEmpty == true, "\(file)")
        let video = try #require(((file["facts"] as? [String: Any])?["tracks"] as? [[String: Any]])?.first)
        let steps = try #require(video["variableFrameRate"] as? [String: Any])
        // 1/30 s and 1/15 s on the MP4 muxer's 1/15360 clock.
        #expect((steps["shortest"] as? [String: Any])?["ticks"] as? String == "512")
        #expect((steps["longest"] as? [String: Any])?["ticks"] as? String == "1024")
        let text = try Run.loopprep(["analyze", Run.fixture("vfr-screen.mp4"), "--no-seam"])
        #expect(
            text.stdout.contains("variable frame rate (frames of 33.333 ms to 66.667 ms), 0.000-4.000 s (90 frames)"))
    }

    /// Without --normalize the variable rate is one of the differences, in the one list, exit 1.
    @Test func stitchListsItAmongTheDifferences() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(
            [
                "stitch", Run.fixture("cfr-60.mp4"), Run.fixture("vfr-screen.mp4"), "-o",
                dir.appendingPathComponent("r.mp4").path,
            ])
        #expect(run.status == 1, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("the clips differ") == true, "\(run.stderr)")
        #expect(
            lines.contains { $0.contains("vfr-screen.mp4: a variable frame rate (frames of 33.333 ms to 66.667 ms)") })
        #expect(lines.contains { $0.contains("vfr-screen.mp4: frame rate") })
    }

    /// A recording stitched with itself: nothing differs between the clips, its own rate varies: said so, the
    /// clip named once.
    @Test func aRecordingWithItselfIsNamedOnce() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("vfr-screen.mp4")
        let run = try Run.loopprep(["stitch", clip, clip, "-o", dir.appendingPathComponent("r.mp4").path])
        #expect(run.status == 1, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("the clips' frame rates vary, so they cannot be joined by stream copy") == true)
        #expect(lines.filter { $0.contains("vfr-screen.mp4: a variable frame rate") }.count == 1, "\(run.stderr)")
    }

    /// With --normalize every instant of the recording is on screen at its own time: 4.0 s of it is 240 frames at
    /// the first clip's 60 fps, its audio is whole, and the picture at 2.5 s into it is its frame 67 (the 15 fps
    /// part starts at 2 s: 60 + 7), read back by FFmpeg.
    @Test func normalizeKeepsItsTime() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("r.mp4").path
        let run = try Run.loopprep(
            ["stitch", Run.fixture("cfr-60.mp4"), Run.fixture("vfr-screen.mp4"), "-o", out, "--normalize", "--no-seam"])
        #expect(run.status <= 1, "\(run.stdout)\(run.stderr)")
        let frames = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", out,
        ])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "300")
        let audio = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
        ])
        #expect(audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "5.000000")
        // Output frame 60 + 150 (2.5 s into the recording) against the recording's frames 66, 67 and 68.
        let shown = try Self.gray(out, frame: 210)
        let distances = try [66, 67, 68].map {
            Self.distance(shown, try Self.gray(Run.fixture("vfr-screen.mp4"), frame: $0))
        }
        #expect(distances[1] < distances[0] && distances[1] < distances[2], "\(distances)")
    }

    static func gray(_ path: String, frame: Int) throws -> [UInt8] {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("f.gray").path
        try Run.tool([
            "ffmpeg", "-v", "error", "-i", path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", "-f", "rawvideo",
            "-pix_fmt", "gray", raw,
        ])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }
}

/// Presentation times a tick off on a 90 kHz clock (fixtures/make-robust.sh: every third frame's composition offset
/// one tick later, each frame 3003 ticks) are one rate: 30000/1001 fps, 120 frames in 4.004 s, no variable rate, and
/// stitch copies the clip (each cut, as fix cuts it, to the 119 frames at or before its audio's 4.000 s end).
@Suite struct TickWobbleTests {
    @Test func aTickOffIsNoVariableRate() throws {
        let clip = Run.fixture("pts-wobble-90k.mp4")
        let run = try Run.loopprep(["analyze", clip, "--no-seam"])
        #expect(
            run.stdout.contains("video 0: h264 High, 160x120, 30000/1001 fps, 0.000-4.004 s (120 frames)"),
            "\(run.stdout)")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.mp4").path
        let stitched = try Run.loopprep(["stitch", clip, clip, "-o", out, "--no-seam"])
        #expect(stitched.status == 0, "\(stitched.stdout)\(stitched.stderr)")
        #expect(stitched.stdout.contains("(238 frames)"), "\(stitched.stdout)")
    }
}
