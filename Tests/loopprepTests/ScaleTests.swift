import Foundation
import LoopAnalysis
import Testing

@testable import loopprep

/// Past one machine: shards, their merge, JSON Lines, SARIF, several reports from one call.
@Suite struct ScaleTests {
    static func analyze(_ args: [String]) throws -> String {
        try Run.loopprep(["analyze", Run.fixtures.path, "--no-seam", "--quiet"] + args).stdout
    }

    /// Four shards run as four processes, merged, give the same bytes as one run over the folder; every file
    /// is in exactly one shard, and the split does not move when another file is added elsewhere.
    @Test func shardsMergeToTheSameBytes() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = try Self.analyze(["--format", "json"])
        var parts: [String] = []
        var counts: [Int] = []
        for k in 0..<4 {
            let part = dir.appendingPathComponent("\(k).json").path
            try Data(try Self.analyze(["--format", "json", "--shard", "\(k)/4"]).utf8).write(
                to: URL(fileURLWithPath: part))
            parts.append(part)
            let doc =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: part))) as? [String: Any]
            counts.append((doc?["files"] as? [Any])?.count ?? -1)
        }
        let merged = try Run.loopprep(["report"] + parts + ["--format", "json", "--quiet"])
        #expect(merged.stdout == whole)
        let total = ((try JSONSerialization.jsonObject(with: Data(whole.utf8)) as? [String: Any])?["files"] as? [Any])?
            .count
        #expect(counts.reduce(0, +) == total && counts.allSatisfy { $0 > 0 })
        // JSON Lines shards merge the same way.
        let lineParts = try (0..<2).map { k -> String in
            let part = dir.appendingPathComponent("\(k).jsonl").path
            try Data(try Self.analyze(["--format", "jsonl", "--shard", "\(k)/2"]).utf8).write(
                to: URL(fileURLWithPath: part))
            return part
        }
        #expect(try Run.loopprep(["report"] + lineParts + ["--format", "json", "--quiet"]).stdout == whole)
        let page = dir.appendingPathComponent("merged.html").path
        _ = try Run.loopprep(["report"] + parts + ["--quiet", "--html", page])
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("clean.mp4"))
        // Stable: a file's shard depends on its own relative path only.
        let extra = dir.appendingPathComponent("media")
        let moved = dir.appendingPathComponent("media-more")
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        for name in ["clean.mp4", "hevc.mp4", "obs.mkv", "rtmp.flv"] {
            try FileManager.default.copyItem(atPath: Run.fixture(name), toPath: extra.appendingPathComponent(name).path)
        }
        try FileManager.default.copyItem(at: extra, to: moved)
        try FileManager.default.copyItem(
            atPath: Run.fixture("camera.m2ts"), toPath: moved.appendingPathComponent("camera.m2ts").path)
        func shardOf(_ folder: URL) throws -> [String: Int] {
            var out: [String: Int] = [:]
            for k in 0..<3 {
                let doc =
                    try JSONSerialization.jsonObject(
                        with: Data(
                            try Run.loopprep([
                                "analyze", folder.path, "--no-seam", "--quiet", "--format", "json",
                                "--shard", "\(k)/3",
                            ]).stdout.utf8)) as? [String: Any]
                for f in (doc?["files"] as? [[String: Any]]) ?? [] {
                    out[URL(fileURLWithPath: f["path"] as? String ?? "").lastPathComponent] = k
                }
            }
            return out
        }
        let before = try shardOf(extra)
        let after = try shardOf(moved)
        #expect(before.count == 4 && before.allSatisfy { after[$0.key] == $0.value })
    }

    /// One object a line, parseable alone, each with its path; the last line the summary, equal to the JSON
    /// report's.
    @Test func jsonLinesAreSelfContained() throws {
        let lines = try Self.analyze(["--format", "jsonl"]).split(separator: "\n").map(String.init)
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let files = objects.filter { $0["kind"] as? String == "file" }
        #expect(files.count == objects.count - 1 && objects.last?["kind"] as? String == "summary")
        #expect(
            files.allSatisfy {
                (($0["file"] as? [String: Any])?["path"] as? String)?.isEmpty == false
                    && $0["schemaVersion"] as? Int == 1
            })
        let json =
            try JSONSerialization.jsonObject(with: Data(try Self.analyze(["--format", "json"]).utf8)) as? [String: Any]
        let summary = NSDictionary(dictionary: objects.last?["summary"] as? [String: Any] ?? [:])
        #expect(summary.isEqual(to: json?["summary"] as? [String: Any] ?? ["x": 1]))
    }

    /// fix streams JSON Lines too: a line a file with its fix outcome, then the summary.
    @Test func fixWritesJSONLines() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep([
            "fix", Run.fixture("audio-longer.mp4"), Run.fixture("clean.mp4"), "-o", dir.path, "--format", "jsonl",
            "--quiet",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let objects = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            objects.count == 3 && objects.last?["kind"] as? String == "summary"
                && objects.first?["command"] as? String == "fix")
        let statuses = objects.dropLast().compactMap {
            (($0["file"] as? [String: Any])?["fix"] as? [String: Any])?["status"] as? String
        }.sorted()
        #expect(statuses == ["fixed", "unchanged"])
    }

    /// SARIF 2.1.0, checked against the standard's required structure: version, runs, the tool's driver with
    /// unique rules, and results that each name a declared rule, a level SARIF knows, a message and a location.
    @Test func sarifIsValid() throws {
        let doc = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try Self.analyze(["--format", "sarif", "--fail-on", "never"]).utf8)) as? [String: Any])
        #expect(doc["version"] as? String == "2.1.0" && (doc["$schema"] as? String)?.contains("sarif-2.1.0") == true)
        let runs = try #require(doc["runs"] as? [[String: Any]])
        #expect(runs.count == 1)
        let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "loopprep")
        let rules = try #require(driver["rules"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(Set(rules).count == rules.count && !rules.isEmpty)
        let results = try #require(runs[0]["results"] as? [[String: Any]])
        #expect(!results.isEmpty)
        for r in results {
            #expect(rules.contains(r["ruleId"] as? String ?? ""))
            #expect(["none", "note", "warning", "error"].contains(r["level"] as? String ?? ""))
            #expect(((r["message"] as? [String: Any])?["text"] as? String)?.isEmpty == false)
            let uri =
                (((r["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?[
                    "artifactLocation"] as? [String: Any])?["uri"] as? String
            #expect(uri.map { !$0.isEmpty && URL(string: $0) != nil } == true)
            // What code scanning needs to place and track a result: a region (line 1 of a
            // binary file), a base for a relative path, a fingerprint.
            let location = try #require(
                ((r["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]))
            #expect((location["region"] as? [String: Any])?["startLine"] as? Int == 1)
            let artifact = try #require(location["artifactLocation"] as? [String: Any])
            if let relative = artifact["uri"] as? String, !relative.hasPrefix("file:") {
                #expect(artifact["uriBaseId"] as? String == "%SRCROOT%" && !relative.hasPrefix("/"))
            }
            #expect((r["partialFingerprints"] as? [String: String])?.isEmpty == false)
        }
        // Each rule explains itself: its meaning and what to do, not its id again.
        for rule in try #require(driver["rules"] as? [[String: Any]]) {
            let id = rule["id"] as? String ?? ""
            let short = (rule["shortDescription"] as? [String: Any])?["text"] as? String ?? ""
            #expect(!short.isEmpty && !short.contains(id), "\(id): \(short)")
            #expect(((rule["help"] as? [String: Any])?["text"] as? String)?.isEmpty == false)
        }
        // The base is the working folder, a URI ending in a slash.
        let base = (runs[0]["originalUriBaseIds"] as? [String: Any])?["%SRCROOT%"] as? [String: Any]
        #expect((base?["uri"] as? String).map { $0.hasPrefix("file:///") && $0.hasSuffix("/") } == true)
    }

    /// GitLab's Code Quality report: one issue per finding of the same run's JSON report, each with what GitLab
    /// requires (description, check_name, a unique fingerprint, a severity it knows, a relative path and line).
    @Test func gitlabCodeQualityHasAnIssuePerFinding() throws {
        let issues = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try Self.analyze(["--format", "gitlab", "--fail-on", "never"]).utf8)) as? [[String: Any]])
        let report = try JSONDecoder().decode(
            Report.self, from: Data(try Self.analyze(["--format", "json", "--fail-on", "never"]).utf8))
        #expect(issues.count == report.files.flatMap(\.findings).count)
        let fingerprints = issues.compactMap { $0["fingerprint"] as? String }
        #expect(Set(fingerprints).count == issues.count)
        for issue in issues {
            #expect((issue["description"] as? String)?.isEmpty == false)
            #expect(Analyzer.allIDs.contains(issue["check_name"] as? String ?? ""))
            #expect(["info", "minor", "major", "critical", "blocker"].contains(issue["severity"] as? String ?? ""))
            let location = try #require(issue["location"] as? [String: Any])
            let path = try #require(location["path"] as? String)
            #expect(!path.hasPrefix("/") && FileManager.default.fileExists(atPath: path), "\(path)")
            #expect((location["lines"] as? [String: Any])?["begin"] as? Int == 1)
        }
    }

    /// One analyze call, three reports: text on stdout, JUnit and SARIF in files, so CI runs it once.
    @Test func severalReportsFromOneCall() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("loopprep.xml").path
        let sarif = dir.appendingPathComponent("loopprep.sarif").path
        let run = try Run.loopprep([
            "analyze", Run.fixture("audio-longer.mp4"), "--no-seam", "--report", "junit=" + junit, "--report",
            "sarif=" + sarif,
        ])
        #expect(run.status == 1 && run.stdout.contains("audio-longer-than-video"))
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("<testsuite"))
        #expect(try String(contentsOfFile: sarif, encoding: .utf8).contains("\"ruleId\" : \"audio-longer-than-video\""))
        let bad = try Run.loopprep(["analyze", Run.fixture("clean.mp4"), "--report", "xml=" + junit])
        #expect(bad.status == 64)
    }

    /// The JSON report is assembled value by value (not found in the encoder's layout): it decodes as a
    /// report, and is the same document the encoder writes for the whole report at once.
    @Test func jsonReportIsTheEncodersDocument() throws {
        let out = try Self.analyze(["--format", "json"])
        let report = try JSONDecoder().decode(Report.self, from: Data(out.utf8))
        #expect(report.files.count > 40)
        // (The command line's encoder: its layout, and its words for refusals.)
        let encoder = JSONFormat.encoder()
        #expect(encoder.outputFormatting == [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n" == out)
    }

    /// One analysis, one set of figures: the report is the same with and without the pictures.
    @Test func picturesDoNotChangeTheFigures() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = try Run.loopprep([
            "analyze", Run.fixture("seam-jump.mp4"), Run.fixture("seam-click.mp4"), "--format", "json", "--quiet",
        ])
        let pictured = try Run.loopprep([
            "analyze", Run.fixture("seam-jump.mp4"), Run.fixture("seam-click.mp4"), "--format", "json", "--quiet",
            "--seam-images", dir.path, "--html", dir.appendingPathComponent("r.html").path,
        ])
        #expect(plain.stdout == pictured.stdout && plain.stdout.contains("videoDifference"))
    }

    /// --disable RULE: the rule is not reported (and the exit code follows), an unknown rule is a usage error,
    /// and fix still verifies its output against every rule.
    @Test func disabledRulesAreNotReported() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let on = try Run.loopprep(["analyze", Run.fixture("audio-longer.mp4"), "--no-seam"])
        let off = try Run.loopprep([
            "analyze", Run.fixture("audio-longer.mp4"), "--no-seam", "--disable", "audio-longer-than-video",
        ])
        #expect(on.status == 1 && on.stdout.contains("audio-longer-than-video"))
        #expect(off.status == 0 && !off.stdout.contains("audio-longer-than-video"))
        #expect(try Run.loopprep(["analyze", Run.fixture("clean.mp4"), "--disable", "no-such-rule"]).status == 64)
        let fixed = try Run.loopprep([
            "fix", Run.fixture("audio-longer.mp4"), "-o", dir.path, "--disable", "audio-longer-than-video",
        ])
        #expect(fixed.status == 0)
        #expect(
            !(try Run.loopprep(["analyze", dir.appendingPathComponent("audio-longer.mp4").path, "--no-seam"]).stdout
                .contains("audio-longer-than-video")))
    }

    /// A missing folder is one problem (unreadable, not also an error); stitch's refusals are reports with
    /// --format json: the reel's record refused, its sentence and the difference in one line.
    @Test func refusalsAreCountedOnceAndDocumented() throws {
        let run = try Run.loopprep(["analyze", "/nonexistent/loopprep-folder", "--format", "json", "--quiet"])
        #expect(run.status == 2)
        let summary =
            (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["summary"]
            as? [String: Any]
        #expect(summary?["unreadable"] as? Int == 1 && summary?["errors"] as? Int == 0)
        let stitch = try Run.loopprep([
            "stitch", Run.fixture("clean.mp4"), Run.fixture("hevc.mp4"), "-o", "/tmp/loopprep-never.mp4", "--format",
            "json",
        ])
        #expect(stitch.status == 1)
        let outcome = try stitch.file()["outcome"] as? [String: Any]
        #expect(outcome?["status"] as? String == "refused" && outcome?["cause"] as? String == "plan")
        let reason = outcome?["reason"] as? String ?? ""
        #expect(reason.contains("differ") && reason.contains("hevc.mp4: codec hevc, where"), "\(reason)")
        // Every report format says it: JUnit fails the reel's case under stitch-failed.
        let junit = try Run.loopprep([
            "stitch", Run.fixture("clean.mp4"), Run.fixture("hevc.mp4"), "-o", "/tmp/loopprep-never.mp4", "--format",
            "junit",
        ])
        #expect(junit.status == 1 && junit.stdout.contains("<failure") && junit.stdout.contains("stitch-failed"))
    }

    /// An empty folder is not success.
    @Test func emptyFolderIsNoMedia() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["analyze", dir.path])
        #expect(run.status == 2 && run.stderr.contains("no media found"))
        let fix = try Run.loopprep(["fix", dir.path, "-o", dir.appendingPathComponent("out").path])
        #expect(fix.status == 2 && fix.stderr.contains("no media found"))
    }
}
