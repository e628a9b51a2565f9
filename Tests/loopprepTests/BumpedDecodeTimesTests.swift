import Foundation
import TestSupport
import Testing

/// dts-bumped.mp4 and dts-bumped-only.mp4 (fixtures/make-robust.sh): 90 frames of H.264 with B-frames at 30000/1001
/// on a 90 kHz clock, copied by the ffmpeg CLI with every second decode time from the fourth packet repeated, which
/// it writes a tick after the one before ("Non-monotonous DTS ... changing to 6007"): 44 bumped decode times, each
/// frame's presentation time its own. One with 3.2 s of sound, one with the picture's 3.003 s (144144 samples).
/// analyze read "90000 fps" and frames of a tick; fix wrote a file FFmpeg read a frame short, and refused it.
@Suite struct BumpedDecodeTimesTests {
    @Test(arguments: ["dts-bumped.mp4", "dts-bumped-only.mp4"])
    func bumpedDecodeTimesAreOneRateAndFixedAFrameApart(file: String) throws {
        let clip = Run.fixture(file)
        let analyzed = try Run.loopprep(["analyze", clip, "--no-seam", "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(analyzed.stdout.utf8)) as? [String: Any])
        let facts = try #require((json["files"] as? [[String: Any]])?.first?["facts"] as? [String: Any])
        let video = try #require((facts["tracks"] as? [[String: Any]])?.first { $0["kind"] as? String == "video" })
        #expect(video["frameCount"] as? Int == 90)
        #expect(video["relaidDecodeTimes"] as? Int == 44)
        #expect(video["frameRate"] as? String == "30000/1001")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", clip, "-o", dir.path, "--no-seam"])
        #expect(run.stdout.contains("fixed ->"), "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("lays the 44 decode times"), "\(run.stdout)")
        // The video's own line says the rewrite, not "unchanged".
        #expect(run.stdout.contains("video 0 (h264): lays 44 bumped decode times a frame apart"), "\(run.stdout)")
        let out = dir.appendingPathComponent(file).path
        // FFmpeg's own reading of the output: 90 frames, 3.003 s, every decode step a frame (3003 ticks).
        let stream = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=nb_frames,duration", "-of",
            "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(stream == "3.003000,90")
        let dts = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=dts", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(dts.count == 90 && zip(dts, dts.dropFirst()).allSatisfy { $1 - $0 == 3003 }, "\(dts)")
        let frames = try Run.tool([
            "ffmpeg", "-v", "error", "-i", out, "-map", "0:v", "-fps_mode", "passthrough", "-f", "framemd5", "-",
        ]).stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(frames.count == 90)
        // 3.003 s of sound (144144 samples at 48 kHz), as FFmpeg reads the output's audio track.
        let sound = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(sound == "3.003000")
        let again = try Run.loopprep(["fix", out, "-o", dir.appendingPathComponent("again").path, "--no-seam"])
        #expect(again.stdout.contains("already clean: copied unchanged"), "\(again.stdout)\(again.stderr)")
    }
}
