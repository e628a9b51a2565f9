import Foundation
import TestSupport
import Testing

/// Clips cut by stream copy before a reel (fixtures/make-robust.sh: `ffmpeg -ss 1.3 -i src.mkv -t 3 -c copy` of x264
/// veryfast footage, B-frames, a keyframe every 50 frames at 25 fps): each cut ends mid-GOP, the P-frame its last
/// B-frames lean on shown after the cut's end but stored before them. stitch once copied that P-frame with the
/// last clip's body and refused its own reel ("the copied frames ended at decode time 8000, not at the planned
/// 7960"); the copy now stops where no frame shown after the end has been read, and the rest is encoded again.
@Suite struct StreamCopyCutReelTests {
    /// A stream's packet times in milliseconds, in presentation order.
    static func stamps(_ path: String, _ stream: String) throws -> [Int] {
        try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts", "-of", "csv=p=0", path,
        ]).stdout.split(whereSeparator: \.isNewline).compactMap { Int($0.split(separator: ",").first ?? "") }.sorted()
    }

    @Test(arguments: [["ss-cut-a.mkv", "ss-cut-b.mkv"], ["ss-cut-b.mkv", "ss-cut-a.mkv"]])
    func aReelOfStreamCopyCutsIsWrittenWithEveryFrameItPresents(order: [String]) throws {
        let clips = order.map(Run.fixture)
        // Each clip as fix cuts it: its 40 ms frames from the first, up to the end of its sound, the AAC frames
        // (1024 samples at 48 kHz) played back to back from 0; the shortest track sets the end.
        var frames = 0
        for clip in clips {
            let video = try Self.stamps(clip, "v")
            let audioEnd = Double(try Self.stamps(clip, "a").count * 1024) / 48000
            let kept = Int(((audioEnd - Double(video[0]) / 1000) * 25).rounded(.down))
            #expect(kept <= video.count, "\(clip)")
            frames += min(kept, video.count)
        }
        // A crossfade of 0.4 s overlaps 10 frames.
        let expected = frames - 10
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.mp4").path
        let run = try Run.loopprep(["stitch"] + clips + ["--transition", "crossfade", "--duration", "0.4", "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // The reel's picture by ffprobe (its edit list) and by FFmpeg's decoder.
        let duration = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(((Double(duration) ?? 0) * 25).rounded()) == expected, "\(duration) s, \(expected) frames")
        let decoded = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
            "stream=nb_read_frames", "-of", "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(decoded) == expected, "\(decoded) decoded, \(expected) expected")
    }
}
