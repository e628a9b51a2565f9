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
        #expect(wrong.status == 64 && wrong.stderr.contains("apply carries out what fix --dry-run"), "\(wrong.stderr)")
    }
}
