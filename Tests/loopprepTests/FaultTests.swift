import Foundation
import Testing

/// Faults while writing: what is written is whole, nothing partial or temporary is left, inputs are unchanged.
@Suite struct FaultTests {
    /// A 24 KB tmpfs (needs root, as in CI): room for one repaired clip and its temporaries, not three.
    static func smallDisk() -> URL? {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loopprep-small-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        guard (try? Run.tool(["mount", "-t", "tmpfs", "-o", "size=24k", "tmpfs", dir.path]))?.status == 0 else {
            try? FileManager.default.removeItem(at: dir)
            return nil
        }
        return dir
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func diskFullLeavesWholeFilesOrNone() throws {
        guard let disk = Self.smallDisk() else {
            Issue.record("could not mount a tmpfs for the disk-full test")
            return
        }
        defer {
            _ = try? Run.tool(["umount", disk.path])
            try? FileManager.default.removeItem(at: disk)
        }
        let inputs = ["audio-longer.mp4", "video-longer.mp4", "moov-at-end.mp4"].map(Run.fixture)
        let before = try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let out = disk.appendingPathComponent("out")
        let run = try Run.loopprep(["fix", "-o", out.path, "--jobs", "1"] + inputs)
        #expect(run.status == 1)
        // Every refusal says so in loopprep's words, whichever write or flush met the full disk.
        let refusals = run.stdout.split(separator: "\n").filter { $0.contains("NOT FIXED") }
        #expect(!refusals.isEmpty && refusals.allSatisfy { $0.contains("the disk is full") }, "\(run.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!left.contains { $0.contains(".loopprep-") }, "\(left)")
        #expect(!left.isEmpty && left.count < 3)
        for name in left {
            #expect(
                try Run.loopprep(["analyze", "--no-seam", out.appendingPathComponent(name).path]).status == 0,
                "\(name) is not whole")
        }
        #expect(try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // A re-run elsewhere completes them all.
        let again = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: again) }
        #expect(try Run.loopprep(["fix", "-o", again.path] + inputs).status == 0)
    }

    /// The output folder is deleted while fix writes into it: the file being written fails with one line naming
    /// it and the cause, nothing partial or temporary is left anywhere, inputs are unchanged, and a re-run
    /// completes them all.
    @Test func outputFolderRemovedMidRun() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let inputs = try Run.copies(of: "audio-longer.mp4", ["a", "b", "c"], in: work)
        let before = try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let out = work.appendingPathComponent("out")
        let stdout = Pipe()
        // Long enough per file (audio re-encoded over 100 copies) that the removal lands mid-write.
        let process = try Run.start(["fix", "--loops", "100", "--jobs", "1", "-o", out.path] + inputs, stdout: stdout)
        let writing = Run.wait(for: out, while: process) { $0.contains { $0.contains(".loopprep-") } }
        try #require(writing, "the run ended before its temporary file appeared: the folder was removed too late")
        #expect(try Run.tool(["rm", "-rf", out.path]).status == 0)
        let report = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(report)")
        let failed = report.split(separator: "\n").filter { $0.contains("NOT FIXED") }
        #expect(
            !failed.isEmpty && failed.allSatisfy { $0.contains("output folder \(out.path) was removed while writing") },
            "\(report)")
        // Whatever is in the recreated folder is whole; nothing temporary anywhere under the work folder.
        let left = FileManager.default.enumerator(atPath: work.path)?.allObjects as? [String] ?? []
        #expect(!left.contains { $0.contains(".loopprep-") }, "\(left)")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [] {
            #expect(
                try Run.loopprep(["analyze", "--no-seam", out.appendingPathComponent(name).path]).status == 0,
                "\(name) is not whole")
        }
        #expect(try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // The re-run replaces what the first left (-y: an existing output is replaced only when asked).
        let again = try Run.loopprep(["fix", "--loops", "2", "-y", "-o", out.path] + inputs)
        #expect(again.status == 0, "\(again.stdout)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out.path)) == ["a.mp4", "b.mp4", "c.mp4"])
    }
}
