import Foundation
import Testing

/// `loopprep loop` on clips whose loop is known by how they were made (fixtures/make-fixtures.sh).
@Suite struct LoopCommandTests {
    struct Found: Decodable {
        struct File: Decodable {
            var path: String
            var candidates: [Candidate]
            var chosen: Int?
            var output: String?
            var error: String?
        }
        struct Candidate: Decodable {
            var inFrame: Int
            var outFrame: Int
            var pictureDifference: Double
            var audioJump: Double
        }
        var files: [File]
    }

    /// A grating that repeats every 45 frames under fresh noise, with a tone of whole cycles in 1.5 s: every
    /// candidate between 1 and 2 s is 45 frames, and the written loop (45 frames, 1.5 s of audio) analyzes
    /// with no seam finding.
    @Test func findsThePeriodAndWritesASeamlessLoop() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep([
            "loop", Run.fixture("loop-period45.mp4"), "--min", "1", "--max", "2", "--top", "3", "-o", out, "--format",
            "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let found = try JSONDecoder().decode(Found.self, from: Data(run.stdout.utf8))
        let file = try #require(found.files.first)
        #expect(file.candidates.count == 3 && file.candidates.allSatisfy { $0.outFrame - $0.inFrame == 45 })
        #expect(file.output == out)
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        #expect(analyze.status == 0)
        #expect(!analyze.stdout.contains("seam-visual-jump") && !analyze.stdout.contains("seam-audio-click"))
        // --html: one seam strip a candidate, the chosen one marked.
        let page = dir.appendingPathComponent("loop.html").path
        _ = try Run.loopprep([
            "loop", Run.fixture("loop-period45.mp4"), "--min", "1", "--max", "2", "--top", "3", "--dry-run", "--html",
            page,
        ])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.components(separatedBy: "data:image/png;base64,").count - 1 == 3 && html.contains("(chosen)"))
        // It says which loopprep wrote it, and how it searched.
        let version = String(try Run.loopprep(["--version"]).stdout.split(separator: "\n").first ?? "")
        #expect(
            html.contains("loopprep \(version), written ")
                && html.contains("Settings: loops of 1.0 to 2.0 s, top 3, pick 1."))
        let frames = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", out,
        ])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "45")
        let audio = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
        ])
        #expect(
            abs((Double(audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 1.5) <= 0.5 / 48000 + 1e-6
        )
    }

    /// Footage whose AAC frames have irregular stored durations and whose video starts 21 ms in (issue 21):
    /// loop-period45.mp4 remuxed through FLV by the ffmpeg CLI (millisecond timestamps: 33/34 ms frames, AAC
    /// frames of 1017-1031 samples). The 45-frame period is found and cut exactly, on fix's duration repair and
    /// from the first frame's time: 45 frames, 1.5 s of audio (72000 samples).
    @Test func irregularAudioDurationsLoopExactly() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let flv = dir.appendingPathComponent("period.flv").path
        let clip = dir.appendingPathComponent("period.mp4").path
        for (input, output) in [(Run.fixture("loop-period45.mp4"), flv), (flv, clip)] {
            #expect(try Run.tool(["ffmpeg", "-nostdin", "-v", "error", "-i", input, "-c", "copy", output]).status == 0)
        }
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", clip, "--min", "1", "--max", "2", "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let frames = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", out,
        ])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "45")
        let facts = try Run.loopprep(["analyze", out, "--no-seam", "--format", "json"])
        #expect(facts.stdout.contains("\"sampleCount\" : \"72000\""), "\(facts.stdout)")
        // --crossfade: the FLV clock's 33 and 34 ms frames cannot be copied beside a blend, so the loop is encoded
        // whole (was refused, naming --normalize, which loop has not): 45 frames less the 9 the 0.3 s blend
        // overlaps.
        let faded = dir.appendingPathComponent("faded.mp4").path
        let crossfade = try Run.loopprep(["loop", clip, "--min", "1", "--max", "2", "--crossfade", "0.3", "-o", faded])
        #expect(crossfade.status == 0, "\(crossfade.stdout)\(crossfade.stderr)")
        let blended = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", faded,
        ])
        #expect(blended.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "36")
    }

    /// A folder: every clip searched (in parallel), each loop written at its relative path under -o.
    @Test func aFolderOfClips() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = dir.appendingPathComponent("clips/sub")
        let out = dir.appendingPathComponent("loops")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        for name in ["a.mp4", "b.mp4"] {
            try FileManager.default.copyItem(
                atPath: Run.fixture("loop-period45.mp4"), toPath: clips.appendingPathComponent(name).path)
        }
        let run = try Run.loopprep([
            "loop", dir.appendingPathComponent("clips").path, "--min", "1", "--max", "2", "-o", out.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        for name in ["a.mp4", "b.mp4"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("sub/" + name).path))
        }
    }

    /// A folder holding one clip, or one clip, with an output that names a folder (a trailing slash, or one that
    /// exists): the loop goes inside it under the clip's name (issue 24, item 3: it tried to write the folder
    /// itself). An output that is not a folder is the loop itself, whether the clip came alone or in a folder.
    @Test func anOutputFolderTakesTheClipsName() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Run.fixture("loop-period45.mp4"), toPath: clips.appendingPathComponent("one.mp4").path)
        let existing = dir.appendingPathComponent("existing")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        let cases: [(input: String, output: String, written: String)] = [
            (clips.path, dir.appendingPathComponent("slash").path + "/", "slash/one.mp4"),
            (
                clips.appendingPathComponent("one.mp4").path, dir.appendingPathComponent("alone").path + "/",
                "alone/one.mp4"
            ),
            (clips.path, existing.path, "existing/one.mp4"),
            (clips.path, dir.appendingPathComponent("named.mp4").path, "named.mp4"),
        ]
        for c in cases {
            let run = try Run.loopprep(["loop", c.input, "--min", "1", "--max", "2", "-o", c.output])
            #expect(run.status == 0, "\(c.output): \(run.stdout)\(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(c.written).path), "\(c.written)")
        }
    }

    /// Footage that never repeats (a moving test pattern with a running clock): the best candidate's scores
    /// say so and its loop shows a cut; with --crossfade the written loop does not. --dry-run writes nothing.
    @Test func noRepeatIsHonestAndCrossfadeSmoothsIt() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Run.fixture("h264-gop10-a.mp4")
        let dry = try Run.loopprep(["loop", source, "--min", "0.5", "--max", "0.8", "--dry-run", "--format", "json"])
        let found = try JSONDecoder().decode(Found.self, from: Data(dry.stdout.utf8))
        #expect((found.files.first?.candidates.first?.pictureDifference ?? 0) > 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        let cut = dir.appendingPathComponent("cut.mp4").path
        let blended = dir.appendingPathComponent("blended.mp4").path
        _ = try Run.loopprep(["loop", source, "--min", "0.5", "--max", "0.8", "-o", cut])
        #expect(try Run.loopprep(["analyze", cut]).stdout.contains("seam-visual-jump"))
        let run = try Run.loopprep([
            "loop", source, "--min", "0.5", "--max", "0.8", "--crossfade", "0.2", "-o", blended,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!(try Run.loopprep(["analyze", blended]).stdout.contains("seam-visual-jump")))
    }
}
