import Foundation
import TestSupport
import Testing

/// Remote clips (http://, https://): analyze reads by range requests only what it needs; fix downloads beside
/// its output; a server that drops the connection is one file's clear error, and the batch goes on.
@Suite(.serialized) struct RemoteTests {
    /// A moov-first MP4 of about 50 MB (lossless intra frames) made in a temporary folder.
    static func bigClip(in dir: URL) throws -> URL {
        let clip = dir.appendingPathComponent("big.mp4")
        let made = try Run.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
            "testsrc2=size=320x240:rate=30:duration=14,noise=alls=40:allf=t",
            "-f", "lavfi", "-i", "sine=duration=14", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-g", "1",
            "-c:a", "aac", "-movflags", "+faststart", clip.path,
        ])
        #expect(made.status == 0)
        return clip
    }

    @Test func analyzeFetchesUnderOnePercentOfAMoovFirstClip() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try Self.bigClip(in: dir)
        let size = try #require(
            (try FileManager.default.attributesOfItem(atPath: clip.path)[.size] as? NSNumber)?.intValue)
        #expect(size > 40_000_000)
        // The index alone (--no-seam): the server sends under 1% of the file, every request a bounded range
        // (FFmpeg's own demuxer reads through loopprep's ranges too: it would ask for the rest of the file).
        let indexOnly = try RangeServer(serving: dir)
        let quick = try Run.loopprep(["analyze", indexOnly.url("big.mp4"), "--no-seam", "--verbose", "--quiet"])
        #expect(quick.status == 0 || quick.status == 1, "\(quick.stderr)")
        #expect(indexOnly.bytesSent("big.mp4") * 100 < size, "sent \(indexOnly.bytesSent("big.mp4")) of \(size)")
        #expect(indexOnly.openEndedRequests("big.mp4") == 0)
        // --verbose says what was fetched, and it is what the server sent.
        #expect(quick.stderr.contains("fetched \(indexOnly.bytesSent("big.mp4")) bytes of \(size)"))
        // With the seam checks: the first frames and the last GOP too (here 3-4 intra frames of 130 KB at each
        // end), still a small part.
        let server = try RangeServer(serving: dir)
        let run = try Run.loopprep(["analyze", server.url("big.mp4"), "--format", "json", "--quiet"])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        #expect(server.bytesSent("big.mp4") * 20 < size, "sent \(server.bytesSent("big.mp4")) of \(size)")
        #expect(server.openEndedRequests("big.mp4") == 0)
        // The same findings as the local file's.
        let local = try Run.loopprep(["analyze", clip.path, "--format", "json", "--quiet"])
        func rules(_ json: String) throws -> [String] {
            let doc = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            return (((doc?["files"] as? [[String: Any]])?.first?["findings"] as? [[String: Any]]) ?? []).compactMap {
                $0["rule"] as? String
            }
        }
        #expect(try rules(run.stdout) == rules(local.stdout))
    }

    @Test func droppedConnectionIsOneFilesErrorAndFixDownloads() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(
            atPath: Run.fixture("audio-longer.mp4"), toPath: dir.appendingPathComponent("clip.mp4").path)
        let server = try RangeServer(serving: dir)
        // fix of a URL: downloaded, repaired, written under -o by its name.
        let out = dir.appendingPathComponent("out")
        let fixed = try Run.loopprep(["fix", server.url("clip.mp4?X-Amz-Signature=abc"), "-o", out.path])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("clip.mp4").path))
        // stitch reads remote clips as it goes (range requests where it seeks).
        let stitched = out.appendingPathComponent("stitched.mp4").path
        let stitch = try Run.loopprep([
            "stitch", server.url("clip.mp4"), server.url("clip.mp4"), "--transition", "crossfade", "--duration", "0.2",
            "-o", stitched,
        ])
        #expect(stitch.status == 0, "\(stitch.stderr)")
        let frames = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", stitched,
        ])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "54")
        // A server that stops after 100 bytes: that URL is unreadable, named; the local file is still analyzed.
        server.dropAfter = 100
        let run = try Run.loopprep(["analyze", server.url("clip.mp4"), Run.fixture("clean.mp4"), "--no-seam"])
        #expect(run.status == 2)
        #expect(run.stdout.contains("clean.mp4") && run.stderr.contains(server.url("clip.mp4")))
    }

    /// A server that ignores Range (200 and the whole file, no Accept-Ranges): one sentence naming the cause and the
    /// remedy, exit 2, no FFmpeg or errno text; the local file beside it is still analyzed.
    @Test func aServerWithoutRangesIsOneClearSentence() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(
            atPath: Run.fixture("clean.mp4"), toPath: dir.appendingPathComponent("clip.mp4").path)
        let server = try RangeServer(serving: dir)
        server.honoursRanges = false
        let run = try Run.loopprep(["analyze", server.url("clip.mp4"), Run.fixture("clean.mp4"), "--no-seam"])
        #expect(run.status == 2)
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains(server.url("clip.mp4")) })
        #expect(line.contains("does not serve byte ranges") && line.contains("download it"), "\(line)")
        #expect(!line.contains("Operation not permitted") && !line.contains("("), "\(line)")
        #expect(run.stdout.contains("clean.mp4"))
    }

    /// A file the server does not have: "the server answered 404", loopprep's words first and the
    /// remedy, FFmpeg's own text only after them; exit 2.
    @Test func aMissingRemoteFileSaysTheServerAnswered404() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RangeServer(serving: dir)
        let run = try Run.loopprep(["analyze", server.url("gone.mp4"), "--no-seam"])
        #expect(run.status == 2)
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains(server.url("gone.mp4")) })
        #expect(
            line.contains("the server answered 404: check the address, and that the file is still there"), "\(line)")
        #expect(!line.contains("damaged"), "\(line)")
    }

    /// A URL's percent-encoded name is the output's plain one: `My%20Clip.mp4` fixed is
    /// `out/My Clip.mp4`, the same clip's frames; a server that ignores ranges is read whole for fix.
    @Test(arguments: [true, false])
    func aPercentEncodedNameIsWrittenPlain(ranges: Bool) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let served = dir.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        // The server maps the request's path to a file name as it comes: the file is named as the URL spells it.
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: Run.fixture("video-longer.mp4")),
            to: served.appendingPathComponent("My%20Clip.mp4"))
        let server = try RangeServer(serving: served)
        server.honoursRanges = ranges
        let out = dir.appendingPathComponent("out")
        let run = try Run.loopprep(["fix", server.url("My%20Clip.mp4"), "-o", out.path, "--no-seam", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["My Clip.mp4"])
    }
}
