import Foundation
import TestSupport
import Testing

/// The wrap sounds like the inside. tone-late.mp4 (fixtures/make-metadata.sh): 2 s whose 440 Hz tone of amplitude
/// 1/2 starts after 56.6 ms of silence. Stitched with itself --loop --transition crossfade, the reel's samples wrap
/// exactly, so its decoded wave may turn at the wrap no more sharply than a 440 Hz tone does anywhere: its second
/// difference is at most 0.5 x (2 pi 440 / 48000)^2 = 0.0017 a sample. Coded as a one-off stream, the wrap stepped
/// by 0.12 there. tone-late.webm (section 10) is the same at 25 fps in VP9 and Opus: Matroska has no edit list, and
/// the reel's wrap stepped by 0.10 until Opus's pre-skip hid the circle's pre-roll.
@Suite struct WrapSoundTests {
    static let toneTurn = 0.5 * pow(2 * Double.pi * 440 / 48000, 2)

    /// The crossfades are whole frames (a duration between two rounds to the nearer, 7.5 up): two 2 s clips less
    /// two crossfades. tone-late.mp4 at 30 fps: 0.3 s is 9 frames (3.4 s), 0.5 s 15 (3.0 s); tone-late.webm at 25
    /// fps: 0.3 s is 7.5 frames, made 8 (3.36 s), 0.5 s 12.5, made 13 (2.96 s), and 7 frames said as such (3.44 s).
    @Test(arguments: [
        ("tone-late.mp4", "0.3", 163_200), ("tone-late.mp4", "0.5", 144_000), ("tone-late.webm", "0.3", 161_280),
        ("tone-late.webm", "0.5", 142_080), ("tone-late.webm", "7f", 165_120),
    ])
    func aLoopingReelsAudioIsCodedAsACircle(_ name: String, _ duration: String, _ count: Int) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ext = (name as NSString).pathExtension
        let out = dir.appendingPathComponent("reel.\(ext)").path
        let clip = Run.fixture(name)
        let run = try Run.loopprep(
            ["stitch", clip, clip, "-o", out, "--loop", "--transition", "crossfade", "--duration", duration]
                + (ext == "webm" ? ["--target", "chrome"] : []))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(!run.stdout.contains("seam-audio-click"), "\(run.stdout)")
        // FFmpeg's decode of the presented samples, the wrap between its last sample and its first.
        let samples = ext == "webm" ? try Self.decodedWhole(out) : try Self.decoded(out)
        #expect(samples.count == count)
        let around = (Array(samples.suffix(16)) + Array(samples.prefix(16))).map(Double.init)
        var turn: [Double] = []
        for n in 1..<around.count - 1 {
            let bend: Double = around[n + 1] - 2 * around[n] + around[n - 1]
            turn.append(abs(bend))
        }
        let sharpest = turn.max() ?? 1
        #expect(sharpest < 3 * Self.toneTurn, "\(turn)")
    }

    /// The click check measures the wrap itself in an Ogg with video (fixtures/make-metadata.sh, 6): its figure is
    /// the one its definition gives on FFmpeg's decode of the whole file, from the first sample (the step from the
    /// wave's course set by the last two samples and the first two). After a seek on the video, FFmpeg's Ogg reading
    /// timed the Vorbis packets thousands of samples off, and the figure came from elsewhere (0.029 against 0.0016).
    @Test(arguments: ["theora-vorbis-441.ogg", "theora-opus-440.ogg"])
    func anOggWithVideoIsMeasuredAtItsWrap(_ name: String) throws {
        let clip = Run.fixture(name)
        let run = try Run.loopprep(["analyze", clip, "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        let seam = try #require((file["facts"] as? [String: Any])?["seam"] as? [String: Any])
        let measured = try #require((seam["audioJump"] as? [Double])?.first)
        let samples = try Self.decodedWhole(clip).map(Double.init)
        let (first, second) = (samples[0], samples[1])
        let (previous, final) = (samples[samples.count - 2], samples[samples.count - 1])
        let expected = abs(first - (final + ((final - previous) + (second - first)) / 2))
        // The tone wraps whole: what is left is the codec's own error, a small fraction of the 0.029 measured
        // elsewhere.
        #expect(expected < 0.005)
        #expect(abs(measured - expected) < 1e-5, "measured \(measured), FFmpeg's decode \(expected)")
    }

    /// Every sample FFmpeg decodes from the file's audio, as mono floats.
    static func decodedWhole(_ path: String) throws -> [Float] {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("a.f32").path
        try Run.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a", "-f", "f32le", "-ac", "1", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The decoded mono samples FFmpeg presents (its edit list applied; the CLI leaves the end's trim to the
    /// reader, so the count comes from the track's presented duration).
    static func decoded(_ path: String) throws -> [Float] {
        let count = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts", "-of", "csv=p=0",
            path,
        ])
        let n = try #require(Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        return Array(try decodedWhole(path).prefix(n))
    }
}
