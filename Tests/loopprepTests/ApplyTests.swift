import Foundation
import LoopAnalysis
import TestSupport
import Testing

/// `loopprep apply PLAN.json`: a dry run's JSON, saved, carried out later as planned (a CI job reviews the plan, a
/// person approves it, another job applies it).
@Suite struct ApplyTests {
    struct Document: Decodable {
        struct File: Decodable {
            var path: String
            var outcome: Outcome?
            var plan: FixPlan?
            var facts: ClipFacts?
        }
        var files: [File]
    }

    static func document(_ run: Run) throws -> [String: Document.File] {
        let document = try JSONDecoder().decode(Document.self, from: Data(run.stdout.utf8))
        return Dictionary(document.files.map { ($0.path, $0) }) { a, _ in a }
    }

    /// Two clips (one that needs a cut, one clean) planned, then applied: each written where the dry run said, by
    /// the plan it printed, and described as analyze describes what it wrote. Applied again, the outputs are kept.
    @Test func aSavedPlanIsCarriedOutAsPlanned() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        for name in ["phone-joined.mkv", "tone-late.mp4"] {
            try FileManager.default.copyItem(atPath: Run.fixture(name), toPath: clips.appendingPathComponent(name).path)
        }
        let out = dir.appendingPathComponent("out").path
        let dry = try Run.loopprep(["fix", clips.path, "-o", out, "--dry-run", "--format", "json"])
        let planPath = dir.appendingPathComponent("plan.json").path
        try Data(dry.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
        #expect(!FileManager.default.fileExists(atPath: out))
        let applied = try Run.loopprep(["apply", planPath, "--format", "json"])
        #expect(applied.status == 0, "\(applied.stderr)")
        let planned = try Self.document(dry)
        let written = try Self.document(applied)
        #expect(planned.count == 2 && written.count == 2)
        for (path, before) in planned {
            let after = try #require(written[path], "\(path)")
            #expect(after.plan == before.plan && before.plan != nil, "\(path)")
            #expect(before.outcome?.status == .planned)
            let status = try #require(after.outcome?.status)
            #expect([.written, .unchanged].contains(status), "\(path): \(status)")
            let output = try #require(after.outcome?.output)
            #expect(output == before.outcome?.output)
            let analyzed = try Run.loopprep(["analyze", output, "--format", "json"])
            #expect(try Self.document(analyzed)[output]?.facts == after.facts, "\(output)")
        }
        let again = try Run.loopprep(["apply", planPath])
        #expect(again.status == 0 && again.stdout.contains("already written"), "\(again.stdout)")
    }

    /// A plan made with --web-player is carried out with it: the page beside the output, as fix writes it.
    @Test func aPlannedWebPlayerIsWritten() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("tone-late.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("tone-late.mp4"), toPath: clip)
        let out = dir.appendingPathComponent("out").path
        let dry = try Run.loopprep(["fix", clip, "-o", out, "--dry-run", "--web-player", "--format", "json"])
        let planPath = dir.appendingPathComponent("plan.json").path
        try Data(dry.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
        let applied = try Run.loopprep(["apply", planPath])
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
        for name in ["tone-late.mp4", "tone-late.html", "tone-late.web.json"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + name), "\(name)")
        }
    }

    /// An input that changed since it was planned is refused in one sentence naming it, nothing written; an output
    /// that exists and differs is replaced only with --force; a report of another command is no plan to apply.
    @Test func aChangedInputOrAnExistingOutputIsRefused() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("tone-late.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("tone-late.mp4"), toPath: clip)
        let out = dir.appendingPathComponent("out.mp4").path
        let dry = try Run.loopprep(["fix", clip, "-o", out, "--dry-run", "--format", "json"])
        let planPath = dir.appendingPathComponent("plan.json").path
        try Data(dry.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
        // The same bytes, a later modification time.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: clip)
        let changed = try Run.loopprep(["apply", planPath])
        #expect(changed.status == 1)
        #expect(changed.stdout.contains("\(clip) changed since it was planned"), "\(changed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // Planned again; an output of other bytes is in the way.
        let again = try Run.loopprep(["fix", clip, "-o", out, "--dry-run", "--format", "json"])
        try Data(again.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
        try Data("not this".utf8).write(to: URL(fileURLWithPath: out))
        let blocked = try Run.loopprep(["apply", planPath])
        #expect(blocked.status == 1 && blocked.stdout.contains("--force"), "\(blocked.stdout)")
        let forced = try Run.loopprep(["apply", planPath, "--force"])
        #expect(forced.status == 0, "\(forced.stdout)\(forced.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) != Data("not this".utf8))
        // A clip served over http(s) cannot be told unchanged: planned, it is refused by apply in words.
        let served = dir.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Run.fixture("tone-late.mp4"), toPath: served.appendingPathComponent("tone-late.mp4").path)
        let server = try RangeServer(serving: served)
        let remote = try Run.loopprep([
            "fix", server.url("tone-late.mp4"), "-o", dir.appendingPathComponent("fetched").path, "--dry-run",
            "--format", "json",
        ])
        try Data(remote.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
        let url = try Run.loopprep(["apply", planPath])
        #expect(url.status == 1 && url.stdout.contains("is a URL, which apply cannot tell unchanged"), "\(url.stdout)")
        // An analyze report plans nothing.
        let analyzed = try Run.loopprep(["analyze", clip, "--format", "json"])
        try Data(analyzed.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
        let wrong = try Run.loopprep(["apply", planPath])
        #expect(
            wrong.status == 64 && wrong.stderr.contains("apply carries out what fix, loop or stitch --dry-run"),
            "\(wrong.stderr)")
    }

    /// The frames a stitch plan copies and the frames it encodes, read from its JSON (`plan.render`): each copied
    /// clip's body, each encoded run's frames (runs of a count each).
    static func work(_ plan: [String: Any]) throws -> (copied: Int, encoded: Int) {
        let render = try #require(plan["render"] as? [String: Any])
        let bodies = try #require(render["bodies"] as? [Any])
        var (copied, encoded) = (0, 0)
        for run in try #require(render["runs"] as? [[String: Any]]) {
            if let clip = run["copy"] as? Int, let body = bodies[clip] as? [String: Int] {
                copied += (body["end"] ?? 0) - (body["start"] ?? 0)
            }
            if let encodedRun = run["render"] as? [String: Any], let items = encodedRun["items"] as? [[String: Any]] {
                encoded += items.compactMap { $0["count"] as? Int }.reduce(0, +)
            }
        }
        return (copied, encoded)
    }

    /// A frame count by FFmpeg's decoder (ffprobe -count_frames).
    static func decodedFrames(_ path: String) throws -> Int? {
        Int(
            try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                "stream=nb_read_frames", "-of", "csv=p=0", path,
            ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A stitch's dry run carried out later: two clips cut by stream copy from x264 footage with B-frames
    /// (ss-cut-a/b.mkv), crossfaded. The dry run says what it would copy and encode, in text and in its JSON `plan`;
    /// apply writes that plan, never planned again: the reel holds the plan's frames by FFmpeg's decoder and is byte
    /// for byte what stitch writes at once. Applied again, the reel is kept; another file there is replaced only with
    /// --force; a clip touched since is refused, nothing written; a dry run refused, or naming no output, is no plan.
    @Test func aStitchPlanIsCarriedOutAsPlanned() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try ["ss-cut-a.mkv", "ss-cut-b.mkv"].map { name in
            let path = dir.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: Run.fixture(name), toPath: path)
            return path
        }
        let out = dir.appendingPathComponent("reel.mp4").path
        let stitch = ["stitch"] + clips + ["--transition", "crossfade", "--duration", "0.4"]
        let dry = try Run.loopprep(stitch + ["-o", out, "--dry-run", "--format", "json"])
        #expect(dry.status == 0 && !FileManager.default.fileExists(atPath: out), "\(dry.stderr)")
        let document = try dry.file()
        let timeline = try #require(document["timeline"] as? [String: Any])
        let work = try Self.work(try #require(document["plan"] as? [String: Any]))
        #expect(work.copied > 0 && work.encoded > 0 && work.copied + work.encoded == timeline["frames"] as? Int)
        let text = try Run.loopprep(stitch + ["-o", out, "--dry-run"])
        #expect(text.stdout.contains("would copy \(work.copied) frames and encode \(work.encoded) (10 blended)"))
        let planPath = dir.appendingPathComponent("plan.json").path
        try Data(dry.stdout.utf8).write(to: URL(fileURLWithPath: planPath))

        let applied = try Run.loopprep(["apply", planPath])
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
        #expect(
            applied.stdout.contains("copied \(work.copied) frames and encoded \(work.encoded)"), "\(applied.stdout)")
        #expect(try Self.decodedFrames(out) == work.copied + work.encoded)
        let direct = dir.appendingPathComponent("direct.mp4").path
        #expect(try Run.loopprep(stitch + ["-o", direct]).status == 0)
        #expect(FileManager.default.contentsEqual(atPath: out, andPath: direct))

        // Applied again (a job run twice), the reel there is what the plan writes: kept. Another file there is
        // replaced only with --force.
        let again = try Run.loopprep(["apply", planPath, "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let kept = try again.file()
        #expect(
            (kept["outcome"] as? [String: Any])?["status"] as? String == "unchanged"
                && (kept["fix"] as? [String: Any])?["alreadyWritten"] as? Bool == true)
        #expect(FileManager.default.contentsEqual(atPath: out, andPath: direct))
        // A plan whose clip reads as cut otherwise (another loopprep's reading: here, its figures edited) is not
        // carried out.
        var edited = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any])
        var reel = try dry.file()
        var plan = try #require(reel["plan"] as? [String: Any])
        var cuts = try #require(plan["cuts"] as? [[Int]])
        cuts[1][0] += 1
        plan["cuts"] = cuts
        reel["plan"] = plan
        edited["files"] = [reel]
        let editedPath = dir.appendingPathComponent("edited.json").path
        try JSONSerialization.data(withJSONObject: edited).write(to: URL(fileURLWithPath: editedPath))
        let otherwise = try Run.loopprep(["apply", editedPath, "--force"])
        #expect(otherwise.status == 1, "\(otherwise.stderr)")
        #expect(
            otherwise.stderr.contains("\(clips[1]) is cut otherwise than when it was planned"), "\(otherwise.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: out, andPath: direct))
        try Data("not this".utf8).write(to: URL(fileURLWithPath: out))
        let exists = try Run.loopprep(["apply", planPath])
        #expect(exists.status == 1 && exists.stderr.contains("--force"), "\(exists.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("not this".utf8))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: clips[1])
        try FileManager.default.removeItem(atPath: out)
        let touched = try Run.loopprep(["apply", planPath, "--force"])
        #expect(touched.status == 1, "\(touched.stderr)")
        #expect(
            touched.stderr.contains(
                "\(clips[1]) changed since it was planned (its size, modification time or bytes): "
                    + "plan it again with stitch --dry-run"), "\(touched.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // No plan: a dry run the clips refused (an H.264 clip beside a VP9 one), or one naming no output.
        for extra in [[Run.fixture("vp9-gop10-a.webm"), "-o", out], []] {
            let none = try Run.loopprep(["stitch", clips[0]] + extra + ["--dry-run", "--format", "json"])
            try Data(none.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
            let refused = try Run.loopprep(["apply", planPath])
            #expect(refused.status == 64 && refused.stderr.contains("is a stitch"), "\(refused.stderr)")
        }
    }

    /// loop's dry run carried out later, a plain cut and a crossfaded one (loop-period45.mp4: a 45-frame period):
    /// the loop the search chose, written byte for byte as loop writes it at once, the search's candidates and
    /// choice kept in the record; a clip touched since is refused in loop's words.
    @Test(arguments: [[], ["--crossfade", "0.3"]])
    func aLoopPlanIsCarriedOutAsPlanned(options: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("loop-period45.mp4"), toPath: clip)
        let out = dir.appendingPathComponent("loop.mp4").path
        let dry = try Run.loopprep(["loop", clip, "-o", out, "--dry-run", "--format", "json"] + options)
        #expect(dry.status == 0, "\(dry.stderr)")
        let planPath = dir.appendingPathComponent("plan.json").path
        try Data(dry.stdout.utf8).write(to: URL(fileURLWithPath: planPath))
        let applied = try Run.loopprep(["apply", planPath, "--format", "json"])
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
        func file(_ run: Run) throws -> [String: Any] {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect(document["command"] as? String == "loop")
            return try #require((document["files"] as? [[String: Any]])?.first)
        }
        let (planned, written) = (try file(dry), try file(applied))
        #expect((written["outcome"] as? [String: Any])?["status"] as? String == "written")
        #expect(written["chosen"] as? Int == planned["chosen"] as? Int)
        #expect((written["candidates"] as? [Any])?.count == (planned["candidates"] as? [Any])?.count)
        // The 45-frame loop, by FFmpeg's decoder (a crossfade of 0.3 s at 30 fps blends 9 of them into the start).
        #expect(try Self.decodedFrames(out) == (options.isEmpty ? 45 : 36))
        let direct = dir.appendingPathComponent("direct.mp4").path
        #expect(try Run.loopprep(["loop", clip, "-o", direct] + options).status == 0)
        #expect(FileManager.default.contentsEqual(atPath: out, andPath: direct))

        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: clip)
        let touched = try Run.loopprep(["apply", planPath, "--force"])
        #expect(
            touched.status == 1 && touched.stdout.contains("plan it again with loop --dry-run"), "\(touched.stdout)")
    }
}
