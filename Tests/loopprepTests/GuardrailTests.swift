import Foundation
import TestSupport
import Testing

/// One set of guardrails in every command: what --version names, colour and NO_COLOR,
/// a finding printed once where stdout and stderr meet, `-`, and the reports `report` refuses to merge.
@Suite struct GuardrailTests {
    /// `--version` names the FFmpeg libraries it runs on: the same versions ffprobe reports for the libraries
    /// it loads (Debian's one FFmpeg).
    @Test func versionNamesTheFFmpegLibraries() throws {
        let run = try Run.loopprep(["--version"])
        #expect(run.status == 0)
        let probe = try Run.tool(["ffprobe", "-version"])
        for library in ["libavformat", "libavcodec", "libavutil"] {
            // ffprobe: "libavformat    59. 27.100 / 59. 27.100" (built against / loaded).
            let line = try #require(probe.stdout.split(separator: "\n").first { $0.hasPrefix(library) })
            let loaded = String(line.split(separator: "/").last ?? "").replacingOccurrences(of: " ", with: "")
            #expect(run.stdout.contains("\(library) \(loaded)"), "\(run.stdout) vs \(line)")
        }
        // The version alone on the first line, as scripts read it.
        #expect(run.stdout.split(separator: "\n").first?.contains(" ") == false, "\(run.stdout)")
    }

    /// A --shard that is not K/N with K under N says which part is wrong, a usage error (64).
    @Test(arguments: [
        ("3/2", "K counts from 0 and must be under N (0 to 1)"), ("1/0", "N, the number of shards, must be 1 or more"),
        ("half", "give K/N, shard K of N, as 0/4"),
    ])
    func aWrongShardIsSaidInWords(_ shard: String, said: String) throws {
        let run = try Run.loopprep(["analyze", Run.fixture("clean.mp4"), "--shard", shard])
        #expect(run.status == 64)
        #expect(run.stderr.contains(said), "\(run.stderr)")
    }

    /// Colour on a terminal unless NO_COLOR is set and not empty (no-color.org); an empty one does not count. The
    /// terminal is script(1)'s (util-linux); where it is missing (a minimal chroot) the test is reported skipped.
    static let hasScript = (try? Run.tool(["script", "--version"]).status) == 0

    @Test(.enabled(if: hasScript, "needs script(1) for a terminal"), arguments: [("", true), ("1", false)])
    func noColorCountsOnlyWhenNotEmpty(value: String, coloured: Bool) throws {
        let command = "NO_COLOR='\(value)' '\(Run.binary.path)' analyze --no-seam '\(Run.fixture("rotated.mp4"))'"
        let run = try Run.tool(["script", "-qec", command, "/dev/null"])
        #expect(run.stdout.contains("rotation"), "\(run.stdout)")
        #expect(run.stdout.contains("\u{1b}[") == coloured, "\(run.stdout.debugDescription)")
    }

    /// stdout and stderr in one log (`2>&1`, as CI runs it): each finding once. Apart: the report on stdout and
    /// the `path: level: [rule]` line on stderr, as before.
    @Test func aFindingIsPrintedOnceInOneLog() throws {
        let clip = Run.fixture("rotated.mp4")
        let together = try Run.tool(["sh", "-c", "'\(Run.binary.path)' analyze --no-seam '\(clip)' 2>&1 | cat"])
        #expect(together.stdout.components(separatedBy: "[rotation]").count - 1 == 1, "\(together.stdout)")
        let apart = try Run.loopprep(["analyze", "--no-seam", clip])
        #expect(apart.stdout.contains("[rotation]") && apart.stderr.contains("\(clip): info: [rotation]"))
    }

    /// `-` is refused where a clip is expected (loopprep seeks in its inputs), in one sentence, exit 64; `report`
    /// reads a report from standard input.
    @Test(arguments: [
        ["analyze", "-"], ["fix", "-", "-o", "/tmp/x"], ["loop", "-", "-o", "/tmp/x.mp4"],
        ["stitch", "-", "-o", "/tmp/x.mp4"],
    ])
    func standardInputIsRefusedForClips(arguments: [String]) throws {
        let run = try Run.loopprep(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("'-' (standard input) cannot be read"), "\(run.stderr)")
    }

    @Test func reportReadsStandardInput() throws {
        let clip = Run.fixture("rotated.mp4")
        let binary = Run.binary.path
        let run = try Run.tool([
            "sh", "-c", "'\(binary)' analyze --no-seam --format jsonl '\(clip)' | '\(binary)' report - --format json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"rule\" : \"rotation\""), "\(run.stdout)")
    }

    /// Shards that one run could not have written are refused, each in one sentence naming the shard (and the
    /// line), exit 2: the same shard twice, a shard whose run was killed (no summary line, or a cut-off last
    /// line), shards made for different targets.
    @Test func reportRefusesShardsOneRunCouldNotHaveWritten() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func shard(_ name: String, _ clip: String, target: String = "apple") throws -> String {
            let path = dir.appendingPathComponent(name).path
            let run = try Run.loopprep([
                "analyze", "--no-seam", "--format", "jsonl", "--target", target, Run.fixture(clip),
            ])
            try Data(run.stdout.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let a = try shard("a.jsonl", "clean.mp4")
        let b = try shard("b.jsonl", "rotated.mp4")
        let web = try shard("web.jsonl", "rotated.mp4", target: "web")
        let whole = try String(contentsOfFile: a, encoding: .utf8)
        let lines = whole.split(separator: "\n")
        // Killed before the summary: every line whole, no summary.
        let killed = dir.appendingPathComponent("killed.jsonl").path
        try Data((lines.dropLast().joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: killed))
        // Killed while writing: the last line cut in half.
        let cut = dir.appendingPathComponent("cut.jsonl").path
        let last = lines[lines.count - 1]
        try Data((lines.dropLast().joined(separator: "\n") + "\n" + last.prefix(last.count / 2)).utf8).write(
            to: URL(fileURLWithPath: cut))

        let page = dir.appendingPathComponent("merged.html").path
        let merged = try Run.loopprep(["report", a, b, "--format", "json", "--html", page])
        #expect(merged.status == 0, "\(merged.stderr)")
        // The page says it is a merge, and of which shards.
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("merged by loopprep report from 2 reports: \(a), \(b)"), "\(html.prefix(2000))")
        let cases: [([String], String)] = [
            ([a, a], "is in both \(a) and \(a) (given twice)"),
            ([killed, b], "\(killed) has no summary line"),
            ([cut, b], "\(cut) is cut off at line \(lines.count)"),
            ([a, web], "\(web) was made for the web target and \(a) for apple"),
        ]
        for (shards, message) in cases {
            let run = try Run.loopprep(["report"] + shards + ["--format", "json"])
            #expect(run.status == 2, "\(shards): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    /// Lengths read the same units in every command: a loop of 45f is the 1.5 s one; a stitch --duration of 9f is
    /// 0.3 s at 30 fps (the same 9-frame join as "0.3"); --seam-fade without a unit is refused in one sentence
    /// (it meant milliseconds); --jobs states its default once.
    @Test func lengthsReadTheSameUnitsEverywhere() throws {
        let clip = Run.fixture("loop-period45.mp4")
        let frames = try Run.loopprep(["loop", clip, "--min", "40f", "--max", "50f", "--dry-run", "--format", "json"])
        let seconds = try Run.loopprep([
            "loop", clip, "--min", "1333ms", "--max", "1.667s", "--dry-run", "--format", "json",
        ])
        #expect(frames.status == 0 && seconds.status == 0, "\(frames.stderr)\(seconds.stderr)")
        #expect(frames.stdout.contains("\"outFrame\""))
        #expect(frames.stdout == seconds.stdout)
        let bare = try Run.loopprep(["fix", clip, "-o", "/tmp/never", "--seam-fade", "10"])
        #expect(bare.status == 64 && bare.stderr.contains("--seam-fade needs a unit: 10ms"), "\(bare.stderr)")
        let help = try Run.loopprep(["analyze", "--help"]).stdout
        #expect(help.components(separatedBy: "default").filter { $0.contains("cores") }.count <= 1)
        #expect(!help.contains("(default: \(ProcessInfo.processInfo.activeProcessorCount))"), "\(help)")
    }

    /// A checkout without Git LFS: a 130-byte pointer named .mp4 is said to be one, with the
    /// remedy, not "not a video or audio file"; the batch goes on (exit 2: unreadable).
    /// `loop X -o X` is refused before the search (it was said only after every candidate was ranked): no
    /// candidate is listed, the clip is untouched.
    @Test func aLoopOverItsClipIsRefusedFirst() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("x.mp4")
        try FileManager.default.copyItem(atPath: Run.fixture("tone-late.mp4"), toPath: clip.path)
        let before = try Data(contentsOf: clip)
        let run = try Run.loopprep(["loop", clip.path, "-o", clip.path])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("NOT WRITTEN: the output \(clip.path) is the input"), "\(run.stdout)")
        #expect(!run.stdout.contains("#1"), "\(run.stdout)")
        #expect(try Data(contentsOf: clip) == before)
    }

    /// A movie whose media was stripped (fixtures/make-robust.sh's quicktime-stripped.mov: an index of 30 frames and
    /// 8000 samples, no chunk offsets, an empty mdat) is unreadable in loopprep's words, in analyze and fix alike,
    /// where fix said "the system refused a file operation loopprep made (Invalid argument)".
    @Test func aMovieWithoutItsMediaIsNamed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let movie = Run.fixture("quicktime-stripped.mov")
        let said = "no media data: the index lists 30 samples of track 1 but places none of them in the file"
        for command in [["analyze", movie], ["fix", movie, "-o", dir.path]] {
            let run = try Run.loopprep(command)
            #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains(said), "\(run.stderr)")
            #expect(!run.stderr.contains("Invalid argument"))
        }
    }

    @Test func aGitLFSPointerIsNamed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pointer = dir.appendingPathComponent("hero.mp4")
        try Data(
            """
            version https://git-lfs.github.com/spec/v1
            oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393
            size 12345

            """.utf8
        ).write(to: pointer)
        let run = try Run.loopprep(["analyze", pointer.path, Run.fixture("clean.mp4")])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("hero.mp4") && run.stderr.contains("a Git LFS pointer, not the media"))
        #expect(!run.stderr.contains("not a video or audio file"))
        #expect(run.stdout.contains("clean.mp4"))
    }

    /// `--report junit=out/x.xml` into a folder that does not exist yet: the folder is made, as
    /// --html makes its own (it failed with exit 64 after the whole run).
    @Test func aReportFolderIsMade() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("out/nested/loopprep.xml")
        let run = try Run.loopprep(["analyze", Run.fixture("clean.mp4"), "--report", "junit=" + junit.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOf: junit, encoding: .utf8).contains("<testsuite"))
    }

    /// A QuickTime/MP4 header damaged inside: a sample description table whose entry count is
    /// garbage (FFmpeg's demuxer refuses the file) is said to be a damaged movie box, with the remedy and FFmpeg's
    /// words after; a media header of a version ISO does not define (2) is named as such. Never a bare FFmpeg error,
    /// never "not a video file".
    @Test(arguments: [("stsd", 4, "a box in it is damaged"), ("mdhd", 0, "says version 2, which no reader takes")])
    func aDamagedHeaderIsNamed(box: String, at offset: Int, said: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.fixture("clean.mp4"))))
        let at = try #require(
            bytes.indices.dropLast(4).first { Array(bytes[$0..<$0 + 4]) == Array(box.utf8) })
        // stsd's entry count (after version and flags) set to 2^32 - 1; mdhd's version byte set to 2.
        if box == "stsd" {
            for k in 0..<4 { bytes[at + 4 + offset + k] = 0xFF }
        } else {
            bytes[at + 4 + offset] = 2
        }
        let file = dir.appendingPathComponent("damaged.mov")
        try Data(bytes).write(to: file)
        let run = try Run.loopprep(["analyze", "--no-seam", file.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains(said), "\(run.stderr)")
        #expect(!run.stderr.contains("not a video or audio file"), "\(run.stderr)")
    }

    /// An MP4 cut off before its moov (moov-at-end.mp4's first half: ftyp and part of mdat) is
    /// said to be one, with the remedy, not "not a video or audio file".
    @Test func anMP4CutOffBeforeItsIndexIsNamed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: Run.fixture("moov-at-end.mp4")))
        let cut = dir.appendingPathComponent("recording.mp4")
        try whole.prefix(whole.count / 2).write(to: cut)
        let run = try Run.loopprep(["analyze", cut.path])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("an MP4/MOV with no index (no moov box): it was cut off"), "\(run.stderr)")
        // The same file on a server says the same.
        let server = try RangeServer(serving: dir)
        let remote = try Run.loopprep(["analyze", server.url("recording.mp4")])
        #expect(remote.status == 2)
        #expect(remote.stderr.contains("an MP4/MOV with no index (no moov box): it was cut off"), "\(remote.stderr)")
    }

    /// A run resumed (the summary of item 10): outputs already there byte for byte as this run
    /// writes them are kept and counted as written (exit 0, each file untouched); one that differs is refused
    /// ("exists ... --force") and counted as not fixed, in the text summary and in JSON's `written`/`notFixed`.
    @Test func aResumedRunKeepsWhatIsWrittenAndCountsIt() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        // An MP4 that needs a cut, one that needs nothing, a Matroska and an Ogg (their muxers' own fields).
        let inputs = ["video-longer.mp4", "clean.mp4", "mkv-copy-cut.mkv", "vorbis-blocks.ogg"].map(Run.fixture)
        let first = try Run.loopprep(["fix"] + inputs + ["-o", out.path])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("4 files: 4 written, 0 not fixed, 0 unreadable"), "\(first.stdout)")
        let names = inputs.map { ($0 as NSString).lastPathComponent }
        func state(_ name: String) throws -> (Data, Int) {
            let path = out.appendingPathComponent(name).path
            let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int ?? -1
            return (try Data(contentsOf: URL(fileURLWithPath: path)), inode)
        }
        let before = try names.map(state)
        let again = try Run.loopprep(["fix"] + inputs + ["-o", out.path])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.components(separatedBy: "already written:").count == 5, "\(again.stdout)")
        #expect(again.stdout.contains("4 files: 4 written, 0 not fixed, 0 unreadable"), "\(again.stdout)")
        for (name, (data, inode)) in zip(names, before) {
            let now = try state(name)
            #expect(now.0 == data && now.1 == inode, "\(name) was written again")
        }
        // One output changed since: refused, kept as it is, counted.
        let changed = out.appendingPathComponent("clean.mp4")
        var bytes = before[1].0
        bytes.append(0)
        try bytes.write(to: changed)
        let third = try Run.loopprep(["fix"] + inputs + ["-o", out.path, "--format", "json"])
        #expect(third.status == 1, "\(third.stdout)\(third.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(third.stdout.utf8)) as? [String: Any]
        let summary = report?["summary"] as? [String: Any]
        #expect(summary?["written"] as? Int == 3 && summary?["notFixed"] as? Int == 1, "\(third.stdout)")
        let files = report?["files"] as? [[String: Any]] ?? []
        let refused = files.first { ($0["path"] as? String)?.hasSuffix("clean.mp4") == true }?["fix"] as? [String: Any]
        #expect((refused?["reason"] as? String)?.contains("differs from what this run writes: --force") == true)
        #expect(try Data(contentsOf: changed) == bytes)
        let kept = files.filter { (($0["fix"] as? [String: Any])?["alreadyWritten"] as? Bool) == true }
        #expect(kept.count == 3)
    }

    /// An output is the container its name says: fix of an Ogg named .mp4 (written as an Ogg under it) and --to of
    /// an MP3 are refused in words (exit 1, nothing written); a blended loop named .avi is a usage error (it was
    /// an MP4 under that name), and in a folder an FLV's blended loop is named .mp4, as ffprobe reads it.
    @Test func anOutputIsNamedAsItsContainer() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("take.mp4").path
        let ogg = try Run.loopprep(["fix", Run.fixture("ogg-skeleton.ogg"), "-o", mp4])
        #expect(ogg.status == 1, "\(ogg.stdout)\(ogg.stderr)")
        #expect(
            ogg.stdout.contains(
                "NOT FIXED: write output: the output is named .mp4 but this OGG is written as OGG (loopprep does not "
                    + "turn it into MP4): name it .ogg; nothing written"), "\(ogg.stdout)")
        let mp3 = try Run.loopprep(["fix", Run.fixture("short-tone.mp3"), "--to", "mp4", "-o", dir.path])
        #expect(mp3.status == 1 && mp3.stdout.contains("convert: --to mp4: loopprep writes this MP3 in its own"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        let avi = dir.appendingPathComponent("l.avi").path
        let blended = try Run.loopprep(["loop", Run.fixture("tone-late.mp4"), "-o", avi, "--crossfade", "0.3"])
        #expect(blended.status == 64, "\(blended.stdout)\(blended.stderr)")
        #expect(
            blended.stderr.contains(
                "-o \(avi): loop --crossfade writes MP4, MOV, Matroska or WebM; name the loop .mp4, .mov, .mkv or .webm"
            ), "\(blended.stderr)")
        let folder = try Run.loopprep(
            [
                "loop", Run.fixture("rtmp.flv"), Run.fixture("tone-late.mp4"), "-o", dir.path + "/", "--crossfade",
                "0.2",
                "--min", "0.5",
            ])
        #expect(folder.status == 0, "\(folder.stdout)\(folder.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["rtmp.mp4", "tone-late.mp4"])
        let format = try Run.tool(
            [
                "ffprobe", "-v", "error", "-show_entries", "format=format_name", "-of", "default=nw=1:nk=1",
                dir.path + "/rtmp.mp4",
            ])
        #expect(format.stdout.hasPrefix("mov,mp4"))
    }

    /// A clip read but not plannable (fixtures/make-robust.sh's tracks-apart.mp4: its picture ends before its sound
    /// starts) is refused by fix and by stitch alike (exit 1, in words), not called unreadable (exit 2).
    @Test func tracksThatNeverMeetAreRefused() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("tracks-apart.mp4")
        let said = "the tracks do not overlap: nothing is presented by all of them"
        let fix = try Run.loopprep(["fix", clip, "-o", dir.path])
        #expect(fix.status == 1 && fix.stdout.contains(said), "\(fix.stdout)\(fix.stderr)")
        for dryRun in [true, false] {
            let stitch = try Run.loopprep(
                ["stitch", clip, Run.fixture("clean.mp4"), "-o", dir.appendingPathComponent("reel.mp4").path]
                    + (dryRun ? ["--dry-run"] : []))
            #expect(stitch.status == 1, "\(stitch.stdout)\(stitch.stderr)")
            #expect(stitch.stderr.contains("\(clip): \(said)"), "\(stitch.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// `-o` checked once before any work: a file where fix writes several outputs into a
    /// folder, and a folder where stitch writes one file, are usage errors (64) and nothing is made; a folder
    /// nothing can be written into is one line naming the cause (exit 1), not a reason per input.
    @Test func theOutputIsCheckedBeforeAnyWork() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("notes.txt")
        try Data("x".utf8).write(to: file)
        let clips = [Run.fixture("clean.mp4"), Run.fixture("video-longer.mp4")]
        let fix = try Run.loopprep(["fix"] + clips + ["-o", file.path])
        #expect(fix.status == 64, "\(fix.stdout)\(fix.stderr)")
        #expect(
            fix.stderr == "loopprep: error: -o \(file.path) is a file: the 2 outputs go into a folder; name a folder\n")
        #expect(fix.stdout.isEmpty)
        let stitch = try Run.loopprep(["stitch"] + clips + ["-o", dir.path])
        #expect(
            stitch.status == 64 && stitch.stderr.contains("is a folder: stitch writes one file"), "\(stitch.stderr)")
        // A name whose container stitch does not write (it was written as an MP4 under that name).
        let avi = dir.appendingPathComponent("reel.avi").path
        let named = try Run.loopprep(["stitch"] + clips + ["-o", avi])
        #expect(named.status == 64, "\(named.stdout)\(named.stderr)")
        #expect(
            named.stderr.contains(
                "-o \(avi): stitch writes MP4, MOV, Matroska or WebM; name the reel .mp4, .mov, .mkv or .webm"),
            "\(named.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])

        // Short relative folders (Foundation's path functions trap on some on Linux): written into as named.
        for folder in ["l", ".", "m/"] {
            let work = dir.appendingPathComponent("work-\(folder.count)-\(folder.hasPrefix(".") ? "dot" : folder)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let run = try Run.loopprep(["fix", Run.fixture("clean.mp4"), "-o", folder], in: work)
            #expect(run.status == 0, "\(folder): \(run.stdout)\(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent(folder + "/clean.mp4").path))
        }
        // A folder this user may not write into: root may write anywhere, so the run drops to nobody.
        let locked = dir.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if !asRoot { try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path) }
        let arguments = ["fix"] + clips + ["-o", locked.appendingPathComponent("site").path]
        let run =
            asRoot
            ? try Run.launch(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=65534", "--clear-groups", Run.binary.path] + arguments)
            : try Run.loopprep(arguments)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stderr
                == """
                loopprep: error: cannot create the output folder \(locked.path)/site: permission denied \
                (choose another folder, or change its permissions); nothing done\n
                """)
        #expect(run.stdout.isEmpty)
    }

    /// `-j N` is `--jobs N`, as make and parallel users type it: the same report.
    @Test func jIsJobs() throws {
        let clips = [Run.fixture("clean.mp4"), Run.fixture("audio-longer.mp4")]
        let short = try Run.loopprep(["analyze"] + clips + ["-j", "2", "--no-seam"])
        let long = try Run.loopprep(["analyze"] + clips + ["--jobs", "2", "--no-seam"])
        #expect(short.status == 1 && short.stdout == long.stdout, "\(short.stderr)")
    }

    /// A folder's files are never left out without a word: media under other extensions (an audiobook's .m4b, an
    /// .oggtheora) are analyzed, and a file that is neither audio nor video is named as passed over.
    @Test func aFoldersOtherFilesAreCountedOrNamed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Run.fixture("audio-only.m4a"), toPath: folder.appendingPathComponent("book.m4b").path)
        try FileManager.default.copyItem(
            atPath: Run.fixture("theora-vorbis.ogg"), toPath: folder.appendingPathComponent("clip.oggtheora").path)
        try Data("notes\n".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        for command in [["analyze", "media"], ["fix", "media", "-o", "out", "--dry-run"]] {
            let run = try Run.loopprep(command + ["--no-seam"], in: dir)
            #expect(run.stdout.contains("2 files: "), "\(run.stdout)")
            #expect(
                run.stderr.contains(
                    "loopprep: note: 1 file found in the folders given is not audio or video and was passed over: "
                        + "media/notes.txt"), "\(run.stderr)")
        }
    }
}
