import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import loopprep

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `loopprep loop` on clips whose loop is known by how they were made (fixtures/make-fixtures.sh).
@Suite struct LoopCommandTests {
    struct Found: Decodable {
        struct File: Decodable {
            var path: String
            var candidates: [Candidate]
            var chosen: Int?
            var outcome: Outcome
            /// The loop written (none in a dry run or a refusal) and why nothing was, from the file's outcome.
            var output: String? { outcome.status == .written ? outcome.output : nil }
            var error: String? { outcome.reason }
        }
        struct Candidate: Decodable {
            var inFrame: Int
            var outFrame: Int
            var seamDissimilarity: Double
            var pictureDifference: Double
            var audioJump: Double
            var seamDifference: Double
            var seamMotion: Double
            var levelDifference: Double
            var seamless: Bool
        }
        var files: [File]
    }

    /// The first file of a JSON report, as a dictionary.
    static func fileJSON(_ text: String) throws -> [String: Any] {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try #require((doc["files"] as? [[String: Any]])?.first)
    }

    /// Two reports' facts, key by key: what a command said of its output against what analyze found in it.
    static func expectSameFacts(_ said: [String: Any], _ found: [String: Any]) {
        for key in Set(said.keys).union(found.keys) {
            #expect(
                (said[key] as? NSObject) == (found[key] as? NSObject),
                "\(key): \(String(describing: said[key])) against \(String(describing: found[key]))")
        }
    }

    /// A designed loop whose audio is shorter (fixtures/make-fixtures.sh's designed-loop.mp4: 90 frames at
    /// 30000/1001 fps, the picture repeating at frame 90, over 2.5 s of tone at 48 kHz): fix cuts every track to the
    /// shortest, so no candidate ends past the audio (frame 74 starts at 2.469 s, frame 75 at 2.5025 s): the picture's
    /// own repeat is never offered and then refused. None within the audio is seamless: refused, naming the audio's
    /// end and fix --keep video; a crossfade within it is written, no longer than the audio.
    @Test func noLoopEndsPastTheAudio() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", Run.fixture("designed-loop.mp4"), "-o", out, "--format", "json"])
        #expect(run.status == 1, "\(run.stderr)")
        let found = try JSONDecoder().decode(Found.self, from: Data(run.stdout.utf8))
        let file = try #require(found.files.first)
        #expect(!file.candidates.isEmpty && file.candidates.allSatisfy { $0.outFrame <= 74 }, "\(file.candidates)")
        let error = try #require(file.error)
        #expect(error.hasPrefix("no repeat found") && error.contains("to 2.500 s of the picture's 3.003 s"), "\(error)")
        #expect(error.contains("loopprep fix --keep video"))
        #expect(!FileManager.default.fileExists(atPath: out))
        let blended = try Run.loopprep([
            "loop", Run.fixture("designed-loop.mp4"), "-o", out, "--crossfade", "0.333", "--min", "1.334",
        ])
        #expect(blended.status == 0, "\(blended.stderr)")
        #expect(blended.stdout.contains("searched only while the audio lasts"))
        let durations = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n").compactMap { Double($0) }
        #expect(durations.count == 2 && durations.allSatisfy { $0 <= 2.5 }, "\(durations)")
    }

    /// loop-period45.mp4 looped (loops of 1 to 2 s, `top` of them ranked) into DIR/loop.mp4, the JSON report asked;
    /// the run (which must exit 0) and the loop's path.
    static func loopPeriod45(top: Int, into dir: URL) throws -> (run: Run, out: String) {
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep([
            "loop", Run.fixture("loop-period45.mp4"), "--min", "1", "--max", "2", "--top", "\(top)", "-o", out,
            "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        return (run, out)
    }

    /// loop reports each clip in the one record every command uses (the analyze report's file, with what was
    /// written and what the search found): its JSON reads back as loopprep's `Report`, whole, and `report` merges it
    /// as it merges fix's. The fixture repeats every 45 frames (1.5 s at 30 fps): the loop written is 45 frames.
    @Test func aLoopRunIsOneReportOfFiles() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, out) = try Self.loopPeriod45(top: 2, into: dir)
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        #expect(report.command == "loop" && report.summary.files == 1 && report.summary.written == 1)
        let file = try #require(report.files.first)
        let loop = try #require(file.loop)
        #expect(loop.candidates.count == 2 && loop.chosen == 0 && loop.candidates[0].frames == 45)
        #expect(file.outcome == .written(output: out) && file.fix?.plan?.tracks.isEmpty == false)
        #expect(file.facts?.mainVideo?.frameCount == 45 && file.error == nil)
        // The record reads back as written.
        let again = try JSONDecoder().decode(Report.self, from: try JSONEncoder().encode(report))
        #expect(again.files == report.files)
        // `report` merges it (a shard of a loop run) into the same record.
        let shard = dir.appendingPathComponent("shard.json")
        try Data(run.stdout.utf8).write(to: shard)
        let merged = try Run.loopprep(["report", shard.path, "--format", "json"])
        let read = try JSONDecoder().decode(Report.self, from: Data(merged.stdout.utf8))
        #expect(read.files.first?.loop?.candidates == loop.candidates && read.files.first?.outcome == file.outcome)
        // --format jsonl streams the same record, a line a clip, then the summary.
        let lines = try Run.loopprep([
            "loop", Run.fixture("loop-period45.mp4"), "--min", "1", "--max", "2", "--top", "2", "--dry-run", "--format",
            "jsonl",
        ]).stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.map { $0?["kind"] as? String } == ["file", "summary"])
        let streamed = try #require(lines.first??["file"] as? [String: Any])
        #expect((streamed["candidates"] as? [Any])?.count == 2 && streamed["chosen"] as? Int == 0)
        #expect((streamed["outcome"] as? [String: Any])?["status"] as? String == "planned")
    }

    /// A grating that repeats every 45 frames under fresh noise, with a tone of whole cycles in 1.5 s: every
    /// candidate between 1 and 2 s is 45 frames, and the written loop (45 frames, 1.5 s of audio) analyzes
    /// with no seam finding.
    @Test func findsThePeriodAndWritesASeamlessLoop() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, out) = try Self.loopPeriod45(top: 3, into: dir)
        let found = try JSONDecoder().decode(Found.self, from: Data(run.stdout.utf8))
        let file = try #require(found.files.first)
        #expect(file.candidates.count == 3 && file.candidates.allSatisfy { $0.outFrame - $0.inFrame == 45 })
        #expect(file.output == out)
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        #expect(analyze.status == 0)
        #expect(!analyze.stdout.contains("seam-visual-jump") && !analyze.stdout.contains("seam-audio-click"))
        // The report carries the written loop as analyze describes it: its facts and its loop range (the whole
        // 1.5 s of it).
        let written = try Self.fileJSON(run.stdout)
        let analyzed = try Self.fileJSON(analyze.stdout)
        let range = try #require(written["loopRange"] as? [String: Any])
        #expect(NSDictionary(dictionary: range).isEqual(to: try #require(analyzed["loopRange"] as? [String: Any])))
        #expect(range["duration"] as? String == "3/2", "\(range)")
        LoopCommandTests.expectSameFacts(
            try #require(written["facts"] as? [String: Any]), try #require(analyzed["facts"] as? [String: Any]))
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
                && html.contains("Settings: loops of 1.000 s to 2.000 s \u{00B7} top 3 \u{00B7} pick 1"))
        // One template for every page: the analyze page's head and style, light and dark, XHTML
        // an XML parser reads; each strip drawn as analyze draws a seam, with its time labels and the sound
        // either side (taller than the 90-pixel picture tiles alone).
        _ = try XMLDocument(data: Data(html.utf8))
        let analyzePage = dir.appendingPathComponent("analyze.html").path
        _ = try Run.loopprep(["analyze", Run.fixture("clean.mp4"), "--html", analyzePage])
        func style(_ page: String) -> Substring? {
            guard let a = page.range(of: "<style>"), let b = page.range(of: "</style>") else { return nil }
            return page[a.upperBound..<b.lowerBound]
        }
        let analyzeHTML = try String(contentsOfFile: analyzePage, encoding: .utf8)
        #expect(style(html) != nil && style(html) == style(analyzeHTML))
        #expect(html.contains("prefers-color-scheme: dark") && html.contains("with the sound either side"))
        let png = try #require(
            html.components(separatedBy: "data:image/png;base64,").dropFirst().first.map {
                String($0.prefix { $0 != "\"" })
            }
            .flatMap { Data(base64Encoded: $0) })
        let height = png.subdata(in: 20..<24).reduce(0) { $0 << 8 | Int($1) }
        #expect(height > 90 + 40, "strip height \(height)")
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

    /// Footage whose AAC frames have irregular stored durations and whose video starts 21 ms in:
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

    /// ffmpeg-encoded AAC whose stored durations were rounded from a Matroska millisecond clock (1016, 1024 and
    /// 1032 samples; the decoder plays 1024), made so (fixtures/make-fixtures.sh): a period
    /// of 50 (80) frames at 25 fps looped by the CLI, so the loop is 50 frames and 2 s = 96000 samples (80 and
    /// 3.2 s = 153600). Counted by FFmpeg (frames decoded, the audio's presented length), and analyze finds
    /// nothing: the cut places the AAC frames back to back as the decoder plays them, as fix does.
    @Test(arguments: [("loop-ms-clock-50.mp4", 50, "3", 96000), ("loop-ms-clock-80.mp4", 80, "3.5", 153600)])
    func millisecondClockAACLoopsExactly(file: String, frames: Int, maximum: String, samples: Int) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", Run.fixture(file), "--min", "1.5", "--max", maximum, "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let counted = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", out,
        ])
        #expect(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(frames))
        let audio = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
        ])
        #expect(
            audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == String(format: "%.6f", Double(samples) / 48000))
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        #expect(analyze.status == 0 && !analyze.stdout.contains("\"rule\""), "\(analyze.stdout)")
    }

    /// VP9 + Opus WebM made by the ffmpeg CLI (fixtures/make-fixtures.sh): the 45-frame period,
    /// a keyframe every 30, the video 7 ms after the audio. `--target web` writes the candidate chosen, 45 frames
    /// and 1.5 s of audio (72000 samples), counted by ffmpeg decoding the output (it wrote 15 frames before).
    @Test func webmLoopIsTheCandidateChosen() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.webm").path
        let run = try Run.loopprep([
            "loop", Run.fixture("loop-period45.webm"), "--min", "1", "--max", "2.5", "--target", "web", "-o", out,
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let counted = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", out,
        ])
        #expect(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "45")
        let samples =
            try Subprocess.tool("ffmpeg", ["-v", "error", "-i", out, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"]).out
            .count / 2
        #expect(samples == 72000)
        #expect(!run.stdout.contains("too-short-to-loop"))
    }

    /// The findings loop reports are for its target: a Matroska H.264 clip of one GOP whose
    /// second candidate starts inside it (refused: nothing can start there without re-encoding all of it), with
    /// `--target web`, names the web target, never Apple's (fix inside loop used the default target).
    @Test func findingsAreForTheLoopsTarget() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("one-gop.mkv").path
        let made = try Run.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
            "nullsrc=s=160x90:r=30:d=3,geq=lum='128+90*sin(2*PI*(X/40+N/45))':cb=128:cr=128", "-c:v", "libx264",
            "-g", "300", "-pix_fmt", "yuv420p", clip,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let run = try Run.loopprep([
            "loop", clip, "--min", "1", "--max", "2", "--pick", "2", "--target", "web", "-o",
            dir.appendingPathComponent("loop.mkv").path,
        ])
        #expect(run.stdout.contains("on the web target") && !run.stdout.contains("apple"), "\(run.stdout)")
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
    /// exists): the loop goes inside it under the clip's name (it tried to write the folder
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

    /// Footage that never repeats: a picture that brightens 50 levels a second (1.7 a frame), so every loop of 0.5
    /// to 0.8 s ends 25 to 40 levels brighter than it starts, far above both analyze's floor (6) and three times
    /// the motion (5): loop says "no repeat found", exits 1 and writes nothing; with --crossfade it writes a loop
    /// analyze finds seamless. The tone (480 Hz: 100 samples a cycle, 16 cycles a frame) is in phase at every
    /// frame boundary, so the sound never decides it.
    @Test func noRepeatIsRefusedAndCrossfadeLoopsIt() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("ramp.mp4").path
        #expect(
            try Run.tool([
                "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "nullsrc=s=160x90:r=30:d=4,geq=lum='clip(20+T*50,0,255)':cb=128:cr=128", "-f", "lavfi", "-i",
                "sine=frequency=480:sample_rate=48000:duration=4", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                "-c:a", "aac", "-shortest", source,
            ]).status == 0)
        let dry = try Run.loopprep(["loop", source, "--min", "0.5", "--max", "0.8", "--dry-run", "--format", "json"])
        #expect(dry.status == 1, "\(dry.stderr)")
        let found = try JSONDecoder().decode(Found.self, from: Data(dry.stdout.utf8))
        let best = try #require(found.files.first?.candidates.first)
        #expect(!best.seamless && best.seamDifference > 20, "\(best)")
        #expect(found.files.first?.error?.hasPrefix("no repeat found") == true)
        let cut = dir.appendingPathComponent("cut.mp4").path
        let refused = try Run.loopprep(["loop", source, "--min", "0.5", "--max", "0.8", "-o", cut])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no repeat found") && refused.stderr.contains("[seam-visual-jump]"))
        #expect(!FileManager.default.fileExists(atPath: cut))
        let blended = dir.appendingPathComponent("blended.mp4").path
        let run = try Run.loopprep([
            "loop", source, "--min", "0.5", "--max", "0.8", "--crossfade", "0.2", "-o", blended,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!(try Run.loopprep(["analyze", blended]).stdout.contains("seam-visual-jump")))
    }

    /// A repeat means a repeat: footage that never repeats, made as the issue says (lavfi
    /// sources, 4 s at 25 fps with pink noise under it): Game of Life's sparse cells, a slow pan over a still
    /// (10 pixels a second) and noise give "no repeat found", exit 1 and nothing written, each for its reason (the
    /// picture's structure at the seam against the frames around it; a picture with none); with --crossfade each
    /// is written. A still under fresh noise every frame repeats: it is written.
    @Test(
        arguments: [
            ("life", "life=s=320x240:mold=10:r=25:ratio=0.1:seed=7", "[seam-visual-jump]"),
            (
                "pan", "testsrc2=s=640x480:r=1:d=1,loop=loop=-1:size=1,fps=25,crop=320:240:x='t*10':y=0",
                "[seam-visual-jump]"
            ),
            (
                "noise", "nullsrc=s=320x240:r=25,geq=lum='random(1)*255':cb=128:cr=128",
                "changes entirely from frame to frame"
            ),
            ("still", "testsrc2=s=320x240:r=1:d=1,loop=loop=-1:size=1,fps=25,noise=alls=6:allf=t:all_seed=3", nil),
        ] as [(String, String, String?)])
    func aRepeatMeansARepeat(name: String, picture: String, refusal: String?) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent(name + ".mp4").path
        let made = try Run.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", picture, "-f", "lavfi", "-i",
            "anoisesrc=color=pink:r=48000:seed=5", "-t", "4", "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p",
            "-c:a", "aac", source,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", source, "--min", "1", "--max", "2", "-o", out])
        guard let refusal else {
            #expect(run.status == 0 && FileManager.default.fileExists(atPath: out), "\(run.stdout)\(run.stderr)")
            return
        }
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.stderr.contains("no repeat found") && run.stderr.contains(refusal), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // The crossfade it suggests is one loop takes (it suggested one over half of --min).
        let suggested = try #require(
            run.stderr.components(separatedBy: "--crossfade ").dropFirst().first?.split(separator: " ").first)
        let blended = try Run.loopprep([
            "loop", source, "--min", "1", "--max", "2", "--crossfade", String(suggested), "-o", out,
        ])
        #expect(blended.status == 0 && FileManager.default.fileExists(atPath: out), "\(blended.stderr)")
    }

    /// A loop written exits 0 whatever its findings (the README's table): a WebM loop (VP9 and
    /// Opus) the apple target does not play is written and reported, exit 0; --fail-on error fails on it.
    @Test func aWrittenLoopExitsZero() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("loop-period45.webm")
        let out = dir.appendingPathComponent("loop.webm").path
        let run = try Run.loopprep(["loop", clip, "--min", "1", "--max", "2", "-o", out, "--target", "apple"])
        #expect(run.status == 0 && run.stdout.contains("not-playable-on-target"), "\(run.stdout)\(run.stderr)")
        let strict = try Run.loopprep([
            "loop", clip, "--min", "1", "--max", "2", "-o", out, "-y", "--target", "apple", "--fail-on", "error",
        ])
        #expect(strict.status == 1)
    }

    /// The scores are analyze's: the chosen loop's seam figures (its last frame against its first, its last two,
    /// the audio's jump) are what analyze then measures on the written file (the pictures within 0.5 of 255: the
    /// loop starts inside a GOP and its first frames are encoded again). The winner does not depend on --top.
    /// (loop-ms-clock-50.mp4 repeats every 50 frames with a keyframe every 25: its loop starts inside a GOP.
    /// h264-gop10-a.mp4, a moving test pattern with a clock, never repeats: refused.)
    @Test(arguments: ["loop-period45.mp4", "loop-ms-clock-50.mp4"])
    func scoresAreWhatAnalyzeMeasures(clip: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let range = clip == "loop-period45.mp4" ? ["--min", "1", "--max", "2"] : ["--min", "1.5", "--max", "3"]
        let run = try Run.loopprep(["loop", Run.fixture(clip), "-o", out, "--format", "json"] + range)
        #expect(run.status == 0, "\(run.stderr)")
        let file = try #require(try JSONDecoder().decode(Found.self, from: Data(run.stdout.utf8)).files.first)
        let chosen = try #require(file.chosen.map { file.candidates[$0] })
        let analyzed = try Run.loopprep(["analyze", out, "--format", "json", "--fail-on", "never"])
        let report = try JSONDecoder().decode(Report.self, from: Data(analyzed.stdout.utf8))
        let seam = try #require(report.files.first?.facts?.seam)
        #expect(abs((seam.videoDifference ?? -1) - chosen.seamDifference) < 0.5, "\(seam) vs \(chosen)")
        #expect(abs((seam.videoMotion ?? -1) - chosen.seamMotion) < 0.5, "\(seam) vs \(chosen)")
        #expect(abs((seam.audioJump?.max() ?? -1) - chosen.audioJump) < 1e-4, "\(seam) vs \(chosen)")
        // The structure at the seam too (one measure for both).
        #expect(abs((seam.structure?.seam ?? -1) - chosen.seamDissimilarity) < 0.05, "\(seam) vs \(chosen)")
        for top in ["1", "10"] {
            let other = try Run.loopprep(
                ["loop", Run.fixture(clip), "--dry-run", "--format", "json", "--top", top] + range)
            let f = try #require(try JSONDecoder().decode(Found.self, from: Data(other.stdout.utf8)).files.first)
            let c = try #require(f.chosen.map { f.candidates[$0] })
            #expect((c.inFrame, c.outFrame) == (chosen.inFrame, chosen.outFrame), "--top \(top)")
        }
    }

    /// Sound counts: the picture repeats every 45 frames everywhere, the tone's level rises from 0.05 to 0.5
    /// over 6 s. A 1.5 s loop near the end changes level least: 0.5 / 0.3875 = 2.2 dB at 4.5-6 s, against 20 *
    /// log10(0.1625 / 0.05) = 10.2 dB at 0-1.5 s; the chosen loop is within 3 dB.
    @Test func theLevelAtTheSeamCounts() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("rising.mp4").path
        #expect(
            try Run.tool([
                "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "nullsrc=s=160x90:r=30:d=6,geq=lum='128+90*sin(2*PI*(X/40+N/45))':cb=128:cr=128", "-f", "lavfi",
                "-i", "aevalsrc='(0.05+0.075*t)*sin(2*PI*480*t)':s=48000:d=6", "-c:v", "libx264", "-pix_fmt",
                "yuv420p", "-x264-params", "keyint=15", "-c:a", "aac", "-b:a", "128k", "-shortest", source,
            ]).status == 0)
        let run = try Run.loopprep(["loop", source, "--min", "1", "--max", "2", "--dry-run", "--format", "json"])
        let file = try #require(try JSONDecoder().decode(Found.self, from: Data(run.stdout.utf8)).files.first)
        let chosen = try #require(file.chosen.map { file.candidates[$0] })
        #expect(chosen.levelDifference < 3, "\(chosen)")
        #expect(chosen.levelDifference > 0.5, "the level was measured: \(chosen)")
    }

    /// Colour is seen at the seam (fixtures/make-fixtures.sh): hue-cut.mp4 is a red field for 1 s,
    /// then blue of the same BT.601 luma (81) for 1 s; its loop point steps Cb by 127 and Cr by 126 (a colour step
    /// of 126.5, SeamPictureTests) and its last two frames not at all. hue-sweep.mp4 turns its bars' hue 90 degrees
    /// a second (3.6 a frame): every loop of 0.5 to 1.9 s ends 45 to 171 degrees from where it starts, so loop finds
    /// no repeat (it called a colour jump "seam 0.2"), exit 1, nothing written.
    @Test func colourIsSeenAtTheSeam() throws {
        let analyzed = try Run.loopprep([
            "analyze", Run.fixture("hue-cut.mp4"), Run.fixture("hue-sweep.mp4"), "--format", "json",
        ])
        #expect(analyzed.status == 0, "\(analyzed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(analyzed.stdout.utf8)) as? [String: Any]
        let files = report?["files"] as? [[String: Any]] ?? []
        func seam(_ name: String) -> [String: Double]? {
            let file = files.first { ($0["path"] as? String)?.hasSuffix(name) == true }
            let findings = file?["findings"] as? [[String: Any]] ?? []
            return findings.first { $0["rule"] as? String == "seam-visual-jump" }?["figures"] as? [String: Double]
        }
        let cut = try #require(seam("hue-cut.mp4"))
        #expect(abs((cut["difference"] ?? 0) - 126.5) <= 1 && cut["motion"] == 0, "\(cut)")
        let sweep = try #require(seam("hue-sweep.mp4"))
        #expect((sweep["difference"] ?? 0) > 3 * (sweep["motion"] ?? 99), "\(sweep)")

        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let loop = try Run.loopprep(["loop", Run.fixture("hue-sweep.mp4"), "--min", "0.5", "--max", "1.9", "-o", out])
        #expect(loop.status == 1, "\(loop.stdout)\(loop.stderr)")
        #expect(loop.stderr.contains("no repeat found") && loop.stderr.contains("[seam-visual-jump]"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// loop on long footage: on a terminal the search says how far it is (decoding, then
    /// comparing), on one line it clears; a winner as short as --min is said to be (loop-period45.mp4 repeats
    /// every 45 frames, 1.5 s at 30 fps: --min 1.5 puts the winner at the bound, --min 1.4 does not).
    @Test func theSearchSaysHowFarItIsAndWhenItSitsAtMin() throws {
        let clip = Run.fixture("loop-period45.mp4")
        // util-linux's script gives the run a terminal (a Mac's script takes other arguments).
        if Platform.isLinux {
            let command = [Run.binary.path, "loop", clip, "--min", "1.5", "--max", "2", "--dry-run"].joined(
                separator: " ")
            let tty = try Run.tool(["script", "-qec", command, "/dev/null"])
            #expect(tty.stdout.contains("searching loop-period45.mp4: decoding"), "\(tty.stdout)")
            #expect(tty.stdout.contains("searching loop-period45.mp4: comparing"))
            #expect(tty.stdout.contains("note: the loop chosen is as short as --min 1.500 s allows (45 frames)"))
        }
        let piped = try Run.loopprep(["loop", clip, "--min", "1.5", "--max", "2", "--dry-run"])
        #expect(!piped.stderr.contains("searching") && !piped.stdout.contains("searching"))
        let above = try Run.loopprep(["loop", clip, "--min", "1.4", "--max", "2", "--dry-run"])
        // The period (45 frames) is above --min 1.4 s (42 frames): not at the bound.
        let chosen = above.stdout.split(separator: "\n").first { $0.contains("*#1") } ?? ""
        #expect(chosen.contains(", 45 frames)"), "\(above.stdout)")
        #expect(!above.stdout.contains("as short as --min"))
    }
}

/// A dry run plans the write it stands for.
@Suite struct LoopDryRunTests {
    struct Planned: Decodable {
        struct File: Decodable {
            var plan: FixPlan?
            var blend: StitchTimeline?
            /// A crossfaded loop's `plan`: its blend.
            var blendPlan: StitchTimeline?
            var outcome: Outcome
            /// The loop written (none in a dry run or a refusal) and why nothing was, from the file's outcome.
            var output: String? { outcome.status == .written ? outcome.output : nil }
            var error: String? { outcome.reason }

            enum CodingKeys: String, CodingKey { case plan, blend, outcome }

            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                blend = try c.decodeIfPresent(StitchTimeline.self, forKey: .blend)
                if blend == nil {
                    plan = try c.decodeIfPresent(FixPlan.self, forKey: .plan)
                } else {
                    blendPlan = try c.decodeIfPresent(StitchTimeline.self, forKey: .plan)
                }
                outcome = try c.decode(Outcome.self, forKey: .outcome)
            }
        }
        var files: [File]
    }

    static func planned(_ arguments: [String]) throws -> (status: Int32, file: Planned.File) {
        let run = try Run.loopprep(arguments + ["--format", "json"])
        let file = try #require(try JSONDecoder().decode(Planned.self, from: Data(run.stdout.utf8)).files.first)
        return (run.status, file)
    }

    /// A phone's clip in Matroska (footage-gop250.mp4's picture, x264's 250-frame GOP, its AAC at 44.1 kHz) looped
    /// into an MP4 by name: the dry run planned Matroska's cut (the AAC moved to a frame, the last GOP encoded
    /// again) while the write converted to MP4 and refused its own output. Both now plan the MP4: the plans are
    /// equal, and the loop written is the 180-frame period (6.006 s) as FFmpeg reads it.
    @Test func aMatroskaClipLoopsIntoTheMP4ItIsNamed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let phone = dir.appendingPathComponent("phone.mkv").path
        let made = try Run.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-i", Run.fixture("footage-gop250.mp4"), "-c:v", "copy", "-c:a", "aac",
            "-ar", "44100", phone,
        ])
        #expect(made.status == 0)
        let out = dir.appendingPathComponent("loop.mp4").path
        let dry = try Self.planned(["loop", phone, "-o", out, "--dry-run"])
        #expect(dry.status == 0 && dry.file.error == nil, "\(dry.file.error ?? "")")
        let wet = try Self.planned(["loop", phone, "-o", out])
        #expect(wet.status == 0, "\(wet.file.error ?? "")")
        let plan = try #require(dry.file.plan)
        #expect(plan == wet.file.plan && plan.convertsTo == .mp4)
        #expect(wet.file.output == out)
        #expect(try LoopFootageTests.read(out).frames == "180")
        #expect(abs((Double(try LoopFootageTests.read(out).audio) ?? 0) - 6.006) < 0.001)
    }

    /// An MPEG-TS's loop is written as an MP4 beside it: with an MP4 of the same stem in the batch, both would be
    /// out/NAME.mp4. The write refused the TS's; its dry run planned both (it claimed nothing). One path plans both:
    /// the same refusal in the same words, the MP4's loop planned and written.
    @Test func aDryRunClaimsItsOutputAsTheWriteDoes() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = [("loop-period45-ts.ts", "loop-period45.ts"), ("loop-period45.mp4", "loop-period45.mp4")].map {
            let copy = dir.appendingPathComponent($0.1).path
            try? FileManager.default.copyItem(atPath: Run.fixture($0.0), toPath: copy)
            return copy
        }
        let out = dir.appendingPathComponent("out").path
        let dry = try Run.loopprep(["loop"] + clips + ["-o", out, "--dry-run"])
        let wet = try Run.loopprep(["loop"] + clips + ["-o", out])
        let clash = "would both be written to \(out)/loop-period45.mp4"
        #expect(dry.stdout.contains(clash) && wet.stdout.contains(clash), "\(dry.stdout)\n\(wet.stdout)")
        #expect(dry.status == 1 && wet.status == 1)
        #expect(FileManager.default.fileExists(atPath: out + "/loop-period45.mp4"))
        #expect(!FileManager.default.fileExists(atPath: out + "/loop-period45.ts"))
    }

    /// loop --crossfade --dry-run shows the blend it would write (it showed no plan): the loop's timeline as stitch
    /// plans it, equal to the write's, whose frames FFmpeg counts in the output.
    @Test func aCrossfadeDryRunShowsItsBlend() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("footage-gop250.mp4")
        let out = dir.appendingPathComponent("blended.mp4").path
        let dry = try Self.planned(["loop", clip, "-o", out, "--crossfade", "0.3", "--dry-run"])
        let blend = try #require(dry.file.blend)
        // At files[].plan, as every command's plan is.
        #expect(dry.file.blendPlan == blend)
        #expect(!FileManager.default.fileExists(atPath: out))
        let wet = try Self.planned(["loop", clip, "-o", out, "--crossfade", "0.3"])
        #expect(wet.status == 0, "\(wet.file.error ?? "")")
        #expect(wet.file.blend == blend)
        // 180 frames less the 9 of a 0.3 s blend at 30000/1001 fps.
        #expect(blend.frames == 171 && blend.loop)
        #expect(try LoopFootageTests.read(out).frames == "171")
        let text = try Run.loopprep(["loop", clip, "-o", out, "--crossfade", "0.3", "--dry-run", "--force"]).stdout
        #expect(text.contains("would blend the seam") && text.contains("timeline: 1 clip, 5.706 s = 171 frames"))
    }
}
