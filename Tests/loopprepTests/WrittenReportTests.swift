import Foundation
import LoopAnalysis
import LoopRange
import TestSupport
import Testing

@testable import loopprep

/// The report is what was written: what a command prints of its output is what `analyze OUTPUT`
/// finds, and no output is lost to another input of the same name.
@Suite struct WrittenReportTests {
    /// A report as JSON: each file's path, facts, findings, loop range and fix outcome.
    struct Document: Decodable {
        struct File: Decodable {
            var path: String
            var facts: ClipFacts?
            var findings: [Finding]
            var notes: [String]?
            var fix: FixOutcome?
            /// The plan carried out, where every command's report has it.
            var plan: FixPlan?
            var loopRange: LoopRange?
            var loopRangeReason: String?
        }
        var files: [File]
        var summary: Report.Summary
    }

    static func document(_ run: Run) throws -> Document {
        try JSONDecoder().decode(Document.self, from: Data(run.stdout.utf8))
    }

    /// stitch's report's reel: its one file, read as every report is read back.
    static func reel(_ run: Run) throws -> FileReport? {
        try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8)).files.first
    }

    /// Two folders each holding upload.mp4, fixed into one -o: refused before any work, naming both inputs and the
    /// output, whatever --jobs says; nothing is written.
    @Test(arguments: ["1", "2"])
    func twoInputsOfOneNameAreRefusedBeforeAnyWork(jobs: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (who, clip) in [("alice", "audio-longer.mp4"), ("bob", "video-longer.mp4")] {
            let folder = dir.appendingPathComponent("coll/\(who)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Run.fixture(clip), toPath: folder.appendingPathComponent("upload.mp4").path)
        }
        let run = try Run.loopprep(
            ["fix", "coll/alice", "coll/bob", "-o", "out/", "--jobs", jobs], in: dir)
        #expect(run.status == 64, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stderr.contains(
                "coll/alice/upload.mp4 and coll/bob/upload.mp4 would both be written to out/upload.mp4"),
            "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
        // Two file arguments of one name, a dry run, and loop: the same sentence, nothing written.
        for arguments in [
            ["fix", "coll/alice/upload.mp4", "coll/bob/upload.mp4", "-o", "out/"],
            ["fix", "coll/alice", "coll/bob", "-o", "out/", "--dry-run"],
            ["loop", "coll/alice", "coll/bob", "-o", "out/"],
        ] {
            let again = try Run.loopprep(arguments, in: dir)
            #expect(again.status == 64 && again.stderr.contains("would both be written to out/upload.mp4"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }

    /// A name a conversion makes clashes too (hero.ts becomes an MP4 beside hero.mp4), and so do web players;
    /// a file named twice is one input; a dry run prints where each input goes.
    @Test func clashesFoundFromEveryFileARunWrites() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("a"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: Run.fixture("clean.mp4"), toPath: dir.appendingPathComponent("a/hero.mp4").path)
        try fm.copyItem(atPath: Run.fixture("broadcast.ts"), toPath: dir.appendingPathComponent("a/hero.ts").path)
        try fm.copyItem(atPath: Run.fixture("vp9-opus.webm"), toPath: dir.appendingPathComponent("a/hero.webm").path)
        let converted = try Run.loopprep(["fix", "a/hero.mp4", "a/hero.ts", "-o", "out/"], in: dir)
        #expect(converted.status == 64)
        #expect(converted.stderr.contains("a/hero.mp4 and a/hero.ts would both be written to out/hero.mp4"))
        // hero.mp4 and hero.webm: different outputs, their web players named in full (no clash), both written.
        let web = try Run.loopprep(["fix", "a/hero.mp4", "a/hero.webm", "-o", "out/", "--web-player"], in: dir)
        #expect(web.status == 0, "\(web.stdout)\(web.stderr)")
        for name in ["hero.mp4", "hero.webm", "hero.mp4.html", "hero.webm.html"] {
            #expect(fm.fileExists(atPath: dir.appendingPathComponent("out/\(name)").path), "\(name)")
        }
        // stitch: its --html page where its web player's page goes.
        let stitch = try Run.loopprep(
            ["stitch", "a/hero.mp4", "a/hero.mp4", "-o", "s/reel.mp4", "--html", "s/reel.html", "--web-player"],
            in: dir)
        #expect(stitch.status == 64 && stitch.stderr.contains("would both be written to s/reel.html"))
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("s").path))
        // The same file twice: one input, one output; the dry run says where it goes.
        let twice = try Run.loopprep(["fix", "a/hero.mp4", "a/./hero.mp4", "-o", "dry/", "--dry-run"], in: dir)
        #expect(twice.stdout.contains("plan (dry run, nothing written) -> dry/hero.mp4"), "\(twice.stdout)")
        #expect(twice.stdout.components(separatedBy: "plan (dry run").count == 2)
    }

    /// After fix, `analyze OUT` finds exactly what fix's report said of that output: the same findings (rule,
    /// severity, track, message; the seam's included) and the same loop range, on every fixture fix writes.
    @Test func fixReportsWhatAnalyzeFindsOnEveryFixture() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let fixed = try Self.document(Run.loopprep(["fix", Run.fixtures.path, "-o", out, "--format", "json"]))
        let analyzed = try Self.document(Run.loopprep(["analyze", out, "--format", "json"]))
        let byPath = Dictionary(analyzed.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let written = fixed.files.filter { $0.fix?.status == .fixed || $0.fix?.status == .unchanged }
        #expect(written.count == fixed.summary.written && written.count > 90)
        #expect(written.count == analyzed.files.count)
        for file in written {
            let output = try #require(file.fix?.output)
            let truth = try #require(byPath[output], "\(output) not analyzed")
            #expect(file.facts?.path == output)
            #expect(file.findings == truth.findings, "\(output)")
            #expect(file.loopRange == truth.loopRange && file.loopRangeReason == truth.loopRangeReason, "\(output)")
        }
        // The seam is measured on every output (each has video or audio to measure), but ogmmerge's OGM copied byte
        // for byte, whose MPEG-4 FFmpeg 5.1 cannot decode: that is said instead.
        // (FFmpeg 9 decodes it.)
        let unmeasured = written.filter { $0.facts?.seam == nil }
        #expect(unmeasured.allSatisfy { ($0.path as NSString).lastPathComponent == "ogmmerge-mpeg4.ogm" })
        #expect(unmeasured.allSatisfy { $0.notes?.contains { $0.contains("the seam checks were skipped") } == true })
        // fix is idempotent: every output fixed again needs nothing, and is copied byte for byte.
        let again = dir.appendingPathComponent("again").path
        let refixed = try Self.document(Run.loopprep(["fix", out, "-o", again, "--format", "json"]))
        #expect(refixed.files.count == written.count)
        for file in refixed.files {
            let output = try #require(file.fix?.output, "\(file.path): \(file.fix?.reason ?? "")")
            #expect(file.fix?.status == .unchanged, "\(file.path): \(file.fix?.reason ?? "")")
            #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: output), "\(file.path)")
        }
    }

    /// The recipe: 4 s at 30 fps with B-frames over 3.997 s of 440 Hz. fix keeps 119 frames
    /// (3.9667 s, the audio's last whole frame) and the audio to that end: the sine (amplitude 1/8, lavfi's) then
    /// wraps from 0.125 x sin(2 pi x 440 x 119/30) = 0.108 back to 0, a click, which fix's report says as analyze
    /// does, with the note that the cut made it (the input's seam had no click).
    @Test func theSeamFixMakesIsReported() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep([
            "fix", Run.fixture("bframes-sine-3997.mp4"), "-o", dir.path, "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try #require(try Self.document(run).files.first)
        #expect(file.plan?.tracks.first { $0.kind == .video }?.presentedFrames == 119)
        let click = try #require(file.findings.first { $0.ruleID == .seamAudioClick })
        let expected = 0.125 * abs(sin(2 * Double.pi * 440 * 119 / 30))
        #expect(abs((file.facts?.seam?.audioJump?.max() ?? 0) - expected) < 0.01, "\(click.message)")
        #expect(file.notes?.contains { $0.contains("seam-audio-click, the input's had not") } == true)
        let analyzed = try Self.document(
            Run.loopprep(["analyze", dir.appendingPathComponent("bframes-sine-3997.mp4").path, "--format", "json"]))
        #expect(analyzed.files.first?.findings == file.findings)
        // --no-seam: not measured, said so, and what is reported is analyze --no-seam's.
        let quick = try Self.document(
            Run.loopprep([
                "fix", Run.fixture("bframes-sine-3997.mp4"), "-o", dir.appendingPathComponent("quick").path,
                "--no-seam", "--format", "json",
            ]))
        #expect(quick.files.first?.facts?.seam == nil)
        #expect(quick.files.first?.notes?.contains("the seam was not measured (--no-seam)") == true)
        #expect(quick.files.first?.findings.contains { $0.ruleID == .seamAudioClick } == false)
    }

    /// The output's facts and loop range, not the input's (item 3): `--keep video` on a designed loop of 90
    /// frames at 30000/1001 over 2.5 s of tone writes 3.003 s, and its range is all of it; the input's range (cut to
    /// the audio: 74 frames, 74 x 1001/30000 s) is labelled as the input's. A moov-at-end input's output is moov
    /// first, and nothing says its range needs a rewrite for it.
    @Test func theOutputsOwnRange() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try Self.document(
            Run.loopprep([
                "fix", Run.fixture("designed-loop.mp4"), "-o", dir.path, "--keep", "video", "--format", "json",
            ]))
        let file = try #require(json.files.first)
        #expect(file.loopRange?.start == "0" && file.loopRange?.duration == "3003/1000")
        #expect(file.fix?.inputLoopRange?.duration == "\(74 * 1001)/30000".reduced)
        let text = try Run.loopprep([
            "fix", Run.fixture("moov-at-end.mp4"), "-o", dir.appendingPathComponent("m").path,
        ]).stdout
        let lines = text.split(separator: "\n")
        let own = try #require(lines.first { $0.hasPrefix("  loop range: ") })
        #expect(!own.contains("moov-at-end"), "\(text)")
        #expect(
            lines.contains {
                $0.contains("the input's loop range (unwritten; its seam is measured on the output below)")
                    && $0.contains("moov-at-end")
            })
        #expect(text.contains("moov first"))
    }
}

extension WrittenReportTests {
    /// A loop range says what it makes. short-audio-designed.mp4: 90 frames at 30000/1001 whose
    /// brightness turns once over 3.003 s (0.25 x sin(2 pi t / 3.003)), over 2.5 s of 441 Hz at 44.1 kHz. The whole
    /// item loops cleanly (no seam finding); the range cut to the audio keeps 74 frames (2.469133 s), whose last
    /// frame is a quarter-turn of brightness from the first, and whose tone stops at 441 x 2.469133 = 1088.89
    /// cycles: 0.125 x |sin(2 pi x 0.889)| = 0.080 of full scale from where it restarts. Both remain; the note
    /// points to fix --keep video; fix's own cut (the range, written) finds the same two.
    @Test func aRangeSaysTheSeamItMakes() throws {
        let clip = Run.fixture("short-audio-designed.mp4")
        let whole = try Self.document(Run.loopprep(["analyze", clip, "--format", "json"]))
        let file = try #require(whole.files.first)
        #expect(!file.findings.contains { $0.ruleID == .seamVisualJump || $0.ruleID == .seamAudioClick })
        let range = try #require(file.loopRange)
        #expect(range.duration == "\(74 * 1001)/30000".reduced)
        #expect(range.remains == ["seam-audio-click", "seam-visual-jump"])
        #expect(range.cures == ["video-longer-than-audio"])
        #expect(range.note?.contains("loopprep fix --keep video") == true)
        // --format ranges exits by what the range leaves: its seam warnings, not the error it cures.
        let ranges = try Run.loopprep(["analyze", clip, "--format", "ranges"])
        #expect(ranges.status == 0 && ranges.stdout.contains(#""remains":["seam-audio-click","seam-visual-jump"]"#))
        #expect(try Run.loopprep(["analyze", clip, "--format", "ranges", "--fail-on", "warning"]).status == 1)
        // The range written by fix: the same seam, measured on the file by analyze.
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixed = try #require(
            try Self.document(Run.loopprep(["fix", clip, "-o", dir.path, "--format", "json"])).files.first)
        #expect(fixed.plan?.tracks.first { $0.kind == .video }?.presentedFrames == 74)
        let rules = fixed.findings.filter { $0.severity != .info }.map(\.rule).sorted()
        #expect(rules == range.remains)
        let jump = try #require(fixed.facts?.seam?.audioJump?.max())
        #expect(abs(jump - 0.125 * abs(sin(2 * Double.pi * 441 * 2.469_133))) < 0.01, "\(jump)")
        // A clip whose range is all of it keeps the clip's own seam and adds no note.
        let clean = try #require(
            try Self.document(Run.loopprep(["analyze", Run.fixture("clean.mp4"), "--format", "json"])).files.first)
        #expect(clean.loopRange?.note == nil && clean.loopRange?.remains == [])
    }
}

extension WrittenReportTests {
    /// One end for stitch: a dry run refuses what the write refuses, in the same sentence (a WebM
    /// of AAC clips; VP9 clips into an MP4 for the Apple target), and nothing is written either way; a written
    /// output's report is what analyze finds in it, its seam measured.
    @Test func stitchDryRunRefusesWhatTheWriteRefuses() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (clip, name) in [("clean.mp4", "reel.webm"), ("vp9-opus.webm", "reel.mp4")] {
            let arguments = [
                "stitch", Run.fixture(clip), Run.fixture(clip), "-o", dir.appendingPathComponent(name).path,
            ]
            let dry = try Run.loopprep(arguments + ["--dry-run"])
            let wet = try Run.loopprep(arguments)
            let said = { (run: Run) in run.stdout.split(separator: "\n").first { $0.hasPrefix("NOT WRITTEN: ") } }
            #expect(dry.status == 1 && wet.status == 1, "\(dry.stdout)\(wet.stdout)")
            #expect(said(dry) != nil && said(dry) == said(wet), "\(dry.stdout)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path))
        }
        let reel = dir.appendingPathComponent("reel-ok.mp4").path
        let stitched = try Run.loopprep([
            "stitch", Run.fixture("bframes-sine-3997.mp4"), Run.fixture("clean.mp4"), "-o", reel, "--format", "json",
            "--normalize",
        ])
        #expect(stitched.status == 0, "\(stitched.stderr)")
        let report = try #require(try Self.reel(stitched))
        let analyzed = try Self.document(Run.loopprep(["analyze", reel, "--format", "json"]))
        #expect(report.facts?.seam != nil)
        #expect(report.findings == analyzed.files.first?.findings)
        // Its loop range too, as analyze gives it.
        #expect(report.loopRange == analyzed.files.first?.loopRange)
        #expect(report.loopRangeReason == analyzed.files.first?.loopRangeReason)
    }

    /// stitch --no-seam, as analyze's and fix's: the reel's seam is not measured, the report says so, and what it
    /// reports is analyze --no-seam's. Two different clips make a reel whose last frame is not its first: measured,
    /// its seam is a visual jump.
    @Test func stitchNoSeamDescribesTheReelAsAnalyzeNoSeam() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = [Run.fixture("h264-gop10-a.mp4"), Run.fixture("h264-gop10-b.mp4")]
        let measured = dir.appendingPathComponent("measured.mp4").path
        let run = try Run.loopprep(["stitch"] + clips + ["-o", measured, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let full = try #require(try Self.reel(run))
        #expect(full.facts?.seam != nil && full.findings.contains { $0.ruleID == .seamVisualJump })
        #expect(full.notes == nil)
        let quick = dir.appendingPathComponent("quick.mp4").path
        let unmeasured = try Run.loopprep(["stitch"] + clips + ["-o", quick, "--no-seam", "--format", "json"])
        #expect(unmeasured.status == 0, "\(unmeasured.stderr)")
        let report = try #require(try Self.reel(unmeasured))
        #expect(report.facts?.seam == nil)
        #expect(report.notes == ["the seam was not measured (--no-seam)"])
        let analyzed = try Self.document(Run.loopprep(["analyze", quick, "--no-seam", "--format", "json"]))
        #expect(report.findings == analyzed.files.first?.findings)
        #expect(!report.findings.contains { $0.ruleID == .seamVisualJump })
        // The text says it too; --html draws the seam, so it needs it.
        let text = try Run.loopprep(["stitch"] + clips + ["-o", quick, "-y", "--no-seam"])
        #expect(text.stdout.contains("  note: the seam was not measured (--no-seam)"), "\(text.stdout)")
        // The two one-second clips (30 frames at 30 fps, 48000 samples each) make a two-second reel that loops whole.
        #expect(text.stdout.contains("  loop range: 0.000-2.000 s (start 0, duration 2 s"), "\(text.stdout)")
        let html = try Run.loopprep(["stitch"] + clips + ["-o", quick, "-y", "--no-seam", "--html", "r.html"])
        #expect(html.status == 64 && html.stderr.contains("--html draws the reel's seam: drop --no-seam"))
    }
}

/// The pre-commit hook checks what loopprep takes as media, in any case: a phone's
/// IMG_0042.MOV and CLIP.MP4 were never checked and the commit passed.
@Suite struct PreCommitHookTests {
    @Test func theHookMatchesMediaInAnyCase() throws {
        let hook = try String(
            contentsOf: Run.repository.appendingPathComponent(".pre-commit-hooks.yaml"), encoding: .utf8)
        let line = try #require(hook.split(separator: "\n").first { $0.hasPrefix("  files: ") })
        let pattern = String(line.dropFirst("  files: ".count))
        // pre-commit matches `files` with Python's re.search.
        let names = ["IMG_0042.MOV", "CLIP.MP4", "a/b/take.Mkv", "song.flac", "notes.txt", "mp4.txt", "x.mp4.bak"]
        let matched = try Run.tool(
            [
                "python3", "-c",
                "import re, sys; print(' '.join(n for n in sys.argv[2:] if re.search(sys.argv[1], n)))", pattern,
            ] + names)
        #expect(
            matched.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == "IMG_0042.MOV CLIP.MP4 a/b/take.Mkv song.flac")
        // Exactly the extensions a folder search takes as media.
        let listed = try #require(pattern.split(separator: "(").last?.split(separator: ")").first)
        #expect(Set(listed.split(separator: "|").map(String.init)) == Inputs.mediaExtensions)
    }
}

extension String {
    /// "74074/30000" in lowest terms, as the report writes a rational.
    fileprivate var reduced: String {
        let parts = split(separator: "/").compactMap { Int64($0) }
        var (a, b) = (parts[0], parts[1])
        while b != 0 { (a, b) = (b, a % b) }
        return "\(parts[0] / a)/\(parts[1] / a)"
    }
}
