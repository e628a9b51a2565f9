import Foundation
import LoopIndex
import LoopRange
import TestSupport
import Testing

/// ClipLoopRange.measure, the loop range an app measures on the device (issue 44), held to the CLI: on every MP4,
/// MOV, M4A and fragmented MP4 fixture, field by field what `loopprep analyze --no-seam --format json` gives. The
/// app needs the CLI's report only where the recipe made what its index reader does not model: AAC whose SBR only
/// a decoder finds (a 24 kHz LC configuration that plays at 48 kHz), PCM, ProRes, MPEG-4 Part 2 video and AMR (read
/// by FFmpeg), and a file that is not an MP4.
@Suite struct MeasureTests {
    static let isoExtensions: Set = ["mp4", "mov", "m4a", "m4v", "3gp"]
    static let needsTheCLI: Set = [
        "he-aac-output-clock.m4a", "he-aac-sbr.mp4", "lpcm-24bit-96k.mov", "prores-pcm.mov", "mpeg4-amr.3gp",
        "text.mp4", "tiny-2x2-mp3.mp4",
    ]

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
                continue
            }
            if let error = errors[path] ?? nil {
                // Unreadable for the CLI (empty, truncated, encrypted): measure refuses it too, in the same words.
                var said: String?
                do { _ = try ClipLoopRange.measureNow(URL(fileURLWithPath: path)) } catch { said = "\(error)" }
                #expect(said == error, "\(name)")
                #expect(expected.loopRange == nil, "\(name)")
                continue
            }
            let clip = try ClipLoopRange.measureNow(URL(fileURLWithPath: path))
            #expect(clip.loopRange == expected.loopRange, "\(name)")
            #expect(clip.loopRangeReason == expected.loopRangeReason, "\(name)")
            if clip.loopRange == expected.loopRange { equal += 1 }
        }
        #expect(equal >= 60)
    }
}

/// measure over http: an app's clip on someone else's server, read by byte ranges (issue 44, item 3).
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
