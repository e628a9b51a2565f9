import Foundation
import Testing

/// The README's quick start is what a newcomer runs first: every command in its table, run as
/// written on clips made like the user's (a folder of loops, a hero video, a repository's media, clips to stitch,
/// long footage, a designed loop), in a scratch folder, succeeds.
@Suite struct QuickStartTests {
    /// The `loopprep ...` commands of the README's "Quick start" table, in order.
    static func commands() throws -> [String] {
        let readme = try String(contentsOf: Run.repository.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "## Quick start"),
            let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)
        else { return [] }
        return readme[start.upperBound..<end.lowerBound].split(separator: "`").map(String.init)
            .filter { $0.hasPrefix("loopprep ") }
    }

    @Test func everyQuickStartCommandWorks() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let fm = FileManager.default
        func place(_ fixture: String, as name: String) throws {
            let target = work.appendingPathComponent(name)
            try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(atPath: Run.fixture(fixture), toPath: target.path)
        }
        try place("clean.mp4", as: "loops/calm.mp4")
        try place("video-longer.mp4", as: "loops/long-picture.mp4")
        try place("clean.mp4", as: "hero.mp4")
        try place("clean.mp4", as: "media/intro.mp4")
        try place("loop-period45.mp4", as: "clips/one.mp4")
        try place("loop-period45.mp4", as: "clips/two.mp4")
        try place("loop-period45.mp4", as: "drone.mp4")
        try place("designed-loop.mp4", as: "loop.mov")
        let commands = try Self.commands()
        #expect(commands.count >= 7, "\(commands)")
        for command in commands {
            let words = command.split(separator: " ").map(String.init).dropFirst()
            let run = try Run.loopprep(Array(words), in: work)
            // analyze reports the clip whose picture outlasts its audio (exit 1, the README's table); every other
            // command writes what it names and exits 0.
            let expected: Int32 = command == "loopprep analyze loops/" ? 1 : 0
            #expect(run.status == expected, "\(command): \(run.stdout)\(run.stderr)")
        }
        for written in [
            "fixed/calm.mp4", "fixed/long-picture.mp4", "site/hero.mp4", "site/hero.html", "loopprep.xml", "reel.mp4",
            "reel.html", "drone-loop.mp4", "loop.html", "fixed/loop.mov",
        ] {
            #expect(fm.fileExists(atPath: work.appendingPathComponent(written).path), "\(written)")
        }
    }
}
