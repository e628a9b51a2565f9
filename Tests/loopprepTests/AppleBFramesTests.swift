import Foundation
import TestSupport
import Testing

/// Apple-style H.264 with B-frames on QuickTime's 600 clock (fixtures/make-fixtures.sh: moov at
/// the end with and without an edit list, and fragmented at 29.97 fps), over 2.1 s of AAC. Each frame lasts its
/// stts delta (20 ticks at 30 fps; 20.02 rounded at 29.97), so the video ends at 1200 ticks (2.000 s) or 1201
/// (2.001667 s) with all 60 frames, the audio is cut there, and the output fixed again is a byte copy.
@Suite struct AppleBFramesTests {
    @Test(arguments: [
        ("apple-bframes-600.mov", "2.000000"), ("apple-bframes-600-noedit.mov", "2.000000"),
        ("apple-bframes-600-frag.mp4", "2.001667"),
    ])
    func theEndIsTheLastPresentedFramesEnd(file: String, seconds: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture(file), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent(file).path
        let video = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=duration,nb_frames", "-of",
            "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(video == "\(seconds),60")
        let again = try Run.loopprep(["fix", out, "-o", dir.appendingPathComponent("again").path])
        #expect(again.status == 0 && again.stdout.contains("already clean"), "\(again.stdout)")
        #expect(
            FileManager.default.contentsEqual(
                atPath: out, andPath: dir.appendingPathComponent("again").appendingPathComponent(file).path))
    }

    /// The same with `--seam-fade` (the audio encoded again, so FFmpeg's muxer writes the file): the last stored
    /// frame (a B-frame, shown before the last P) keeps its index length, 20 ticks, where FFmpeg's demuxer gives 1;
    /// the muxer ended the video 19 ticks short (1.968 s) and the check refused it. Every frame, to the same end.
    @Test(arguments: [
        ("apple-bframes-600.mov", "2.000000"), ("apple-bframes-600-noedit.mov", "2.000000"),
        ("apple-bframes-600-frag.mp4", "2.001667"),
    ])
    func aSeamFadeKeepsTheLastFramesLength(file: String, seconds: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture(file), "--seam-fade", "10ms", "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let video = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=duration,nb_frames", "-of",
            "csv=p=0", dir.appendingPathComponent(file).path,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(video == "\(seconds),60")
    }
}

/// Negative composition offsets (fixtures/negative-cts.mp4, signed-ctts-v0.mp4: ctts version 1 and a version 0 read
/// signed; cmaf-sidx.mp4), with `--seam-fade` (FFmpeg's muxer writes the file): their frames are shown before they
/// are decoded on the index's clock, which the muxer refuses ("Invalid argument"); the decode times move earlier by
/// the largest lead, so the copy is written, its frames FFmpeg's decoding of a plain fix's, time for time.
@Suite struct NegativeOffsetMuxTests {
    static func frames(_ path: String) throws -> String {
        let out = try Run.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"]).stdout
        return out.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return "\(fields[2]) \(fields[5])"
        }.joined(separator: "\n")
    }

    @Test(arguments: ["negative-cts.mp4", "signed-ctts-v0.mp4", "cmaf-sidx.mp4"])
    func aSeamFadeCopiesFramesShownBeforeTheyAreDecoded(file: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let faded = dir.appendingPathComponent("faded")
        let plain = dir.appendingPathComponent("plain")
        let run = try Run.loopprep(["fix", Run.fixture(file), "--seam-fade", "10ms", "-o", faded.path])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(try Run.loopprep(["fix", Run.fixture(file), "-o", plain.path]).status == 0)
        let want = try Self.frames(plain.appendingPathComponent(file).path)
        #expect(want.split(separator: "\n").count == 30)
        #expect(try Self.frames(faded.appendingPathComponent(file).path) == want)
    }
}

/// VP9 and Opus in MP4 through FFmpeg's muxer (`--seam-fade`, `--loops`): VP9's sample entry (vpcC) needs the pixel
/// format, which the demuxer does not give until frames are decoded (FFmpeg could not read the moov back), and an
/// .m4a of Opus went to the iPod muxer, which takes no Opus ("Invalid argument" at the header). Both are written,
/// the brand as it was, the video's frames a plain fix's.
@Suite struct MuxerPathCodecTests {
    @Test(arguments: ["vp9-aac.mp4", "rec-vp9-opus.mp4", "rec-opus.m4a"])
    func aSeamFadeWritesVP9AndOpusInMP4(file: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let faded = dir.appendingPathComponent("faded")
        let run = try Run.loopprep(["fix", Run.fixture(file), "--seam-fade", "10ms", "-o", faded.path])
        #expect(run.status == 0, "\(run.stdout)")
        let out = faded.appendingPathComponent(file).path
        // (The file type box's major brand: a fragmented input's iso6 need not stay among the compatible ones.)
        let brand = { (path: String) in
            try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 12)?.dropFirst(4)
        }
        let (written, given) = (try brand(out), try brand(Run.fixture(file)))
        #expect(written == given && written != nil)
        guard file.hasSuffix(".mp4") else { return }
        let plain = dir.appendingPathComponent("plain")
        #expect(try Run.loopprep(["fix", Run.fixture(file), "-o", plain.path]).status == 0)
        let want = try NegativeOffsetMuxTests.frames(plain.appendingPathComponent(file).path)
        let got = try NegativeOffsetMuxTests.frames(out)
        #expect(!want.isEmpty && got == want)
    }
}

/// A loop cut from a MOV with a timecode track (fixtures/chapters-timecode.mov: 01:00:00:00 at frame 0, 30 fps),
/// whose head is encoded again (FFmpeg's muxer writes its timecode track): the loop's timecode is the input's at the
/// loop's first frame, and its timecode track ends with the movie (the muxer's spanned the video's stored frames, a
/// frame longer, and the check refused the loop).
@Suite struct LoopTimecodeTests {
    @Test func aLoopsTimecodeStartsAtItsFirstFrame() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mov").path
        let run = try Run.loopprep(["loop", Run.fixture("chapters-timecode.mov"), "-o", out, "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let file = try #require((document["files"] as? [[String: Any]])?.first)
        let chosen = try #require(file["chosen"] as? Int)
        let first = try #require((file["candidates"] as? [[String: Any]])?[chosen]["inFrame"] as? Int)
        // (JSON: FFmpeg 9's CSV also lists the streams of its stream groups, a timecode reference among them.)
        let json = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "stream=codec_tag_string,duration:stream_tags=timecode", "-of",
            "json", out,
        ]).stdout
        let streams =
            (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["streams"] as? [[String: Any]]
            ?? []
        let probed = streams.map { stream in
            [
                stream["codec_tag_string"] as? String ?? "", stream["duration"] as? String ?? "",
                (stream["tags"] as? [String: String])?["timecode"] ?? "",
            ]
        }
        let frame = "01:00:00:" + String(format: "%02d", first)
        let video = try #require(probed.first, "\(json)")
        #expect(video[0] == "avc1" && video[2] == frame, "\(probed)")
        #expect(probed.contains(["tmcd", video[1], frame]), "\(probed)")
    }
}
