import Foundation
import FoundationXML
import TestSupport
import Testing

/// `--web-player` in every command that writes a loop (issue 22): the page, the module, the manifest and the
/// fragmented tracks beside the output, named in the text and JSON reports. clean.mp4 (fixtures/make-fixtures.sh)
/// is 1 s of 30 fps H.264 with AAC.
@Suite struct WebPlayerCommandTests {
    @Test func fixWritesThePlayerBesideItsOutputAndSaysWhere() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep([
            "fix", Run.fixture("clean.mp4"), "-o", dir.path, "--web-player", "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        let web = try #require((file["fix"] as? [String: Any])?["webPlayer"] as? [String: Any])
        #expect(web["page"] as? String == dir.appendingPathComponent("clean.html").path)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(
            names == [
                "clean.mp4", "clean.html", "clean.web.json", "clean.web.video0.mp4", "clean.web.audio1.mp4",
                "loopprep-loop.js",
            ])
        let loop = try #require(web["loop"] as? [String: Any])
        #expect(loop["length"] as? String == "1" && loop["origin"] as? String == "1")
    }

    /// stitch of clean.mp4 twice: a 2 s loop (60 frames) with its player; the text report names the page.
    @Test func stitchWritesThePlayerToo() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("both.mp4").path
        let page = dir.appendingPathComponent("pages/report.html")
        let run = try Run.loopprep([
            "stitch", Run.fixture("clean.mp4"), Run.fixture("clean.mp4"), "-o", out, "--web-player", "--html",
            page.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("web player -> \(dir.appendingPathComponent("both.html").path)"))
        let manifest = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: dir.appendingPathComponent("both.web.json"))) as? [String: Any])
        #expect(manifest["length"] as? String == "2")
        let video = try #require((manifest["tracks"] as? [[String: Any]])?.first)
        #expect(video["frames"] as? Int == 60)
        // The report page's "play loop" button loads the player and manifest relative to the page, and the page
        // stays well-formed XHTML.
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(
            html.contains("data-manifest=\"../both.web.json\"") && html.contains("data-module=\"../loopprep-loop.js\""))
        #expect(XMLParser(data: Data(html.utf8)).parse())
    }
}
