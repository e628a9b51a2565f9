import Foundation
import LoopIndex
import LoopRange
import TestSupport
import Testing

/// ClipLoopRange.measure, the loop range an app measures on the device, held to the CLI: on every MP4, MOV, M4A and
/// fragmented MP4 fixture, field by field what `loopprep analyze --no-seam --format json` gives, for every codec
/// AVFoundation plays (fixtures/make-app-codecs.sh: PCM in each QuickTime form, ALAC, AC-3, E-AC-3, AV1, MPEG-4 Part
/// 2, ProRes; HE-AAC, MP3 and AMR from the other recipes). The app needs the CLI's report only where a decoder must
/// say: AAC-LC at 22.05 kHz, which may carry SBR no box declares; and a file that is not media is an error in the
/// CLI's words.
@Suite struct MeasureTests {
    static let isoExtensions: Set = ["mp4", "mov", "m4a", "m4v", "3gp"]
    static let needsTheCLI: Set = ["aac-lc-22k.m4a"]

    static func isoFixtures() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Repository.fixtures.path)
            .filter { isoExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }

    @Test func measureIsTheCLIsRangeOnEveryISOFixture() throws {
        let names = try Self.isoFixtures()
        #expect(names.count >= 60)
        let run = try Run.loopprep(
            ["analyze", "--no-seam", "--format", "json", "--jobs", "2"] + names.map(Run.fixture))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        let errors = Dictionary(
            uniqueKeysWithValues: files.compactMap { f in (f["path"] as? String).map { ($0, f["error"] as? String) } })
        let cli = Dictionary(
            uniqueKeysWithValues: try LoopRangeReport.decode(Data(run.stdout.utf8)).map { ($0.path, $0) })
        var equal = 0
        for name in names {
            let path = Run.fixture(name)
            let expected = try #require(cli[path], "\(name)")
            if Self.needsTheCLI.contains(name) {
                let clip = try ClipLoopRange.measureNow(URL(fileURLWithPath: path))
                #expect(clip.loopRange == nil && clip.loopRangeReason?.contains("loopprep analyze's report") == true)
                #expect(clip.loopRangeReason?.contains("SBR that no box declares (only a decoder can say)") == true)
                continue
            }
            if let error = errors[path] ?? nil {
                // Unreadable for the CLI (empty, truncated, encrypted): measure refuses it too, in the same words
                // (bytes of no container: in the same first words, FFmpeg's own left out).
                var (said, reason): (String?, String?)
                do { _ = try ClipLoopRange.measureNow(URL(fileURLWithPath: path)) } catch {
                    (said, reason) = ("\(error)", (error as? MediaError)?.reason)
                }
                let notMedia = "not a video or audio file"
                #expect(said == error || (error.hasPrefix(notMedia) && reason?.hasPrefix(notMedia) == true), "\(name)")
                #expect(expected.loopRange == nil, "\(name)")
                continue
            }
            let clip = try ClipLoopRange.measureNow(URL(fileURLWithPath: path))
            #expect(clip.loopRange == expected.loopRange, "\(name)")
            #expect(clip.loopRangeReason == expected.loopRangeReason, "\(name)")
            if clip.loopRange == expected.loopRange { equal += 1 }
        }
        #expect(equal >= 75)
    }

    /// A designed loop on the device: 90 frames at 30000/1001 over 2.5 s of sound. The range keeps the 74 frames the
    /// sound covers (74 x 1001/30000 = 2.469 s < 2.5 s < 75 x 1001/30000), and says it leaves out the other 16, with
    /// --keep video to keep them: never a bare 74-frame range.
    @Test func aDesignedLoopsRangeSaysWhatItCuts() throws {
        let clip = try ClipLoopRange.measureNow(URL(fileURLWithPath: Run.fixture("designed-loop.mp4")))
        let range = try #require(clip.loopRange)
        #expect(range.duration == "37037/15000" && range.cures == ["video-longer-than-audio"])
        let note = try #require(range.note)
        #expect(note.contains("leaves out the picture's last 16 of 90 frames") && note.contains("fix --keep video"))
    }

    /// Not an MP4 at all, or one cut off before its index: thrown, in the CLI's words, never "needs the report". A
    /// file of another container is named as such.
    @Test func whatIsNotALoopIsAnError() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url
        }
        // ISO 14496-12: a box is a 32-bit size and a four-byte type; ftyp, then an mdat, and no moov after it.
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [24, 16, 8, 0].map { UInt8(size >> $0 & 0xff) } + Array(type.utf8) + payload
        }
        let cutOff = try file(
            "take.mov",
            box("ftyp", Array("qt  ".utf8) + [0, 0, 0, 0]) + box("mdat", [UInt8](repeating: 7, count: 4000)))
        let png = try file(
            "still.mp4", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 100))
        let page = try file("page.mp4", Array("<!DOCTYPE html><html><body>a clip</body></html>".utf8))
        for (url, words) in [
            (cutOff, "an MP4/MOV with no index (no moov box)"), (png, "not a video or audio file"),
            (page, "not a video or audio file"),
        ] {
            let error = #expect(throws: MediaError.self) { try ClipLoopRange.measureNow(url) }
            #expect(error?.reason.hasPrefix(words) == true, "\(url.lastPathComponent): \(error?.reason ?? "")")
            let cli = try Run.loopprep(["analyze", "--no-seam", url.path])
            #expect(cli.status == 2 && cli.stdout.contains(words), "\(cli.stdout)")
        }
        // A QuickTime movie need not begin with ftyp: one that begins with its media and has no moov is the same
        // cut-off recording, never "not media".
        let bare = try file("bare.mov", box("wide", []) + box("mdat", [UInt8](repeating: 7, count: 4000)))
        let cut = #expect(throws: MediaError.self) { try ClipLoopRange.measureNow(bare) }
        #expect(cut?.reason.hasPrefix("an MP4/MOV with no index (no moov box)") == true, "\(cut?.reason ?? "")")
        let webm = try ClipLoopRange.measureNow(URL(fileURLWithPath: Run.fixture("vp9-opus.webm")))
        #expect(webm.loopRange == nil && webm.loopRangeReason?.hasPrefix("a Matroska or WebM file, not an MP4") == true)
    }
}

/// measure over http: an app's clip on someone else's server, read by byte ranges.
@Suite(.serialized) struct MeasureOverHTTPTests {
    /// About 20 MB of lossless intra frames over a tone, moov first or (FFmpeg's default) at the end.
    static func clip(_ name: String, in dir: URL, faststart: Bool) throws -> URL {
        let clip = dir.appendingPathComponent(name)
        let made = try Run.tool(
            [
                "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "testsrc2=size=320x240:rate=30:duration=6,noise=alls=40:allf=t", "-f", "lavfi", "-i",
                "sine=duration=6.3", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-g", "1", "-c:a", "aac",
            ] + (faststart ? ["-movflags", "+faststart"] : []) + [clip.path])
        #expect(made.status == 0)
        return clip
    }

    @Test(arguments: [true, false])
    func aRemoteClipIsMeasuredFromUnderOnePercentOfItsBytes(faststart: Bool) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try Self.clip("clip.mp4", in: dir, faststart: faststart)
        let size = try #require(
            (try FileManager.default.attributesOfItem(atPath: clip.path)[.size] as? NSNumber)?.intValue)
        #expect(size > 18_000_000)
        let server = try RangeServer(serving: dir)
        let remote = try ClipLoopRange.measureNow(try #require(URL(string: server.url("clip.mp4"))))
        let local = try ClipLoopRange.measureNow(clip)
        #expect(remote.loopRange != nil && remote.loopRange == local.loopRange)
        #expect(remote.loopRangeReason == local.loopRangeReason)
        #expect(server.bytesSent("clip.mp4") * 100 < size, "sent \(server.bytesSent("clip.mp4")) of \(size)")
        #expect(server.openEndedRequests("clip.mp4") == 0)
        // And the CLI's own reading of the same URL gives the same range.
        let run = try Run.loopprep(["analyze", "--no-seam", "--format", "json", server.url("clip.mp4")])
        #expect(try LoopRangeReport.decode(Data(run.stdout.utf8)).first?.loopRange == remote.loopRange)
    }

    /// A server that ignores ranges, and one without the file: refused in a sentence, never measured wrong.
    @Test func aServerWithoutRangesOrTheFileIsRefused() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: Run.fixture("clean.mp4")), to: dir.appendingPathComponent("clean.mp4"))
        let server = try RangeServer(serving: dir)
        server.honoursRanges = false
        let whole = try #require(URL(string: server.url("clean.mp4")))
        let ignored = #expect(throws: MediaError.self) { try ClipLoopRange.measureNow(whole) }
        #expect(ignored?.reason.contains("does not serve byte ranges") == true)
        server.honoursRanges = true
        let missing = try #require(URL(string: server.url("missing.mp4")))
        let absent = #expect(throws: MediaError.self) { try ClipLoopRange.measureNow(missing) }
        #expect(absent?.reason.contains("the server answered 404") == true)
    }
}
