import Foundation
import Testing

/// README's exit-code table, row 2 ("some input could not be read") in every command that reads inputs (issue
/// 24, item 6): a folder with no media, a missing file, a report shard that is not there. One line on stderr
/// naming what, never the usage text.
@Suite struct ExitCodeTests {
    /// A folder holding only a text file: analyze, fix and loop find no media and say so, exit 2.
    @Test(arguments: ["analyze", "fix", "loop"])
    func aFolderWithoutMediaIsUnreadable(command: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not a clip\n".utf8).write(to: folder.appendingPathComponent("readme.txt"))
        let output = command == "analyze" ? [] : ["-o", dir.appendingPathComponent("out").path]
        let run = try Run.loopprep([command, folder.path] + output)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("loopprep: error: no media found in \(folder.path)"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }

    /// An empty folder for loop: the same sentence, exit 2 (it printed nothing and exited 0).
    @Test func loopOnAnEmptyFolderSaysSo() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["loop", dir.path, "-o", dir.appendingPathComponent("out.mp4").path])
        #expect(run.status == 2 && run.stderr.contains("no media found in \(dir.path)"), "\(run.stderr)")
    }

    /// A missing clip given to loop is an input that cannot be read (2), not a failed write (1).
    @Test func loopOnAMissingFileIsUnreadable() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("gone.mp4").path
        let run = try Run.loopprep(["loop", missing, "-o", dir.appendingPathComponent("out.mp4").path])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains(missing))
    }

    /// report with a shard that is not there, or is not a report: one line naming it, exit 2, no usage text.
    @Test func reportWithAMissingOrForeignShard() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("shard-3.jsonl").path
        let gone = try Run.loopprep(["report", missing])
        #expect(gone.status == 2)
        #expect(gone.stderr == "loopprep: error: cannot read the report \(missing): no such file\n")
        let foreign = dir.appendingPathComponent("notes.json")
        try Data("{\"hello\": 1}\n".utf8).write(to: foreign)
        let other = try Run.loopprep(["report", foreign.path])
        #expect(other.status == 2 && !other.stderr.contains("Usage"))
        #expect(other.stderr.contains("\(foreign.path) is neither a loopprep JSON report nor JSON Lines"))
    }
}

/// A folder of symbolic links (git-annex, dataset folders, build outputs): a link to a file is
/// that file, a link to a folder above it is not followed (it would never end), a dangling link is one line naming
/// its target, exit 2. A folder named through a link is walked as `ls` lists it, and a link to another folder met
/// in a walk is walked once, each file shown by the path the user gave.
@Suite struct SymlinkTests {
    @Test func linksToFilesAreFollowedAndADanglingOneIsSaid() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        let fm = FileManager.default
        try fm.createSymbolicLink(
            atPath: clips.appendingPathComponent("a.mp4").path, withDestinationPath: Run.fixture("clean.mp4"))
        try fm.createSymbolicLink(
            atPath: clips.appendingPathComponent("b.mp4").path, withDestinationPath: "/nowhere/b.mp4")
        try fm.createSymbolicLink(atPath: clips.appendingPathComponent("again").path, withDestinationPath: dir.path)
        let run = try Run.loopprep(["analyze", clips.path, "--no-seam", "--format", "json"])
        #expect(run.status == 2, "\(run.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let paths = ((doc?["files"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
        #expect(
            paths.sorted() == [clips.appendingPathComponent("a.mp4").path, clips.appendingPathComponent("b.mp4").path])
        #expect(
            run.stderr.contains(
                "b.mp4: error: [unreadable] open: a symbolic link to /nowhere/b.mp4, which does not exist"))
    }

    @Test func aFolderNamedThroughALinkIsWalked() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        let designer = dir.appendingPathComponent("designer")
        let shared = dir.appendingPathComponent("shared")
        let project = dir.appendingPathComponent("project")
        for folder in [designer, shared, project] {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try fm.copyItem(atPath: Run.fixture("clean.mp4"), toPath: designer.appendingPathComponent("a.mp4").path)
        try fm.copyItem(atPath: Run.fixture("clean.mp4"), toPath: shared.appendingPathComponent("b.mp4").path)
        // designer/more -> ../shared (walked once); shared/back -> ../designer (walked already: not again).
        try fm.createSymbolicLink(
            atPath: designer.appendingPathComponent("more").path, withDestinationPath: "../shared")
        try fm.createSymbolicLink(
            atPath: shared.appendingPathComponent("back").path, withDestinationPath: "../designer")
        try fm.createSymbolicLink(
            atPath: project.appendingPathComponent("designer").path, withDestinationPath: "../designer")
        let given = project.appendingPathComponent("designer").path + "/"
        let run = try Run.loopprep(["analyze", given, "--no-seam", "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let paths = ((doc?["files"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
        #expect(paths.sorted() == [given + "a.mp4", given + "more/b.mp4"])
        // fix writes each under the name it was found by.
        let out = dir.appendingPathComponent("out")
        let fixed = try Run.loopprep(["fix", given, "-o", out.path])
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(fm.fileExists(atPath: out.appendingPathComponent("more/b.mp4").path), "\(fixed.stdout)")
    }
}
