import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct PicturesTests {
    /// ffprobe's reading of a picture: codec and size.
    static func probe(_ path: String) throws -> (codec: String, width: Int, height: Int) {
        let text = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path,
        ]).stdout
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        return (
            String(parts.first ?? ""), Int(parts.count > 1 ? parts[1] : "") ?? 0,
            Int(parts.count > 2 ? parts[2] : "") ?? 0
        )
    }

    @Test func seamStripsDecodeHaveTheirSizeAndShowTheDifference() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let dir = work.appendingPathComponent("strips")
        let run = try Run.loopprep([
            "analyze", "--seam-images", dir.path, Run.fixture("clean.mp4"), Run.fixture("seam-jump.mp4"),
            Run.fixture("seam-click.mp4"), Run.fixture("audio-only.m4a"), Run.fixture("surround-51.mp4"),
        ])
        #expect(run.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names.count == 5)
        func strip(_ fixture: String) -> String {
            dir.appendingPathComponent(names.first { $0.hasSuffix(fixture + ".seam.png") }!).path
        }
        // 6 tiles of 160 px, gaps, a seam gap and margins: 1006 px wide; frames + one lane per channel + the
        // 22-pixel time axis high: 8 + 90 (160x90 tiles) + 8 + 56 + 8 + 22.
        let clean = try Self.probe(strip("clean.mp4"))
        #expect(clean.codec == "png" && clean.width == 1006 && clean.height == 192)
        #expect(try Self.probe(strip("surround-51.mp4")).height == 192 + 5 * 60)
        #expect(try Self.probe(strip("audio-only.m4a")).height == 8 + 56 + 8 + 22)
        // A jumpy seam looks different from a clean one (the pictures are not all the same drawing).
        let a = try Data(contentsOf: URL(fileURLWithPath: strip("clean.mp4")))
        let b = try Data(contentsOf: URL(fileURLWithPath: strip("seam-jump.mp4")))
        let c = try Data(contentsOf: URL(fileURLWithPath: strip("seam-click.mp4")))
        #expect(a != b && a != c)
    }

    @Test func htmlParsesAndNamesEveryFinding() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let page = work.appendingPathComponent("report.html")
        let run = try Run.loopprep(["analyze", "--html", page.path, "--format", "json", Run.fixtures.path])
        #expect(run.status == 2)
        let doc = try XMLDocument(contentsOf: page)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        let sections = try doc.nodes(forXPath: "//*[local-name()='section']")
        #expect(sections.count == files.count)
        let text = doc.rootElement()?.stringValue ?? ""
        for file in files {
            for finding in (file["findings"] as? [[String: Any]]) ?? [] {
                let message = try #require(finding["message"] as? String)
                #expect(text.contains(message), "missing: \(message)")
            }
        }
        // Pictures are inline (the page works offline), one per readable clip.
        let images = try doc.nodes(forXPath: "//*[local-name()='img']/@src").compactMap(\.stringValue)
        // (The unreadable: three broken, one encrypted, an Ogg stream naming no codec, an OGM FFmpeg stops in, an
        // Ogg FLAC cut before 0, two Ogg files with a damaged page, a WebM recording cut short, a QuickTime movie
        // whose media was stripped; and ogmmerge's OGM, whose first and last frames FFmpeg 5.1 cannot decode (9.0
        // can), has no picture there.)
        let unreadable = files.filter { $0["error"] != nil }.count
        let undecodable = files.filter {
            (($0["notes"] as? [String]) ?? []).contains { $0.contains("could not decode the clip's first and last") }
        }.count
        #expect(unreadable == 11 && undecodable <= 1)
        #expect(images.count == files.count - unreadable - undecodable)
        #expect(images.allSatisfy { $0.hasPrefix("data:image/png;base64,") })
        // Worst first, and a summary with a row per rule.
        #expect(try doc.nodes(forXPath: "//*[local-name()='section']/@data-rank").first?.stringValue == "2")
        #expect(
            try doc.nodes(forXPath: "//*[local-name()='table']//*[local-name()='tr']").count
                == ((json["summary"] as? [String: Any])?["filesByRule"] as? [String: Any])!.count + 1)
    }

    @Test func anUnwritableReportIsOneLineAndExitOne() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let blocker = work.appendingPathComponent("file")
        try "x".write(to: blocker, atomically: true, encoding: .utf8)
        let run = try Run.loopprep([
            "analyze", "--html", blocker.appendingPathComponent("r.html").path, Run.fixture("clean.mp4"),
        ])
        #expect(run.status == 1)
        #expect(run.stdout.contains("clean.mp4  OK"))
        #expect(run.stderr.hasPrefix("loopprep: error: cannot write the pictures or the HTML report: "))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func picturesNeedTheSeamChecks() throws {
        #expect(
            try Run.loopprep(["analyze", "--no-seam", "--html", "/tmp/x.html", Run.fixture("clean.mp4")]).status == 64)
    }
}

/// The HTML summary stands on its own: who wrote it and how, clips and findings counted apart, filters, names that
/// wrap; strip files that never overwrite each other; every JSON report names the version.
@Suite struct ReportPageTests {
    static func page(_ arguments: [String]) throws -> (XMLDocument, String) {
        let work = try Run.temporaryDirectory()
        let page = work.appendingPathComponent("report.html")
        _ = try Run.loopprep(["analyze", "--no-config", "--html", page.path] + arguments)
        return (
            try XMLDocument(contentsOf: page, options: .nodePreserveWhitespace),
            try String(contentsOf: page, encoding: .utf8)
        )
    }

    static func text(_ doc: XMLDocument, _ xpath: String) throws -> [String] {
        try doc.nodes(forXPath: xpath).compactMap(\.stringValue)
    }

    @Test func countsClipsAndFindingsApartAndStatesWhoWroteIt() throws {
        // By construction: clean.mp4 has nothing; moov-at-end.mp4 and seam-click.mp4 one warning each;
        // audio-longer.mp4 one error; zero-bytes.mp4 cannot be read.
        let names = ["clean.mp4", "moov-at-end.mp4", "seam-click.mp4", "audio-longer.mp4", "zero-bytes.mp4"]
        let (doc, _) = try Self.page(names.map(Run.fixture))
        let clips = try Self.text(doc, "//*[@id='clip-count']").first ?? ""
        #expect(clips.hasPrefix("Clips 5 "))
        for part in ["1 clean", "1 with errors", "2 with warnings", "1 unreadable"] {
            #expect(clips.contains(part), "\(part) in \(clips)")
        }
        let findings = try Self.text(doc, "//*[@id='finding-count']").first ?? ""
        #expect(findings.hasPrefix("Findings 3 "))
        for part in ["1 error", "2 warnings", "0 info"] { #expect(findings.contains(part), "\(part) in \(findings)") }
        // Version, date and settings.
        let meta = try Self.text(doc, "//*[local-name()='p'][@class='meta']")
        let version = String(try Run.loopprep(["--version"]).stdout.split(separator: "\n").first ?? "")
        #expect(meta.first?.hasPrefix("loopprep \(version), written ") == true)
        #expect(
            meta.first?.range(of: #"written \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$"#, options: .regularExpression) != nil)
        #expect(
            meta.count > 1
                && meta[1]
                    == "Settings: target apple \u{00B7} min-loop 1.000 s \u{00B7} seam checks on \u{00B7} config: none"
        )
    }

    @Test func filtersOfferTheReportsRulesAndEveryClipSaysWhatItHas() throws {
        let (doc, _) = try Self.page(
            ["clean.mp4", "moov-at-end.mp4", "audio-longer.mp4", "zero-bytes.mp4"].map(Run.fixture))
        let rules = try Self.text(doc, "//*[@id='filter-rule']/*[local-name()='option']/@value")
        #expect(rules == ["", "audio-longer-than-video", "moov-at-end", "unreadable"])
        let severities = try Self.text(doc, "//*[@id='filter-severity']/*[local-name()='option']/@value")
        #expect(severities == ["", "error", "warning", "info", "clean"])
        func section(_ name: String, _ attribute: String) throws -> String? {
            try Self.text(
                doc,
                """
                //*[local-name()='section'][substring(@data-name, string-length(@data-name) - \(name.count - 1)) \
                = '\(name)']/@\(attribute)
                """
            ).first
        }
        #expect(try section("moov-at-end.mp4", "data-rules") == "moov-at-end")
        #expect(try section("moov-at-end.mp4", "data-severities") == "warning")
        #expect(try section("clean.mp4", "data-severities") == "clean")
        #expect(try section("audio-longer.mp4", "data-rules") == "audio-longer-than-video")
        #expect(try section("zero-bytes.mp4", "data-severities") == "error")
        #expect(try Self.text(doc, "//*[@id='shown']").first == "4 of 4 clips shown")
    }

    @Test func longNamesWrapBetweenTheirParts() throws {
        let work = try Run.temporaryDirectory()
        let deep = work.appendingPathComponent("a_very_long_folder_name_from_an_editor_export/another-nested-folder")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        let path = deep.appendingPathComponent("IMG_20261122_235959_final-final.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: path)
        let (doc, source) = try Self.page([path])
        // A break opportunity after each '/' and before each '.', '_' and '-' of the name.
        let breaks = path.filter { "/._-".contains($0) }.count
        #expect(
            try doc.nodes(forXPath: "//*[local-name()='section']/*[local-name()='h2']/*[local-name()='wbr']").count
                == breaks)
        #expect(try Self.text(doc, "//*[local-name()='section']/*[local-name()='h2']").first?.hasSuffix(path) == true)
        // No breaking inside words; a viewport for phones; wide tables scroll in their own box.
        #expect(!source.contains("break-all") && source.contains("h2 { font-size: 1.05rem; overflow-wrap: anywhere; }"))
        #expect(source.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>"))
    }

    @Test func stripsOfClipsWithTheSameNameAreKeptApart() throws {
        let work = try Run.temporaryDirectory()
        var paths: [String] = []
        // Two clips named alike in different folders, and two paths that flatten to the same name.
        for rel in ["x/clip.mp4", "y/clip.mp4", "a/b_c.mp4", "a_b/c.mp4"] {
            let url = work.appendingPathComponent("in").appendingPathComponent(rel)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: url.path)
            paths.append(url.path)
        }
        let strips = work.appendingPathComponent("strips")
        #expect(
            try Run.loopprep([
                "analyze", "--no-config", "--seam-images", strips.path, work.appendingPathComponent("in").path,
            ]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: strips.path)
        #expect(names.count == 4, "\(names)")
        #expect(names.allSatisfy { $0.hasSuffix(".seam.png") })
    }

    /// Non-Latin names keep their letters, and no strip is a hidden dot-file (日本語.mp4 became
    /// `.mp4-24d77d1d.seam.png`).
    @Test func seamImageNamesKeepEveryScript() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let clips = work.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        // Japanese, Greek, and a dot-file.
        let japanese = "\u{65E5}\u{672C}\u{8A9E}.mp4"
        let greek = "\u{0395}\u{03BB}\u{03BB}\u{03B7}\u{03BD}\u{03B9}\u{03BA}\u{03AC}.mp4"
        let paths = [japanese, greek, ".hidden.mp4"].map { clips.appendingPathComponent($0).path }
        for path in paths { try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: path) }
        let strips = work.appendingPathComponent("strips")
        let run = try Run.loopprep(["analyze", "--no-config", "--seam-images", strips.path] + paths)
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: strips.path)
        #expect(names.count == 3 && names.allSatisfy { !$0.hasPrefix(".") }, "\(names)")
        #expect(names.contains { $0.contains(japanese) } && names.contains { $0.contains(greek) }, "\(names)")
    }

    @Test func everyJSONReportNamesTheVersion() throws {
        let version = String(try Run.loopprep(["--version"]).stdout.split(separator: "\n").first ?? "")
        #expect(!version.isEmpty)
        let json = try Run.loopprep(["analyze", "--format", "json", Run.fixture("clean.mp4")]).stdout
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(report["version"] as? String == version && report["tool"] as? String == "loopprep")
        // And the FFmpeg that did the work, as ffprobe (the same libraries) reports them: "libavformat 59. 27.100 /
        // ...".
        let probe = try Run.tool(["ffprobe", "-version"]).stdout.split(separator: "\n").first {
            $0.hasPrefix("libavformat")
        }
        let runtime = probe.flatMap { $0.split(separator: "/").last }.map { $0.replacingOccurrences(of: " ", with: "") }
        #expect(
            (report["ffmpeg"] as? String)?.hasPrefix("libavformat \(runtime ?? "?"), libavcodec ") == true,
            "\(report["ffmpeg"] ?? "none")")
        let lines = try Run.loopprep(["analyze", "--format", "jsonl", Run.fixture("clean.mp4")]).stdout.split(
            separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(
                object?["version"] as? String == version && object?["ffmpeg"] as? String == report["ffmpeg"] as? String)
        }
        let stitch = try Run.loopprep([
            "stitch", "--dry-run", "--format", "json", Run.fixture("clean.mp4"), Run.fixture("clean.mp4"),
        ]).stdout
        #expect(
            (try JSONSerialization.jsonObject(with: Data(stitch.utf8)) as? [String: Any])?["version"] as? String
                == version)
    }

    /// The pages as a user meets them: a stitch of three clips counts three clips (it said
    /// "Clips 1", its output) and one output; a loop page's table has the structure column and fits at 1280 px
    /// (smaller type, headings that wrap); a page with a "play loop" button stops it on a second press and says
    /// how to serve the folder when opened from a file (scripts/test-browser.sh presses it in Chromium); a web
    /// player's own page says so too.
    @Test func pagesCountStopAndSayHowToServe() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let clips = ["h264-gop10-a.mp4", "h264-gop10-b.mp4", "h264-gop10-a.mp4"].map(Run.fixture)
        let page = work.appendingPathComponent("stitch.html")
        let out = work.appendingPathComponent("reel.mp4").path
        let stitch = try Run.loopprep(["stitch"] + clips + ["-o", out, "--html", page.path, "--web-player"])
        #expect(stitch.status == 0, "\(stitch.stdout)\(stitch.stderr)")
        let doc = try XMLDocument(contentsOf: page, options: .nodePreserveWhitespace)
        #expect(try Self.text(doc, "//*[@id='stitched-count']").first?.hasPrefix("Clips 3 ") == true)
        #expect(try Self.text(doc, "//*[@id='clip-count']").first?.hasPrefix("Output 1 ") == true)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("button.textContent = \"stop\"") && html.contains("python3 -m http.server"))
        #expect(html.contains(".player video.loop { display: block; width: 100%;"))
        let player = try String(contentsOf: work.appendingPathComponent("reel.html"), encoding: .utf8)
        #expect(player.contains("<p id=\"served\" hidden>") && player.contains("location.protocol === \"file:\""))

        let loopPage = work.appendingPathComponent("loop.html")
        let loop = try Run.loopprep([
            "loop", Run.fixture("loop-period45.mp4"), "--dry-run", "--html", loopPage.path,
        ])
        #expect(loop.status == 0, "\(loop.stderr)")
        let loopDoc = try XMLDocument(contentsOf: loopPage, options: .nodePreserveWhitespace)
        let headings = try Self.text(loopDoc, "//*[local-name()='table'][@class='scores']//*[local-name()='th']")
        #expect(headings.contains("structure"), "\(headings)")
    }
}
