import Foundation
import FoundationXML
import Testing

@Suite struct PicturesTests {
    /// ffprobe's reading of a picture: codec and size.
    static func probe(_ path: String) throws -> (codec: String, width: Int, height: Int) {
        let text = try Run.tool(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path]).stdout
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        return (String(parts.first ?? ""), Int(parts.count > 1 ? parts[1] : "") ?? 0, Int(parts.count > 2 ? parts[2] : "") ?? 0)
    }

    @Test func seamStripsDecodeHaveTheirSizeAndShowTheDifference() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let dir = work.appendingPathComponent("strips")
        let run = try Run.loopprep(["analyze", "--seam-images", dir.path, Run.fixture("clean.mp4"), Run.fixture("seam-jump.mp4"),
                                    Run.fixture("seam-click.mp4"), Run.fixture("audio-only.m4a"), Run.fixture("surround-51.mp4")])
        #expect(run.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names.count == 5)
        func strip(_ fixture: String) -> String { dir.appendingPathComponent(names.first { $0.hasSuffix(fixture + ".seam.png") }!).path }
        // 6 tiles of 160 px, gaps, a seam gap and margins: 1006 px wide; frames + one lane per channel high.
        let clean = try Self.probe(strip("clean.mp4"))
        #expect(clean.codec == "png" && clean.width == 1006 && clean.height == 170)
        #expect(try Self.probe(strip("surround-51.mp4")).height == 170 + 5 * 60)
        #expect(try Self.probe(strip("audio-only.m4a")).height == 72)
        // A jumpy seam looks different from a clean one (the pictures are not all the same drawing).
        let a = try Data(contentsOf: URL(fileURLWithPath: strip("clean.mp4"))), b = try Data(contentsOf: URL(fileURLWithPath: strip("seam-jump.mp4")))
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
        #expect(images.count == files.count - 3)
        #expect(images.allSatisfy { $0.hasPrefix("data:image/png;base64,") })
        // Worst first, and a summary with a row per rule.
        #expect(try doc.nodes(forXPath: "//*[local-name()='section']/@data-rank").first?.stringValue == "2")
        #expect(try doc.nodes(forXPath: "//*[local-name()='table']//*[local-name()='tr']").count == ((json["summary"] as? [String: Any])?["filesByRule"] as? [String: Any])!.count + 1)
    }

    @Test func anUnwritableReportIsOneLineAndExitOne() throws {
        let work = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let blocker = work.appendingPathComponent("file")
        try "x".write(to: blocker, atomically: true, encoding: .utf8)
        let run = try Run.loopprep(["analyze", "--html", blocker.appendingPathComponent("r.html").path, Run.fixture("clean.mp4")])
        #expect(run.status == 1)
        #expect(run.stdout.contains("clean.mp4  OK"))
        #expect(run.stderr.hasPrefix("loopprep: error: cannot write the pictures or the HTML report: "))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func picturesNeedTheSeamChecks() throws {
        #expect(try Run.loopprep(["analyze", "--no-seam", "--html", "/tmp/x.html", Run.fixture("clean.mp4")]).status == 64)
    }
}
