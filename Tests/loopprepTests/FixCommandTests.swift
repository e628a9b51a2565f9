import Foundation
import LoopAnalysis
import TestSupport
import Testing

@Suite struct FixCommandTests {
    static func checksum(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func fixesAFolderKeepingRelativePathsAndLeavesInputsAlone() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let input = work.appendingPathComponent("in/sub")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for f in ["audio-longer.mp4", "moov-at-end.mp4"] {
            try FileManager.default.copyItem(atPath: Run.fixture(f), toPath: input.appendingPathComponent(f).path)
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: input.path).sorted().map {
            try Self.checksum(input.appendingPathComponent($0).path)
        }
        let out = work.appendingPathComponent("out")
        let run = try Run.loopprep(["fix", work.appendingPathComponent("in").path, "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("fixed -> \(out.path)/sub/audio-longer.mp4"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("sub/moov-at-end.mp4").path))
        let after = try FileManager.default.contentsOfDirectory(atPath: input.path).sorted().map {
            try Self.checksum(input.appendingPathComponent($0).path)
        }
        #expect(before == after)
        // No temporary file is left anywhere.
        let all = FileManager.default.enumerator(atPath: work.path)?.allObjects as? [String] ?? []
        #expect(!all.contains { $0.contains(".loopprep-") })
        // And the outputs analyze clean.
        #expect(try Run.loopprep(["analyze", "--no-seam", "--fail-on", "warning", out.path]).status == 0)
    }

    /// One clip and an -o naming a media file: `fix one.mov -o one-fixed.mov` writes that file
    /// (it made a folder of that name); an -o without a media extension is still a folder.
    @Test func oneClipToANamedFile() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("one-fixed.mp4").path
        let run = try Run.loopprep(["fix", Run.fixture("audio-longer.mp4"), "-o", file])
        #expect(run.status == 0, "\(run.stderr)")
        var isDirectory: ObjCBool = true
        #expect(FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) && !isDirectory.boolValue)
        let folder = work.appendingPathComponent("out")
        #expect(try Run.loopprep(["fix", Run.fixture("audio-longer.mp4"), "-o", folder.path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("audio-longer.mp4").path))
    }

    /// 29.97 fps with 44.1 kHz audio repeated (fixtures/make-fixtures.sh: 60 frames over 88288
    /// samples, a loop of 88288.2): --loops 3 and --unroll 5 (three loops reach 5 s) write 180 frames over
    /// 3 x 88288.2 = 264864.6, so 264865 samples (the fraction spread over the repeats), and every join verifies
    /// (they were refused over loopprep's own output, 0.6 samples off); the dry run says it would write.
    @Test(arguments: [["--loops", "3"], ["--unroll", "5"]])
    func ntscAt44kRepeatsExactly(repeat: [String]) throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let dry = try Run.loopprep(["fix", Run.fixture("ntsc-44k.mp4"), "--dry-run", "-o", work.path] + `repeat`)
        #expect(dry.status == 0 && !dry.stdout.contains("NOT FIXED"), "\(dry.stdout)")
        let run = try Run.loopprep(["fix", Run.fixture("ntsc-44k.mp4"), "-o", work.path] + `repeat`)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let out = work.appendingPathComponent("ntsc-44k.mp4").path
        let frames = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", out,
        ])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "180")
        let samples = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts", "-of", "csv=p=0",
            out,
        ])
        #expect(samples.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "264865")
    }

    /// A file right but for its movie clock (fixtures/make-fixtures.sh): 62 frames at 29.97 fps
    /// over 62 x 1601.6 = 99299 samples, whose edits say 2069 ms on a clock of 1000, which FFmpeg reads to the end.
    /// fix exits 0 with the edits on an exact clock (FFmpeg then reads 62 x 1001 = 62062 ticks of 1/30000 and
    /// 99299 samples), and a second fix copies that unchanged.
    @Test func aFileRightButForItsMovieClockIsWrittenExactly() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let once = work.appendingPathComponent("once").path
        let run = try Run.loopprep(["fix", Run.fixture("ntsc-62-frames-ms-clock.mp4"), "-o", once])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let written = once + "/ntsc-62-frames-ms-clock.mp4"
        let lengths = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "stream=time_base,duration_ts", "-of", "csv=p=0", written,
        ])
        #expect(lengths.stdout.split(separator: "\n") == ["1/30000,62062", "1/48000,99299"], "\(lengths.stdout)")
        let twice = try Run.loopprep(["fix", written, "-o", work.appendingPathComponent("twice").path])
        #expect(twice.status == 0 && twice.stdout.contains("already clean: copied unchanged"), "\(twice.stdout)")
    }

    @Test func inPlaceReplacesOnlyAfterVerification() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let good = work.appendingPathComponent("video-longer.mp4").path
        let gap = work.appendingPathComponent("audio-hole.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("video-longer.mp4"), toPath: good)
        try FileManager.default.copyItem(atPath: Run.fixture("audio-hole.mp4"), toPath: gap)
        let gapBefore = try Self.checksum(gap)
        let run = try Run.loopprep(["fix", "--in-place", good, gap])
        // The gap cannot be repaired losslessly: reported, exit 1, its file untouched; the other is replaced.
        #expect(run.status == 1)
        #expect(run.stdout.contains("NOT FIXED: audio track 1 (aac) has a hole of 213.500 ms at 0.640 s"))
        #expect(try Self.checksum(gap) == gapBefore)
        #expect(try Self.checksum(good) != (try Self.checksum(Run.fixture("video-longer.mp4"))))
        #expect(try Run.loopprep(["analyze", "--no-seam", good]).status == 0)
    }

    /// fix exits by what it did: a WebM written and verified exits 0 though the default (apple)
    /// target cannot play WebM, which the report still says; --fail-on error makes that finding fail the run,
    /// and a dry run's exit code describes the input as analyze's does.
    @Test func aGoodFixExitsZeroWhateverTheTargetSays() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture("vp9-opus.webm"), "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("[not-playable-on-target]"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("vp9-opus.webm").path))
        let strict = try Run.loopprep([
            "fix", Run.fixture("vp9-opus.webm"), "-o", dir.path, "--fail-on", "error", "--force",
        ])
        #expect(strict.status == 1)
        let dry = try Run.loopprep(["fix", Run.fixture("vp9-opus.webm"), "--dry-run"])
        #expect(dry.status == 1)
    }

    @Test func neverWritesOverAnInput() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("audio-longer.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("audio-longer.mp4"), toPath: file)
        let before = try Self.checksum(file)
        let run = try Run.loopprep(["fix", file, "-o", work.path])
        // An output that cannot be written exits 1 in every command (it was 2 here, 1 in stitch).
        #expect(run.status == 1)
        #expect(run.stderr.contains("the output would overwrite the input"))
        #expect(try Self.checksum(file) == before)
    }

    /// An output that exists is replaced only with --force (-y), as in stitch and loop: the second fix into the
    /// same folder writes nothing, says so in one line naming the file and the remedy, and exits 1.
    @Test func anExistingOutputIsReplacedOnlyWithForce() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        #expect(try Run.loopprep(["fix", Run.fixture("audio-longer.mp4"), "-o", out.path]).status == 0)
        let written = out.appendingPathComponent("audio-longer.mp4").path
        try Data("not a clip".utf8).write(to: URL(fileURLWithPath: written))
        let again = try Run.loopprep(["fix", Run.fixture("audio-longer.mp4"), "-o", out.path])
        #expect(again.status == 1)
        #expect(
            again.stderr.contains(
                "\(written) exists and differs from what this run writes: --force (or -y) replaces it (nothing written)"
            ))
        #expect(try String(contentsOfFile: written, encoding: .utf8) == "not a clip")
        #expect(try Run.loopprep(["fix", Run.fixture("audio-longer.mp4"), "-o", out.path, "-y"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: written)).count > 1000)
    }

    /// B-frames muxed without an edit list at 29.97 fps over 44.1 kHz (make-fixtures.sh): the
    /// video is presented from 2002/30000 s, the audio's content from sample 2943, 0.06 of a sample later: a
    /// match, not a start inside the first frame (which cost it a frame, and every repeat). 60 frames of 1001/30000
    /// s are 2.002 s, 88288.2 samples: one pass presents 88288, three 264864.6 -> 264865, and --unroll 7 takes
    /// four (8.008 s: 353152.8 -> 353153), every frame kept. Over 2 s of audio the video ends inside a group of
    /// B-frames: repeating it is refused with the remedy, and --keep video repeats all 60 frames.
    @Test func bFramesWithoutAnEditListRepeatAt2997And44k() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        func counts(_ path: String) throws -> (frames: String, samples: String, starts: String) {
            let frames = try Run.tool([
                "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                "stream=nb_read_frames", "-of", "csv=p=0", path,
            ])
            let samples = try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts", "-of",
                "csv=p=0", path,
            ])
            let starts = try Run.tool([
                "ffprobe", "-v", "error", "-show_entries", "stream=start_time", "-of", "csv=p=0", path,
            ])
            func trimmed(_ run: Run) -> String { run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
            return (trimmed(frames), trimmed(samples), trimmed(starts).replacingOccurrences(of: "\n", with: " "))
        }
        let clip = Run.fixture("bframes-no-edits-2997-44k.mp4")
        for (options, frames, samples) in [
            ([String](), "60", "88288"), (["--loops", "3"], "180", "264865"), (["--unroll", "7"], "240", "353153"),
        ] {
            let out = work.appendingPathComponent(options.joined()).path
            let dry = try Run.loopprep(["fix", clip, "--dry-run", "-o", out] + options)
            #expect(!dry.stdout.contains("NOT FIXED") && dry.stdout.contains("unchanged; presents 2002.000 ms"))
            let run = try Run.loopprep(["fix", clip, "-o", out] + options)
            #expect(run.status == 0, "\(options): \(run.stdout)\(run.stderr)")
            let got = try counts(out + "/bframes-no-edits-2997-44k.mp4")
            #expect(got.frames == frames && got.samples == samples, "\(options): \(got)")
            #expect(got.starts == "0.000000 0.000000", "\(options): \(got)")
        }
        let short = Run.fixture("bframes-no-edits-2997-44k-short.mp4")
        let dry = try Run.loopprep(["fix", short, "--loops", "3", "--dry-run", "-o", work.path])
        #expect(dry.stdout.contains("NOT FIXED") && dry.stdout.contains("--keep video keeps every frame"))
        let refused = try Run.loopprep(["fix", short, "--loops", "3", "-o", work.appendingPathComponent("r").path])
        #expect(refused.status == 1 && refused.stdout.contains("--keep video keeps every frame"))
        let kept = work.appendingPathComponent("kept").path
        let keep = try Run.loopprep(["fix", short, "--loops", "3", "--keep", "video", "-o", kept])
        #expect(keep.status == 0, "\(keep.stdout)\(keep.stderr)")
        let got = try counts(kept + "/bframes-no-edits-2997-44k-short.mp4")
        #expect(got.frames == "180" && got.samples == "264865", "\(got)")
    }

    /// A designed loop fix made worse (fixtures/make-fixtures.sh's designed-loop.mp4): 90 frames
    /// at 30000/1001 fps (3.003 s) of a grating that moves one period in 90 frames, over 2.5 s of a tone. fix cuts
    /// the picture to the audio, floor(2.5 x 30000 / 1001) = 74 frames, and says the loop point is now a cut (a
    /// warning: exit 0). `--keep video` keeps the 90 frames and pads the tone with silence to 3.003 x 48000 =
    /// 144144 samples, as FFmpeg reads its edit list; `--drop-audio` keeps the 90 frames and no audio.
    @Test func aDesignedLoopIsKeptWhole() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = Run.fixture("designed-loop.mp4")
        func frames(_ path: String) throws -> String {
            try Run.tool([
                "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                "stream=nb_read_frames", "-of", "csv=p=0", path,
            ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func decoded(_ path: String) throws -> [Float] {
            let raw = try Subprocess.tool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-"]).out
            return raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }

        let cut = try Run.loopprep(["fix", source, "-o", work.appendingPathComponent("cut").path])
        #expect(cut.status == 0, "\(cut.stdout)\(cut.stderr)")
        #expect(cut.stdout.contains("fix's cut made the loop worse"), "\(cut.stdout)")
        #expect(cut.stdout.contains("[seam-visual-jump]") && cut.stdout.contains("--keep video"))
        #expect(try frames(work.appendingPathComponent("cut/designed-loop.mp4").path) == "74")

        let kept = work.appendingPathComponent("kept/designed-loop.mp4").path
        let keep = try Run.loopprep(["fix", source, "--keep", "video", "-o", work.appendingPathComponent("kept").path])
        #expect(keep.status == 0, "\(keep.stdout)\(keep.stderr)")
        #expect(!keep.stdout.contains("made the loop worse") && !keep.stdout.contains("[seam-"), "\(keep.stdout)")
        #expect(try frames(kept) == "90")
        // The edit list's length (FFmpeg's reading of it); its decoder plays the last AAC frame whole.
        let length = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts", "-of", "csv=p=0",
            kept,
        ])
        #expect(length.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "144144")
        let samples = try decoded(kept)
        #expect(samples.count >= 144144)
        // The tone plays to 2.5 s; from 2.6 s (past the AAC frame that holds the end) to the presented end, silence.
        // The audio is coded as the loop it plays as, so its last frame is coded beside the loop's start, the tone:
        // an AAC frame's pre-echo of it (under -60 dBFS) is the wrap sounding as a silence-to-tone step does inside.
        // (What FFmpeg's CLI decodes past the edit's end is not shown.)
        #expect(samples[124800..<(144144 - 1024)].allSatisfy { abs($0) < 1e-4 })
        #expect(samples[(144144 - 1024)..<144144].allSatisfy { abs($0) < 1e-3 })
        #expect(samples[48000..<96000].contains { abs($0) > 0.1 })
        let again = try Run.loopprep(["analyze", kept])
        #expect(again.status == 0 && again.stdout.contains("1 clean"), "\(again.stdout)")

        let muted = work.appendingPathComponent("muted/designed-loop.mp4").path
        let drop = try Run.loopprep(["fix", source, "--drop-audio", "-o", work.appendingPathComponent("muted").path])
        #expect(drop.status == 0, "\(drop.stdout)\(drop.stderr)")
        #expect(drop.stdout.contains("track 1: dropped (--drop-audio)"))
        #expect(try frames(muted) == "90")
        let streams = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", muted,
        ])
        #expect(streams.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "video")

        let both = try Run.loopprep(["fix", source, "--keep", "video", "--drop-audio", "-o", work.path])
        #expect(both.status == 64)
    }

    @Test func dryRunPrintsThePlanAndWritesNothing() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try Run.loopprep(["fix", "--dry-run", Run.fixture("audio-longer.mp4"), "-o", work.path])
        // A dry run reports the inputs: their error finding sets exit 1, as analyze would.
        #expect(run.status == 1)
        #expect(run.stdout.contains("audio 1 (aac): trims 500.000 ms = 24000 samples at the end"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
    }

    @Test func badInputAndUnwritableOutputAreOneLineErrors() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try Run.loopprep([
            "fix", Run.fixture("zero-bytes.mp4"), Run.fixture("audio-longer.mp4"), "-o", work.path,
        ])
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.contains { $0.contains("zero-bytes.mp4: error: [unreadable] open: empty file (0 bytes)") })
        #expect(run.stdout.contains("fixed -> \(work.path)/audio-longer.mp4"))
        // A regular file in the way of the output folder: one line before any work.
        let blocker = work.appendingPathComponent("blocker")
        try "x".write(to: blocker, atomically: true, encoding: .utf8)
        let blocked = try Run.loopprep(["fix", Run.fixture("audio-longer.mp4"), "-o", blocker.path + "/site"])
        #expect(blocked.status == 1)
        #expect(
            blocked.stderr
                == """
                loopprep: error: cannot create the output folder \(blocker.path)/site: \(blocker.path) is a file, in \
                the way; nothing done\n
                """)
    }

    @Test func jsonReportCarriesThePlanAndTheOutput() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try Run.loopprep(["fix", "--format", "json", Run.fixture("video-longer.mp4"), "-o", work.path])
        #expect(run.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(json["command"] as? String == "fix")
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        let outcome = try #require(file["outcome"] as? [String: Any])
        #expect(outcome["status"] as? String == "written")
        #expect(outcome["output"] as? String == work.appendingPathComponent("video-longer.mp4").path)
        #expect((file["fix"] as? [String: Any])?["status"] as? String == "fixed")
        // The plan where every command's report has it (and loop's): the file's, not fix's.
        let plan = try #require(file["plan"] as? [String: Any])
        #expect(plan["duration"] as? String == "1" && (file["fix"] as? [String: Any])?["plan"] == nil)
    }

    @Test func aFailedRepairIsAJUnitFailureAndAnAnnotation() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let junit = try Run.loopprep(["fix", "--format", "junit", Run.fixture("audio-hole.mp4"), "-o", work.path])
        #expect(junit.status == 1)
        // (The hole is the plan's to refuse, before anything is written: a dry run says the same.)
        #expect(
            junit.stdout.contains("<failure type=\"fix-failed\" message=\"audio track 1 (aac) has a hole of 213.500 ms")
        )
        #expect(
            junit.stderr.contains("audio-hole.mp4: error: [fix-failed] audio track 1 (aac) has a hole of 213.500 ms"))
        let dry = try Run.loopprep(["fix", "--dry-run", Run.fixture("audio-hole.mp4"), "-o", work.path])
        #expect(dry.status == 1 && dry.stdout.contains("NOT FIXED: audio track 1 (aac) has a hole of 213.500 ms"))
        let github = try Run.loopprep(["fix", "--format", "github", Run.fixture("audio-hole.mp4"), "-o", work.path])
        #expect(github.stdout.contains("::error file=\(Run.fixture("audio-hole.mp4")),title=loopprep fix-failed::"))
    }

    @Test func usage() throws {
        #expect(try Run.loopprep(["fix", Run.fixture("clean.mp4")]).status == 64)
        #expect(try Run.loopprep(["fix", "--in-place", "-o", "/tmp", Run.fixture("clean.mp4")]).status == 64)
    }
}

@Suite struct InterruptTests {
    /// SIGINT and SIGTERM mid-write: no partial output, no temporary file, input unchanged, exit 128+signal.
    @Test(arguments: [SIGINT, SIGTERM])
    func signalLeavesNothingBehind(signal: Int32) throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let input = work.appendingPathComponent("clean.mp4")
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: input.path)
        let before = try Data(contentsOf: input)
        let out = work.appendingPathComponent("out")
        // A long job: 3000 copies, audio re-encoded as one stream. The signal lands once the temporary exists.
        let process = try Run.start(["fix", input.path, "--loops", "3000", "-o", out.path])
        let writing = Run.wait(for: out, while: process) { $0.contains { $0.contains(".loopprep-") } }
        try #require(writing, "the run ended before its temporary file appeared: the signal had nothing to interrupt")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        #expect(left.isEmpty, "\(left)")
        #expect(try Data(contentsOf: input) == before)
    }

    /// A signal mid-batch: the file already written stays whole, the one being written leaves nothing, the rest
    /// are not started, inputs are unchanged, and a re-run completes the batch.
    @Test(arguments: [SIGINT, SIGTERM])
    func signalMidBatchThenReRun(signal: Int32) throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let inputs = try Run.copies(of: "video-longer.mp4", ["a", "b", "c"], in: work)
        let before = try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let out = work.appendingPathComponent("out")
        let said = Pipe()
        let process = try Run.start(["fix", "--loops", "100", "--jobs", "1", "-o", out.path] + inputs, stderr: said)
        // Once a.mp4 is in place and b.mp4's temporary is being written.
        let midway = Run.wait(for: out, while: process) {
            $0.contains("a.mp4") && $0.contains { $0.contains("b.mp4.loopprep-") }
        }
        try #require(midway, "the run never had a.mp4 written and b.mp4 being written: no signal could land mid-batch")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal)
        // It says what it did (it said nothing).
        let message = String(decoding: said.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("loopprep: interrupted: 1 of 3 written, nothing partial left"), "\(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["a.mp4"])
        #expect(try Run.loopprep(["analyze", "--no-seam", out.appendingPathComponent("a.mp4").path]).status == 0)
        #expect(try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // The re-run completes the batch; a.mp4, already written as this run writes it, is kept and counted.
        let again = try Run.loopprep(["fix", "--loops", "100", "-o", out.path] + inputs)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("kept -> \(out.path)/a.mp4"))
        #expect(again.stdout.contains("3 files: 3 written, 0 not fixed"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["a.mp4", "b.mp4", "c.mp4"])
        #expect(try Run.loopprep(["fix", "--loops", "100", "-y", "-o", out.path] + inputs).status == 0)
    }
}

/// `fix --to mp4|mov`: a Matroska recording written as MP4 or MOV, whose edit lists say what Matroska cannot.
@Suite struct ConvertToTests {
    /// ffprobe's reading: per stream, codec, start, duration and decoded frame count.
    static func streams(_ path: String) throws -> [(codec: String, start: Double, duration: Double, frames: Int)] {
        try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-show_entries",
            "stream=codec_name,start_time,duration,nb_read_frames",
            "-of", "csv=p=0", path,
        ]).stdout.split(separator: "\n").map { line in
            let p = line.split(separator: ",").map(String.init)
            return (p[0], Double(p[1]) ?? -1, Double(p[2]) ?? -1, Int(p[3]) ?? -1)
        }
    }

    /// mkv-video-late.mkv: 1 s of 30 fps video starting 0.2 s into 1.2 s of 48 kHz AAC, whose frames (21.3 ms)
    /// do not start with the video. Kept in Matroska, which cannot start inside one, the audio starts on the frame
    /// nearest the video's start, moved under half a frame; --to mp4 cuts it to the sample.
    @Test func matroskaThatCannotStartAACMidFrameSaysSoAndMP4Can() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Run.fixture("mkv-video-late.mkv")
        let before = try FixCommandTests.checksum(source)
        let keptDir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: keptDir) }
        let kept = try Run.loopprep(["fix", "--no-config", source, "-o", keptDir.path])
        #expect(kept.status == 0, "\(kept.stdout)")
        #expect(kept.stdout.contains("Matroska cannot start AAC inside a frame: starts on the frame nearest"))
        let matroska = keptDir.appendingPathComponent("mkv-video-late.mkv").path
        let inMatroska = try Self.streams(matroska)
        #expect(inMatroska.count == 2 && inMatroska[0].frames == 30 && abs(inMatroska[1].start) <= 0.001)
        // The audio decoded: the video's second to Matroska's millisecond (48 samples).
        let decoded =
            try Subprocess.tool(
                "ffmpeg", ["-v", "error", "-i", matroska, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"]
            ).out.count / 2
        #expect(abs(decoded - 48000) <= 48, "\(decoded) samples")

        let run = try Run.loopprep(["fix", "--no-config", "--to", "mp4", source, "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("note: --to mp4: writes mkv-video-late.mp4 (MP4) beside it"))
        let out = dir.appendingPathComponent("mkv-video-late.mp4").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["mkv-video-late.mp4"])
        // Every frame made, starting at 0, and the audio cut to the video's second: 48000 samples.
        let s = try Self.streams(out)
        #expect(s.count == 2 && s[0].codec == "h264" && s[1].codec == "aac")
        #expect(s[0].frames == 30 && s[0].start == 0 && s[0].duration == 1.0)
        #expect(s[1].start == 0 && s[1].duration == 1.0, "\(s)")
        // Already right: fixing it again changes nothing.
        let again = try Run.loopprep(["fix", "--no-config", "--dry-run", "--format", "json", out])
        let report = try JSONDecoder().decode(Report.self, from: Data(again.stdout.utf8))
        #expect(report.files.first?.fix?.plan?.isNoop == true && report.files.first?.findings == [])
        #expect(try FixCommandTests.checksum(source) == before)
    }

    /// --to across the ISO family, found by fixing every fixture so: each written as it plans or refused by the plan,
    /// never after writing. ctts-priming.m4a (fixtures/make-fixtures.sh: 1024 samples of priming marked by a
    /// composition offset, then 162496 of content) as a MOV: its packets on the timeline that drops the offsets,
    /// the edit hiding the priming, every content sample the input's from its 1024th (the same packets, one
    /// decoder: exact). tiny-2x2-mp3.mp4's MP3 (tagged mp4a) and mjpeg-aac.mov's Motion JPEG (tagged jpeg) in the
    /// other container take its own tag (the muxer refused them, "invalid data"). rec-opus.m4a's Opus has no place
    /// in a MOV (FFmpeg's MOV muxer knows the tag and refuses it at its header): refused by the plan, the dry run
    /// too. mkv-attachments.mkv's cover has none either (FFmpeg's MOV muxer writes no covr): named as left out.
    @Test func acrossTheISOFamilyAsPlanned() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ctts = try Run.loopprep([
            "fix", "--no-config", "--to", "mov", Run.fixture("ctts-priming.m4a"), "-o", dir.path,
        ])
        #expect(ctts.status == 0, "\(ctts.stdout)")
        let decode = { (path: String) throws -> [Float] in
            try Subprocess.tool("ffmpeg", ["-v", "error", "-i", path, "-f", "f32le", "-ac", "1", "-"]).out
                .withUnsafeBytes {
                    Array($0.bindMemory(to: Float.self))
                }
        }
        let input = try decode(Run.fixture("ctts-priming.m4a"))
        let output = try decode(dir.appendingPathComponent("ctts-priming.mov").path)
        #expect(output.count >= 162_496 && input.count >= 1024 + 162_496)
        #expect(Array(output.prefix(162_496)) == Array(input[1024..<(1024 + 162_496)]))
        for (name, to) in [("tiny-2x2-mp3.mp4", "mov"), ("mjpeg-aac.mov", "mp4")] {
            let run = try Run.loopprep(["fix", "--no-config", "--to", to, Run.fixture(name), "-o", dir.path])
            #expect(run.status == 0, "\(name): \(run.stdout)")
        }
        for dry in [["--dry-run"], []] {
            let opus = try Run.loopprep(
                ["fix", "--no-config", "--to", "mov", Run.fixture("rec-opus.m4a"), "-o", dir.path] + dry)
            #expect(opus.status == 1)
            #expect(
                opus.stdout.contains("--to mov: FFmpeg's MOV muxer does not take this file's opus"), "\(opus.stdout)")
        }
        let cover = try Run.loopprep([
            "fix", "--no-config", "--to", "mov", Run.fixture("mkv-attachments.mkv"), "-o", dir.path, "--dry-run",
        ])
        #expect(cover.stdout.contains("cover.png"), "\(cover.stdout)")
        #expect(cover.stdout.contains("left out") || cover.stdout.contains("leaves out"), "\(cover.stdout)")
    }

    /// A fragmented MP4 converted (`--to mov`, written by FFmpeg's MOV muxer). Read in raw media time, FFmpeg's
    /// demuxer gives a fragment's packets no length, and the muxer ended each track with a last sample of none: the
    /// audio cut to the picture's second (cmaf-sidx.mp4, fixtures/make-fixtures.sh: 30 frames at 30 fps over 1.52 s
    /// of 48 kHz AAC) stopped 896 samples before its edit's end, and the output was refused by its own check. Each
    /// track's samples (stts, read here by MiniBox) last to its edit's end: the 1024 samples of priming the edit
    /// hides and the second it presents (48000 samples), none of no length; the 30 frames all kept.
    @Test(arguments: ["cmaf-sidx.mp4", "fragmented.mp4", "fragmented-separate-moof.mp4", "hls-fmp4.mp4"])
    func aFragmentedMP4KeepsItsLastSamplesLengthInAMOV(file: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", "--no-config", "--to", "mov", Run.fixture(file), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)")
        let out = dir.appendingPathComponent((file as NSString).deletingPathExtension + ".mov").path
        guard let moov = try MiniBox.read(out).first(where: { $0.type == "moov" }) else {
            Issue.record("no moov in \(out)")
            return
        }
        let movie = Int64(moov.child("mvhd")?.timescale ?? 0)
        var kinds: [String] = []
        for trak in moov.all("trak") {
            let table = trak.path("mdia", "minf", "stbl", "stts")?.runs ?? []
            let kind = trak.path("mdia", "hdlr")?.handler ?? ""
            kinds.append(kind)
            #expect(table.allSatisfy { $0.delta > 0 }, "\(file) \(kind): \(table)")
            if kind == "vide" { #expect(table.reduce(0) { $0 + $1.count } == 30, "\(file): \(table)") }
            guard kind == "soun", let edit = trak.path("edts", "elst")?.edits.last, movie > 0 else { continue }
            let scale = Int64(trak.path("mdia", "mdhd")?.timescale ?? 0)
            let stored = table.reduce(Int64(0)) { $0 + Int64($1.count) * $1.delta }
            #expect(scale == 48000 && edit.mediaTime == 1024 && edit.duration * scale / movie == 48000)
            #expect(stored == edit.mediaTime + 48000, "\(file): \(table)")
        }
        #expect(kinds.sorted() == ["soun", "vide"], "\(file)")
    }

    /// A WebM's Opus written into an MP4 (`--to mp4`: a Chrome recording, `video/webm;codecs=h264,opus`, taken to
    /// Safari). The pre-skip the WebM's OpusHead says (libopus's 312 at 48 kHz in fixtures/make-fixtures.sh's) is the
    /// MP4's dOps PreSkip and its edit's media time; the edit presents the picture's second (30 frames at 30 fps:
    /// 48000 samples) and the stored samples (stts) last exactly to its end; FFmpeg decodes the output's 48000 as it
    /// decodes the WebM's first 48000, sample for sample (the same packets, one decoder); fixed again, it needs
    /// nothing. rec-h264-opus.webm (Chromium's MediaRecorder, fixtures/make-recordings.sh) starts at its second
    /// keyframe: its edit starts that far past the pre-skip, its stored samples lasting to the edit's end; with
    /// rec-av1-opus.webm, whose last frame ends a millisecond after its sound, the picture ends on the frame
    /// before (the shortest track sets the end, in the output's clock).
    @Test(arguments: [
        ("av1-opus.webm", 48000), ("vp9-opus.webm", 48000), ("rec-h264-opus.webm", 0), ("rec-av1-opus.webm", 0),
    ])
    func opusFromAWebMIsWrittenIntoAnMP4Exactly(file: String, presented: Int64) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", "--no-config", "--to", "mp4", Run.fixture(file), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)")
        let out = dir.appendingPathComponent((file as NSString).deletingPathExtension + ".mp4").path
        let moov = try #require(try MiniBox.read(out).first { $0.type == "moov" })
        let movie = Int64(moov.child("mvhd")?.timescale ?? 0)
        let sound = try #require(moov.all("trak").first { $0.path("mdia", "hdlr")?.handler == "soun" })
        let edit = try #require(sound.path("edts", "elst")?.edits.last)
        let entry = try #require(sound.path("mdia", "minf", "stbl", "stsd")?.payload)
        // (dOps: version, output channels, then PreSkip, big-endian.)
        let dOps = try #require(Array(entry).firstRange(of: Array("dOps".utf8)))
        let preSkip = Int64(entry[dOps.upperBound + 2]) << 8 | Int64(entry[dOps.upperBound + 3])
        // The WebM's OpusHead: its pre-skip at byte 10, little-endian.
        let webm = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.fixture(file))))
        let head = try #require(webm.firstRange(of: Array("OpusHead".utf8)))
        let given = Int64(webm[head.lowerBound + 10]) | Int64(webm[head.lowerBound + 11]) << 8
        #expect(preSkip == given && (presented == 0 || given == 312) && movie > 0, "\(file): \(preSkip), \(given)")
        let shown = edit.duration * 48000 / movie
        let stored = (sound.path("mdia", "minf", "stbl", "stts")?.runs ?? []).reduce(Int64(0)) {
            $0 + Int64($1.count) * $1.delta
        }
        #expect(stored == edit.mediaTime + shown, "\(file)")
        // Every track ends where the sound does, to the sample (an MP4 says times so, where the WebM said
        // milliseconds: rec-av1-opus.webm's last frame ended 1 ms past its Opus and was refused by the check).
        let ends = moov.all("trak").compactMap { $0.path("edts", "elst")?.edits.last?.duration }
        #expect(ends.count == 2 && Set(ends).count == 1, "\(file): \(ends)")
        if presented > 0 {
            #expect(edit.mediaTime == preSkip && shown == presented, "\(file): \(edit)")
            let decode = { (path: String) throws -> [Float] in
                try Subprocess.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "f32le", "-"]).out
                    .withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            }
            let (input, output) = (try decode(Run.fixture(file)), try decode(out))
            #expect(input.count >= Int(presented) && output.count >= Int(presented))
            #expect(Array(output.prefix(Int(presented))) == Array(input.prefix(Int(presented))), "\(file)")
        } else {
            #expect(edit.mediaTime > preSkip, "\(file): \(edit)")
        }
        let again = try Run.loopprep(["fix", "--no-config", "--dry-run", "--format", "json", out])
        let report = try JSONDecoder().decode(Report.self, from: Data(again.stdout.utf8))
        #expect(report.files.first?.fix?.plan?.isNoop == true, "\(file): \(again.stdout.prefix(400))")
    }

    @Test func movToo() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // obs.mkv: 1 s of video that Matroska puts 21 ms late (the AAC priming), 1.5 s of audio.
        let run = try Run.loopprep(["fix", "--no-config", "--to", "mov", Run.fixture("obs.mkv"), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)")
        let s = try Self.streams(dir.appendingPathComponent("obs.mov").path)
        #expect(
            s.count == 2 && s[0].frames == 30 && s[0].duration == 1.0 && s[1].duration == 1.0 && s[1].start == 0, "\(s)"
        )
    }

    /// --to across the ISO family: audio-longer.mp4 (1 s of 30 fps video over 1.5 s of 48 kHz
    /// AAC) remuxed by FFmpeg's mov muxer into a QuickTime-brand `.m4v`, fixed with --to mp4: an MP4 (file type
    /// isom, not "qt  ") named clip.mp4, its 30 frames and its audio cut to the video's second; never ignored in
    /// silence. clean.mp4 with --to mov: a QuickTime file. Fixing the MP4 again copies it byte for byte.
    @Test func aQuickTimeFileAskedForAsAnMP4IsOne() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.m4v").path
        #expect(
            try Run.tool([
                "ffmpeg", "-v", "error", "-i", Run.fixture("audio-longer.mp4"), "-c", "copy", "-f", "mov", clip,
            ]).status == 0)
        func brand(_ path: String) throws -> String {
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path))[8..<12], as: UTF8.self)
        }
        #expect(try brand(clip) == "qt  ")
        let out = dir.appendingPathComponent("out")
        let run = try Run.loopprep(["fix", "--no-config", "--to", "mp4", clip, "-o", out.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["clip.mp4"])
        let mp4 = out.appendingPathComponent("clip.mp4").path
        #expect(try brand(mp4) != "qt  ")
        let s = try Self.streams(mp4)
        #expect(s.count == 2 && s[0].frames == 30 && s[0].duration == 1.0 && s[1].duration == 1.0, "\(s)")
        // Already right: fixing it again copies it byte for byte.
        let again = try Run.loopprep(["fix", "--no-config", mp4, "-o", dir.appendingPathComponent("again").path])
        #expect(again.stdout.contains("already clean: copied unchanged"), "\(again.stdout)")
        let mov = try Run.loopprep([
            "fix", "--no-config", "--to", "mov", Run.fixture("clean.mp4"), "-o", dir.appendingPathComponent("m").path,
        ])
        #expect(mov.status == 0, "\(mov.stdout)")
        #expect(try brand(dir.appendingPathComponent("m/clean.mov").path) == "qt  ")
    }

    @Test func whatItCannotWriteIsRefusedByName() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep([
            "fix", "--no-config", "--to", "mp4", Run.fixture("ff-vp8-opus.webm"), "-o", dir.path,
        ])
        #expect(run.status == 1)
        #expect(
            run.stdout.contains(
                """
                NOT FIXED: convert: --to mp4: FFmpeg's MP4 muxer does not take this file's vp8; nothing written \
                (without --to it stays a WEBM)
                """
            ), "\(run.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        #expect(try Run.loopprep(["fix", "--to", "avi", Run.fixture("obs.mkv"), "--dry-run"]).status == 64)
    }
}

extension FixCommandTests {
    /// A track whose stored timing fix writes anew is not "unchanged" in its line: irregular-aac.mp4 (an RTMP
    /// recording remuxed: FLV's milliseconds as AAC durations) has stored durations other than the codec's 1024
    /// samples before its last packet (whose duration is what is left), as FFmpeg reads them; fix says it rewrites
    /// that many, on the audio's own line, and on a dry run's.
    @Test func aTrackWhoseDurationsAreRewrittenSaysSo() throws {
        let clip = Run.fixture("irregular-aac.mp4")
        let durations = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=duration", "-of", "csv=p=0",
            clip,
        ]).stdout.split(separator: "\n").compactMap { Int($0) }
        let odd = durations.dropLast().filter { $0 != 1024 }.count
        #expect(odd > 0)
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A dry run's exit code describes the input (its irregular-audio-durations warning: 1), a write's the output.
        for (arguments, status) in [(["--dry-run"], Int32(1)), (["-o", dir.path], 0)] {
            let run = try Run.loopprep(["fix", clip, "--no-seam"] + arguments)
            #expect(run.status == status, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("audio 1 (aac): rewrites \(odd) stored durations, "), "\(run.stdout)")
            #expect(run.stdout.contains("video 0 (h264): unchanged;"), "\(run.stdout)")
        }
    }
}

/// A clip repeated whose sound ends within the container's tick before its picture: fixtures/flac-mkvmerge-ms.mkv
/// (mkvmerge's millisecond stamps: 48 frames to 2.001 s over 2.000 s = 88200 samples of FLAC at 44.1 kHz). Each pass
/// is 2.001 s: 88244 samples, the last 44 silence, so the second pass starts with its picture. FLAC is lossless, so
/// FFmpeg's decoding of the output is the input's samples, 44 zeros, the input's samples, 44 zeros.
@Suite struct ShortPassTests {
    static func samples(_ path: String) throws -> [Int16] {
        let raw = try Subprocess.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "s16le", "-"]).out
        return raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    @Test func eachPassIsPaddedToItsPicture() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("flac-mkvmerge-ms.mkv")
        let run = try Run.loopprep(["fix", clip, "--loops", "2", "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("ends 44 samples (0.998 ms) before the picture, within the container's tick"))
        let input = try Self.samples(clip)
        let output = try Self.samples(dir.appendingPathComponent("flac-mkvmerge-ms.mkv").path)
        #expect(input.count == 88200 && output.count == 2 * 88244, "\(input.count), \(output.count)")
        guard output.count == 2 * 88244 else { return }
        let silence = [Int16](repeating: 0, count: 44)
        #expect(Array(output[0..<88200]) == input && Array(output[88200..<88244]) == silence)
        #expect(Array(output[88244..<176444]) == input && Array(output[176444...]) == silence)
    }
}
