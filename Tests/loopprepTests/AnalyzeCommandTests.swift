import Foundation
import LoopAnalysis
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct AnalyzeCommandTests {
    @Test func cleanClipExitsZeroWithNothingOnStderr() throws {
        let run = try Run.loopprep(["analyze", Run.fixture("clean.mp4")])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.stdout.contains("clean.mp4  OK"))
        #expect(run.stdout.contains("30 fps"))
        #expect(run.stdout.hasSuffix("1 file: 1 clean, 0 errors, 0 warnings, 0 unreadable\n"))
    }

    /// The seam check is auxiliary: a clip whose last video frame does not decode (clean.mp4 with
    /// that sample's bytes after its length field overwritten) is still read, its timing checked, and a note
    /// says the seam was not; never "unreadable".
    @Test func aSeamCheckThatCannotDecodeIsANoteNotUnreadable() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("bad-last-frame.mp4").path
        let probe = try Subprocess.tool(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "packet=pos,size", "-of", "csv=p=0",
                Run.fixture("clean.mp4"),
            ])
        let last = String(decoding: probe.out, as: UTF8.self).split(separator: "\n").last.map {
            $0.split(separator: ",").compactMap { Int($0) }
        }
        let fields = try #require(last)
        #expect(fields.count == 2)
        let (size, pos) = (fields[0], fields[1])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.fixture("clean.mp4"))))
        for i in (pos + 4)..<(pos + size) { bytes[i] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = try Run.loopprep(["analyze", path])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(!run.stdout.contains("UNREADABLE"))
        #expect(
            run.stdout.contains(
                "note: the seam checks were skipped: FFmpeg could not decode the clip's first and last frames"))
        #expect(run.stdout.contains("video 0: h264 High, 160x90, 30 fps, 0.000-1.000 s (30 frames)"))
        // The JSON report carries the note; the HTML page shows it.
        let json = try Run.loopprep(["analyze", path, "--format", "json"])
        #expect(json.stdout.contains("\"notes\" : [") && json.stdout.contains("the seam checks were skipped"))
        let page = dir.appendingPathComponent("report.html").path
        _ = try Run.loopprep(["analyze", path, "--html", page])
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("Note: the seam checks were skipped"))
    }

    @Test func errorFindingExitsOneWithADiagnostic() throws {
        let path = Run.fixture("audio-longer.mp4")
        let run = try Run.loopprep(["analyze", path])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                """
                \(path): error: [audio-longer-than-video] audio track 1 (aac) ends 500.000 ms = 24000 samples = \
                15 frames after video track 0 (h264)\n
                """
            ))
        #expect(run.stdout.contains("fix: trim every track to the shortest"))
    }

    @Test func failOnSetsTheBar() throws {
        let moov = Run.fixture("moov-at-end.mp4")
        #expect(try Run.loopprep(["analyze", moov]).status == 0)
        #expect(try Run.loopprep(["analyze", "--fail-on", "warning", moov]).status == 1)
        #expect(try Run.loopprep(["analyze", "--fail-on", "never", Run.fixture("audio-longer.mp4")]).status == 0)
    }

    @Test func unreadableInputExitsTwoAndTheBatchGoesOn() throws {
        let run = try Run.loopprep([
            "analyze", Run.fixture("zero-bytes.mp4"), Run.fixture("text.mp4"), Run.fixture("clean.mp4"),
        ])
        #expect(run.status == 2)
        #expect(run.stderr.contains("zero-bytes.mp4: error: [unreadable] open: empty file (0 bytes)"))
        // loopprep's sentence first, FFmpeg's own words only after it.
        #expect(
            run.stderr.contains(
                """
                text.mp4: error: [unreadable] not a video or audio file FFmpeg recognises (its first bytes match no \
                container it reads); check that it is a whole media file (FFmpeg: open: Invalid data found when \
                processing input)
                """))
        #expect(run.stdout.contains("clean.mp4  OK"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try Run.loopprep(["analyze"]).status == 64)
        #expect(try Run.loopprep(["analyze", "--jobs", "0", Run.fixture("clean.mp4")]).status == 64)
        #expect(try Run.loopprep(["analyze", "--format", "yaml", Run.fixture("clean.mp4")]).status == 64)
    }

    @Test func helpDocumentsExitCodes() throws {
        let run = try Run.loopprep(["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("64   usage error"))
        #expect(run.stdout.contains("130  interrupted (SIGINT)") && run.stdout.contains("143  terminated (SIGTERM)"))
    }

    @Test func jsonIsVersionedSortedAndByteStable() throws {
        let args = ["analyze", "--format", "json", Run.fixture("clean-2997.mp4"), Run.fixture("start-offset.mp4")]
        let first = try Run.loopprep(args)
        let second = try Run.loopprep(args + ["--jobs", "1"])
        #expect(first.status == 1)
        #expect(first.stdout == second.stdout)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect(json["schemaVersion"] as? Int == 1)
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.count == 2)
        let facts = try #require(files[0]["facts"] as? [String: Any])
        let video = try #require((facts["tracks"] as? [[String: Any]])?.first)
        #expect(video["frameRate"] as? String == "30000/1001")
        let findings = try #require(files[1]["findings"] as? [[String: Any]])
        #expect(findings.first?["rule"] as? String == "start-offset")
        // Sorted keys: "command" precedes "files" precedes "options".
        let c = try #require(first.stdout.range(of: "\"command\""))
        let f = try #require(first.stdout.range(of: "\"files\""))
        #expect(c.lowerBound < f.lowerBound)
    }

    /// JSON is written a file at a time (bounded memory for big batches); the bytes are the whole document's.
    @Test func jsonWrittenPerFileIsTheWholeDocument() throws {
        let run = try Run.loopprep(["analyze", "--format", "json", Run.fixtures.path])
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        #expect(report.files.count > 20)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n" == run.stdout)
    }

    /// One testcase per finding (several failures in one testcase collapse in dashboards),
    /// one for a file without any; counted against the same run's JSON report.
    @Test func junitHasATestcasePerFinding() throws {
        let files = ["clean.mp4", "video-longer.mp4", "zero-bytes.mp4", "moov-at-end.mp4"].map(Run.fixture)
        let run = try Run.loopprep(["analyze", "--no-seam", "--format", "junit"] + files)
        #expect(run.status == 2)
        let json = try Run.loopprep(["analyze", "--no-seam", "--format", "json"] + files)
        let report = try JSONDecoder().decode(Report.self, from: Data(json.stdout.utf8))
        let findings = report.files.flatMap(\.findings)
        let clean = report.files.filter(\.findings.isEmpty).count
        #expect(clean == 1)
        let doc = try XMLDocument(data: Data(run.stdout.utf8))
        #expect(try doc.nodes(forXPath: "//testcase").count == findings.count + clean)
        #expect(
            try doc.nodes(forXPath: "//testcase/failure").count
                == findings.filter { $0.severity == .error && $0.rule != "unreadable" }.count)
        #expect(try doc.nodes(forXPath: "//testcase/failure[@type='video-longer-than-audio']").count == 1)
        #expect(try doc.nodes(forXPath: "//testcase/error[@type='unreadable']").count == 1)
        // No testcase holds two results.
        for node in try doc.nodes(forXPath: "//testcase") {
            #expect(
                (node.children ?? []).filter { ["failure", "error", "system-out"].contains($0.name ?? "") }.count <= 1)
        }
        // The warning is below --fail-on error: its own testcase, passed, the finding in its output.
        let moov = try doc.nodes(forXPath: "//testcase[@classname='loopprep.analyze.moov-at-end']")
        #expect(moov.count == 1 && moov.first?.stringValue?.contains("moov") == true)
        let suite = try #require(try doc.nodes(forXPath: "//testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "\(findings.count + clean)")
        #expect(suite.attribute(forName: "errors")?.stringValue == "1")
    }

    @Test func githubAnnotations() throws {
        let run = try Run.loopprep([
            "analyze", "--format", "github", Run.fixture("too-short.mp4"), Run.fixture("video-longer.mp4"),
        ])
        let lines = run.stdout.split(separator: "\n")
        #expect(
            lines.contains {
                $0.hasPrefix("::error file=\(Run.fixture("video-longer.mp4")),title=loopprep video-longer-than-audio::")
            })
        #expect(lines.contains { $0.hasPrefix("::warning file=") && $0.contains("too-short-to-loop") })
    }

    @Test func foldersAreSearchedRecursivelySkippingHiddenAndNonMedia() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sub = dir.appendingPathComponent("nested/deeper")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Run.fixture("clean.mp4"), toPath: sub.appendingPathComponent("a.mp4").path)
        // Media whatever its extension; hidden files skipped; a text file with no media extension is not media.
        try FileManager.default.copyItem(
            atPath: Run.fixture("clean.mp4"), toPath: dir.appendingPathComponent("b.bin").path)
        try FileManager.default.copyItem(
            atPath: Run.fixture("audio-longer.mp4"), toPath: dir.appendingPathComponent(".hidden.mp4").path)
        try "notes".write(to: dir.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
        let run = try Run.loopprep(["analyze", "--format", "json", dir.path])
        #expect(run.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let paths = (json["files"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths == [dir.path + "/b.bin", dir.path + "/nested/deeper/a.mp4"])
    }

    /// A track that is neither picture nor sound is named by what it carries (its sample entry), not FFmpeg's codec
    /// name ("data 3: none" was a timecode): make-fixtures.sh's timecode (made with -timecode 01:00:00:00) and
    /// QuickTime text chapters, and make-metadata.sh's GoPro-style gpmd track. A timecode says where it starts, as
    /// FFmpeg reads it: make-metadata.sh's timecode-df.mov was made with -timecode "00:01:00;02" at 29.97 fps, frame
    /// number 1798 in drop-frame counting (minute 1 has no ;00 or ;01).
    @Test func dataTracksAreNamedByWhatTheyCarry() throws {
        let mov = try Run.loopprep(["analyze", Run.fixture("chapters-timecode.mov")]).stdout
        #expect(mov.contains("  timecode 3: starts at 01:00:00:00 (tmcd), 0.000-1.400 s\n"), "\(mov)")
        let dropFrame = try Run.loopprep(["analyze", Run.fixture("timecode-df.mov"), "--format", "json"]).stdout
        #expect(dropFrame.contains(#""timecode" : "00:01:00;02""#), "\(dropFrame)")
        let ffprobe = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "d", "-show_entries", "stream_tags=timecode", "-of", "csv=p=0",
            Run.fixture("timecode-df.mov"),
        ])
        #expect(ffprobe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "00:01:00;02")
        #expect(mov.contains("  text 2: QuickTime text (chapter titles or captions), 0.000-1.500 s\n"), "\(mov)")
        #expect(!mov.contains(": none"))
        let gopro = try Run.loopprep(["analyze", Run.fixture("meta-keys.mp4")]).stdout
        #expect(gopro.contains("  telemetry 2: GoPro gpmd, 0.000-2.100 s\n"), "\(gopro)")
    }

    /// A picture longer than its sound (video-longer.mp4: 0.5 s more picture) is cured two ways, and the hint names
    /// both: the usual trim, and --keep video where the picture is the loop (it said only "trim every track").
    @Test func aLongerPictureNamesKeepVideo() throws {
        let run = try Run.loopprep(["analyze", Run.fixture("video-longer.mp4")])
        #expect(
            run.stdout.contains("fix: trim every track to the shortest: loopprep fix; where the picture is the loop"))
        #expect(run.stdout.contains("loopprep fix --keep video keeps every frame"), "\(run.stdout)")
    }

    /// A clip whose only error fix does not cure (make-metadata.sh's high444.mp4: H.264 High 4:4:4, its tracks
    /// exact) is copied, and fix does not call it clean beside that error (it said "ERROR" then "already clean").
    @Test func aCopyIsNotCalledCleanBesideAnError() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture("high444.mp4"), "-o", dir.path])
        #expect(run.stdout.contains("nothing for fix to change: copied unchanged"), "\(run.stdout)")
        #expect(run.stdout.contains("(fix does not cure not-playable-on-target: see below)"))
        #expect(!run.stdout.contains("already clean"))
    }

    /// For a browser the loop range is said with how a page loops it: <video loop> stalls at each wrap, fix's web
    /// player does not; the Apple target's text has no such line.
    @Test func aBrowserTargetSaysHowAPageLoops() throws {
        let line = "    in a browser: <video loop> seeks back to 0 at every wrap and stalls; loopprep fix --web-player"
        for target in ["chrome", "web"] {
            let run = try Run.loopprep(["analyze", Run.fixture("clean.mp4"), "--target", target])
            #expect(run.stdout.contains(line), "\(run.stdout)")
        }
        #expect(!(try Run.loopprep(["analyze", Run.fixture("clean.mp4")]).stdout.contains("in a browser")))
        // A MOV for the web: the command that remuxes it, not "remux or re-encode".
        let mov = try Run.loopprep(["analyze", Run.fixture("chapters-timecode.mov"), "--target", "web"])
        #expect(mov.stdout.contains("the mov container is not playable on the web target\n"), "\(mov.stdout)")
        #expect(mov.stdout.contains("fix: remux to MP4: loopprep fix --to mp4\n"), "\(mov.stdout)")
    }

    @Test func theBundledFixturesAsAWholeBatch() throws {
        let run = try Run.loopprep(["analyze", "--format", "json", "--jobs", "2", Run.fixtures.path])
        #expect(run.status == 2)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let summary = try #require(json["summary"] as? [String: Any])
        // zero-bytes, text and truncated .mp4, the encrypted cenc.mp4, VLC's Dirac Ogg and its OGM, an Ogg FLAC cut,
        // the two Ogg files with a damaged page, a browser's WebM cut off mid-cluster, a QuickTime movie whose media
        // was stripped.
        #expect(summary["unreadable"] as? Int == 11)
        // Every clip in the folder is reported; the scripts that make them and their notes are not media.
        let clips = try FileManager.default.contentsOfDirectory(atPath: Run.fixtures.path).filter {
            !$0.hasSuffix(".sh") && !$0.hasSuffix(".py") && !$0.hasSuffix(".md") && !$0.hasPrefix(".")
        }
        #expect(clips.count >= 24)
        #expect((json["files"] as? [Any])?.count == clips.count)
    }

    @Test func colourOnlyOnATerminal() throws {
        let run = try Run.loopprep(
            ["analyze", Run.fixture("audio-longer.mp4")], environment: ["TERM": "xterm-256color"])
        #expect(!run.stdout.contains("\u{1B}["))
        #expect(!run.stderr.contains("\u{1B}["))
    }

    /// Each finding once in a log: `--format github` puts it there as an annotation, and in a
    /// GitHub Actions job the text report does (stdout and stderr reach one log through two pipes); elsewhere the
    /// text report's findings also go to stderr, one diagnostic line each.
    @Test func findingsAreNotPrintedTwiceInOneLog() throws {
        let clip = Run.fixture("audio-longer.mp4")
        let github = try Run.loopprep(["analyze", clip, "--format", "github"])
        #expect(github.stdout.hasPrefix("::error file=") && github.stderr == "")
        let action = try Run.loopprep(["analyze", clip], environment: ["GITHUB_ACTIONS": "true"])
        #expect(action.stdout.contains("[audio-longer-than-video]") && action.stderr == "")
        let plain = try Run.loopprep(["analyze", clip])
        #expect(plain.stderr.contains(": error: [audio-longer-than-video]"))
    }
}
