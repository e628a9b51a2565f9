import Foundation
import LoopAnalysis
import Testing

/// `.loopprep.json`: found from the working folder up, its settings under the command line's.
@Suite struct ConfigCommandTests {
    /// project/.loopprep.json with clips/, legacy/ and raw/ under it, each holding fixture copies.
    static func project(_ config: String) throws -> URL {
        let root = try Run.temporaryDirectory().appendingPathComponent("project")
        let fm = FileManager.default
        for (folder, files) in [
            ("clips", ["moov-at-end", "seam-jump", "seam-click", "too-short"]), ("legacy", ["seam-click"]),
            ("raw", ["too-short"]),
        ] {
            let dir = root.appendingPathComponent(folder)
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            for f in files {
                try fm.copyItem(atPath: Run.fixture("\(f).mp4"), toPath: dir.appendingPathComponent("\(f).mp4").path)
            }
        }
        try Data(config.utf8).write(to: root.appendingPathComponent(".loopprep.json"))
        return root
    }

    static func rules(_ json: String) throws -> [String: [String]] {
        let report = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
        return Dictionary(uniqueKeysWithValues: report.files.map { ($0.path, $0.findings.map(\.rule).sorted()) })
    }

    static let config = """
        { "target": "web", "min-loop": 0.4, "disable": ["moov-at-end"],
          "thresholds": { "seam-visual-jump": 255 },
          "ignore": [ { "path": "legacy/**", "rules": ["seam-audio-click"] }, { "path": "raw/" } ] }
        """

    @Test func foundFromAFolderBelowAndApplied() throws {
        let root = try Self.project(Self.config)
        // Run from clips/: the file is one folder up.
        let run = try Run.loopprep(
            ["analyze", "--format", "json", "--fail-on", "never", ".."], in: root.appendingPathComponent("clips"))
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        #expect(report.options.target == .web)
        #expect(report.options.minimumLoopSeconds == Rational(2, 5))
        #expect(report.options.disabled == ["moov-at-end"])
        #expect(report.options.thresholds == ["seam-visual-jump": 255])
        #expect(
            report.options.config.map {
                URL(fileURLWithPath: $0, relativeTo: root.appendingPathComponent("clips")).standardizedFileURL.path
            }
                == root.appendingPathComponent(".loopprep.json").standardizedFileURL.path)
        let rules = try Self.rules(run.stdout)
        // raw/ is skipped whole; the rest each lose what the config turns off.
        #expect(
            rules.keys.sorted() == [
                "../clips/moov-at-end.mp4", "../clips/seam-click.mp4", "../clips/seam-jump.mp4",
                "../clips/too-short.mp4", "../legacy/seam-click.mp4",
            ])
        #expect(!rules.values.joined().contains("moov-at-end"))  // disabled
        #expect(!rules["../clips/seam-jump.mp4"]!.contains("seam-visual-jump"))  // threshold 255
        #expect(!rules["../clips/too-short.mp4"]!.contains("too-short-to-loop"))  // 0.5 s against a 0.4 s minimum
        #expect(rules["../clips/seam-click.mp4"]!.contains("seam-audio-click"))
        #expect(!rules["../legacy/seam-click.mp4"]!.contains("seam-audio-click"))  // ignored under legacy/
        #expect(report.files.first { $0.path == "../legacy/seam-click.mp4" }?.ignoredRules == ["seam-audio-click"])
        #expect(report.files.first { $0.path == "../clips/seam-click.mp4" }?.ignoredRules == nil)
    }

    @Test func theCommandLineWins() throws {
        let root = try Self.project(Self.config)
        let run = try Run.loopprep(
            [
                "analyze", "--format", "json", "--fail-on", "never", "--min-loop", "1", "--target", "apple",
                "clips", "raw/too-short.mp4",
            ], in: root)
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        #expect(report.options.target == .apple && report.options.minimumLoopSeconds == Rational(1))
        let rules = try Self.rules(run.stdout)
        #expect(rules["clips/too-short.mp4"]!.contains("too-short-to-loop"))
        // Named on the command line (as pre-commit names staged files): still skipped, with a note naming the
        // entry and the way round it (eslint does the same).
        #expect(rules["raw/too-short.mp4"] == nil)
        #expect(
            run.stderr.contains(
                #"loopprep: note: raw/too-short.mp4 is skipped: "#), "\(run.stderr)")
        #expect(run.stderr.contains(#"ignores "raw/" (--no-config analyzes it)"#), "\(run.stderr)")
        // Only ignored files named (a pre-commit hook on a commit touching raw/ alone): not a
        // failure, a note and an empty report, exit 0 (it was exit 2, "no media found", and refused the commit).
        let ignoredOnly = try Run.loopprep(["analyze", "--fail-on", "error", "raw/too-short.mp4"], in: root)
        #expect(ignoredOnly.status == 0, "\(ignoredOnly.stderr)")
        #expect(ignoredOnly.stderr.contains("nothing to analyze: the file named is ignored by the project's settings"))
        // --no-config: the defaults, every file.
        let bare = try Run.loopprep(
            ["analyze", "--format", "json", "--fail-on", "never", "--no-config", "."], in: root)
        let all = try Self.rules(bare.stdout)
        #expect(all.count == 6)
        #expect(all["./clips/moov-at-end.mp4"] == ["moov-at-end"])
        #expect(all["./legacy/seam-click.mp4"]!.contains("seam-audio-click"))
        #expect(try JSONDecoder().decode(Report.self, from: Data(bare.stdout.utf8)).options.config == nil)
        // --config names another file, used as it is; its patterns are rooted at its own folder.
        let other = try Run.temporaryDirectory().appendingPathComponent("other.json")
        try Data(#"{ "disable": ["too-short-to-loop"] }"#.utf8).write(to: other)
        let named = try Self.rules(
            try Run.loopprep(
                ["analyze", "--format", "json", "--fail-on", "never", "--config", other.path, "raw"], in: root
            ).stdout)
        #expect(named["raw/too-short.mp4"] == [])
    }

    @Test func aBadConfigIsAUsageErrorNamingTheFile() throws {
        let root = try Self.project(#"{ "disable": ["moov-at-start"] }"#)
        let run = try Run.loopprep(["analyze", "clips"], in: root)
        #expect(run.status == 64)
        #expect(
            run.stderr.hasPrefix(
                """
                loopprep: error: \(root.appendingPathComponent(".loopprep.json").standardizedFileURL.path) \
                \"disable\" names \"moov-at-start\", no such rule
                """
            ))
        #expect(run.stdout == "")
        // fix reads the same file the same way.
        #expect(try Run.loopprep(["fix", "--dry-run", "clips"], in: root).status == 64)
        // Unreadable --config: one line, exit 64.
        let missing = try Run.loopprep(["analyze", "--config", "nope.json", "clips"], in: root)
        #expect(missing.status == 64 && missing.stderr == "loopprep: error: nope.json: cannot be read\n")
    }

    @Test func fixTakesTheTargetAndIgnoresFromTheFile() throws {
        // The file's target is fix's too (it decides whether trims are baked); raw is skipped.
        let root = try Self.project(#"{ "target": "web", "ignore": [ { "path": "raw" } ] }"#)
        let run = try Run.loopprep(["fix", "--dry-run", "--format", "json", "."], in: root)
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        #expect(report.options.target == .web)
        #expect(!report.files.contains { $0.path.hasPrefix("./raw/") })
        #expect(report.files.count == 5)
    }
}
