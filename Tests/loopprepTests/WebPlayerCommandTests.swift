import Foundation
import LoopAnalysis
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `--web-player` in every command that writes a loop: the page, the module, the manifest and the
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

    /// Two web players, one name: hero.mp4 and hero.webm fixed into one folder each get their own
    /// page and manifest, named in full (hero.mp4.html, hero.webm.html), and each page fetches its own manifest
    /// (the MP4's page was silently replaced by the WebM's).
    @Test func twoOutputsWithOneStemKeepTheirOwnPlayers() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("hero.mp4").path
        let webm = dir.appendingPathComponent("hero.webm").path
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: mp4)
        try FileManager.default.copyItem(atPath: Run.fixture("vp9-opus.webm"), toPath: webm)
        let site = dir.appendingPathComponent("site")
        let run = try Run.loopprep(["fix", mp4, webm, "-o", site.path, "--web-player"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for name in ["hero.mp4", "hero.webm"] {
            let page = try String(contentsOf: site.appendingPathComponent(name + ".html"), encoding: .utf8)
            #expect(page.contains("fetch(\"\(name).web.json\")"), "\(name)")
            let manifest = try String(contentsOf: site.appendingPathComponent(name + ".web.json"), encoding: .utf8)
            #expect(manifest.contains(name.hasSuffix("webm") ? "webm" : "mp4"))
        }
        #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent("hero.html").path))
    }

    /// A clip named with `&`, `<`, quotes, `#`, `?` and spaces: the page fetches its manifest by
    /// a URL inside a `<script>` (where HTML entities are not decoded), percent-encoded: decoded, it is the
    /// manifest's own name, and nothing in it can end the script or the string.
    @Test func anOddNameFetchesItsOwnManifest() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = #"R&D "q" <1> 'a b' #2?"#
        let clip = dir.appendingPathComponent(name + ".mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: clip)
        let out = dir.appendingPathComponent("out")
        let run = try Run.loopprep(["fix", clip, "-o", out.path, "--web-player"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let page = try String(contentsOf: out.appendingPathComponent(name + ".html"), encoding: .utf8)
        let fetched = try #require(
            page.components(separatedBy: "fetch(\"").dropFirst().first?.components(separatedBy: "\")").first)
        #expect(!fetched.contains("<") && !fetched.contains("\"") && !fetched.contains("&") && !fetched.contains("#"))
        let decoded = try #require(fetched.removingPercentEncoding)
        #expect(decoded == name + ".web.json")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(decoded).path))
        // Every name in the manifest, resolved by the player's own code (node runs the module) against the
        // manifest's URL, is a path that decodes to a file beside it (`new URL(media)` on the raw
        // name fetched `R&D "q" <1> 'a b' ` and dropped the rest as a fragment).
        let module = dir.appendingPathComponent("loopprep-loop.mjs").path
        try FileManager.default.copyItem(atPath: out.appendingPathComponent("loopprep-loop.js").path, toPath: module)
        let loop = try JSONDecoder().decode(
            WebLoop.self, from: Data(contentsOf: out.appendingPathComponent(name + ".web.json")))
        let names = loop.sources.flatMap { [$0.media] + ($0.first.map { [$0] } ?? []) } + [loop.fallback]
        func json<T: Encodable>(_ value: T) throws -> String {
            String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        }
        let script = """
            import { LoopPlayer } from \(try json(module));
            const base = "http://127.0.0.1:8000/out/" + \(try json(fetched));
            for (const name of \(try json(names))) {
              const url = LoopPlayer.resolve(name, base);
              const plain = url.search + url.hash === "";
              console.log(plain ? decodeURIComponent(url.pathname) : "query or fragment: " + url);
            }
            """
        let resolved = try Run.tool(["node", "--input-type=module", "-e", script])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let paths = resolved.stdout.split(separator: "\n").map(String.init)
        #expect(paths == names.map { "/out/" + $0 }, "\(resolved.stdout)")
        for path in paths { #expect(FileManager.default.fileExists(atPath: dir.path + path), "\(path)") }
    }

    /// analyze's report plays each clip from a folder under the report's: the clip it falls
    /// back to is inside that folder (a link or a copy), where the page says to serve, never above it.
    @Test func analyzePlayersStayInsideTheServedFolder() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = dir.appendingPathComponent("site/report.html").path
        let run = try Run.loopprep([
            "analyze", Run.fixture("clean.mp4"), Run.fixture("vp9-opus.webm"), "--html", report, "--web-player",
            "--target", "web",
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let root = dir.appendingPathComponent("site/report.web")
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.path)
        #expect(folders.count == 2)
        for folder in folders {
            let place = root.appendingPathComponent(folder)
            let manifest = try #require(
                try FileManager.default.contentsOfDirectory(atPath: place.path).first { $0.hasSuffix(".web.json") })
            let loop = try JSONDecoder().decode(
                WebLoop.self, from: Data(contentsOf: place.appendingPathComponent(manifest)))
            for name in loop.sources.map(\.media) + [loop.fallback] {
                #expect(!name.contains(".."), "\(folder): \(name)")
                #expect(FileManager.default.fileExists(atPath: place.appendingPathComponent(name).path))
            }
        }
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

    /// analyze --html --web-player: a button per clip that can loop in a browser (clean.mp4, and av1-opus.webm: 1 s
    /// of AV1 and Opus), each clip's player in its own folder under report.web/ with the clip beside it;
    /// prores-pcm.mov (no codec the player appends) gets no button, a line on stderr, and no folder.
    @Test func analyzeGivesEachClipAPlayButton() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("report.html")
        let clips = ["clean.mp4", "av1-opus.webm", "prores-pcm.mov"].map(Run.fixture)
        let run = try Run.loopprep(["analyze"] + clips + ["--html", page.path, "--web-player"])
        #expect(run.stderr.contains("\(clips[2]): no play button: "))
        #expect(run.stderr.contains("video track 0 (prores) in MOV is not one of them"))
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(XMLParser(data: Data(html.utf8)).parse())
        let manifests = html.components(separatedBy: "data-manifest=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        #expect(manifests.count == 2 && manifests.allSatisfy { $0.hasPrefix("report.web/") })
        for manifest in manifests {
            let url = dir.appendingPathComponent(manifest)
            let loop = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            // The fallback is the clip itself, linked or copied into the manifest's folder (the served one).
            let fallback = url.deletingLastPathComponent().appendingPathComponent(loop["fallback"] as? String ?? "")
            #expect(
                clips.contains { FileManager.default.contentsEqual(atPath: $0, andPath: fallback.path) },
                "\(manifest)")
            for source in loop["sources"] as? [[String: Any]] ?? [] {
                let media = url.deletingLastPathComponent().appendingPathComponent(source["media"] as? String ?? "")
                #expect(FileManager.default.fileExists(atPath: media.path), "\(media.path)")
            }
        }
        let folders = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("report.web").path)
        #expect(folders.count == 2 && !folders.contains { $0.contains("prores") })
        let alone = try Run.loopprep(["analyze", clips[0], "--web-player"])
        #expect(alone.status == 64 && alone.stderr.contains("give --html too"))
    }
}

extension WebPlayerCommandTests {
    /// The web player's no-go is part of fix's plan: a MOV with PCM audio (lpcm-24bit-96k.mov) cannot get one, so
    /// fix --web-player refuses before writing (it wrote the clip, then said "NOT FIXED" and "0 written"), and the
    /// dry run says the same.
    @Test func aClipThePlayerCannotTakeIsRefusedBeforeItIsWritten() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let clip = Run.fixture("lpcm-24bit-96k.mov")
        let runs =
            [try Run.loopprep(["fix", clip, "-o", out, "--web-player", "--dry-run"])]
            + [try Run.loopprep(["fix", clip, "-o", out, "--web-player"])]
        for run in runs {
            #expect(run.status == 1, "\(run.stdout)")
            #expect(
                run.stdout.contains("audio track 1 (pcm_s24le) in MOV is not one of them; nothing written"),
                "\(run.stdout)")
            #expect(run.stdout.contains("0 written, 1 not fixed"), "\(run.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

extension WebPlayerCommandTests {
    /// loop --web-player of a Matroska clip into a folder (its loop stays Matroska, which browsers do not append):
    /// refused before anything is written, by the rule fix's plan follows, in the dry run in the same words (it
    /// was written, then said to have no web player).
    @Test func loopRefusesAWebPlayerItCannotHaveBeforeWriting() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let clip = Run.fixture("phone-joined.mkv")
        let dry = try Run.loopprep(["loop", clip, "-o", out + "/", "--web-player", "--dry-run"])
        let wet = try Run.loopprep(["loop", clip, "-o", out + "/", "--web-player"])
        let sentence = "phone-joined.mkv is not one; nothing written (loop it into an MP4 with -o NAME.mp4"
        #expect(dry.stdout.contains(sentence) && wet.stdout.contains(sentence), "\(dry.stdout)\n\(wet.stdout)")
        #expect(dry.status == 1 && wet.status == 1)
        // Blended (its container refused before any work), and a stitch's reel named .mkv.
        let blend = try Run.loopprep(["loop", clip, "-o", out + "/", "--web-player", "--crossfade", "0.3"])
        #expect(blend.status == 1 && blend.stdout.contains(sentence), "\(blend.stdout)")
        let reel = dir.appendingPathComponent("out/reel.mkv").path
        let clips = [Run.fixture("ss-cut-a.mkv"), Run.fixture("ss-cut-b.mkv")]
        for dryRun in [["--dry-run"], []] {
            let stitch = try Run.loopprep(["stitch"] + clips + ["-o", reel, "--web-player"] + dryRun)
            #expect(stitch.status == 1, "\(stitch.stderr)")
            let said = "reel.mkv is not one; nothing written (name the reel .mp4"
            #expect(stitch.stderr.contains(said), "\(stitch.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

extension WebPlayerCommandTests {
    /// A reel's and a blend's codecs are their plans' and refused before writing as fix's are: two ALAC clips in MOV
    /// (tone-late-ntsc.mov, make-metadata.sh 18) stitched into reel.mov keep ALAC, which browsers do not append; the
    /// reel was written, then said to have no web player. Now refused, in the dry run in the same words, and
    /// nothing is written; so is loop --crossfade of one, its hint the web player, not the crossfade.
    @Test func aReelsCodecsAreRefusedBeforeWriting() throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("tone-late-ntsc.mov")
        let reel = dir.appendingPathComponent("reel.mov").path
        let said = "audio track 1 (alac) in MOV is not one of them; nothing written (without --web-player it is written"
        for dryRun in [["--dry-run"], []] {
            let stitch = try Run.loopprep(["stitch", clip, clip, "-o", reel, "--web-player"] + dryRun)
            #expect(stitch.status == 1 && stitch.stderr.contains(said), "\(stitch.stdout)\(stitch.stderr)")
        }
        let loop = dir.appendingPathComponent("loop.mov").path
        let blend = try Run.loopprep(["loop", clip, "-o", loop, "--web-player", "--crossfade", "0.3"])
        #expect(blend.status == 1 && blend.stdout.contains(said), "\(blend.stdout)")
        #expect(blend.stdout.contains("(loop it without --web-player)"), "\(blend.stdout)")
        // The loop itself was not written (not a loop written without its web player).
        #expect(blend.stdout.contains("NOT WRITTEN: ") && !blend.stdout.contains("NO WEB PLAYER"), "\(blend.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        // Without --web-player the reel is written.
        #expect(try Run.loopprep(["stitch", clip, clip, "-o", reel]).status == 0)
    }
}
