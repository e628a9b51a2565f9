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
    /// tone-late.mp4's half frames (0.15 s is 4.5 frames, made 5: 3.667 s; 0.25 s 8: 3.467 s; 0.45 s 14: 3.067 s;
    /// 0.55 s 17: 2.867 s) wrapped 6-22x rougher than the inside at the stream's rate: the frames either side of the
    /// wrap are coded with the most bits AAC carries.
    @Test(arguments: [
        ("tone-late.mp4", "0.3", 163_200), ("tone-late.mp4", "0.5", 144_000), ("tone-late.mp4", "0.15", 176_000),
        ("tone-late.mp4", "0.25", 166_400), ("tone-late.mp4", "0.45", 147_200), ("tone-late.mp4", "0.55", 137_600),
        ("tone-late.webm", "0.3", 161_280), ("tone-late.webm", "0.5", 142_080), ("tone-late.webm", "7f", 165_120),
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
        // Opus's pre-roll is the 80 ms its decoder needs to converge (RFC 7845), hidden by the pre-skip with the
        // encoder's own 312 samples: 312 + 3840 in the OpusHead (bytes 10-11, little-endian).
        if ext == "webm" {
            let probe = try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", "a", "-show_streams", "-show_data", out,
            ])
            let line = try #require(probe.stdout.split(separator: "\n").first { $0.hasPrefix("00000000:") })
            let bytes = line.split(separator: " ").dropFirst().prefix(8).flatMap { word in
                stride(from: 0, to: word.count, by: 2).compactMap { k in
                    UInt8(word.dropFirst(k).prefix(2), radix: 16)
                }
            }
            #expect(bytes.count == 16 && Int(bytes[10]) | Int(bytes[11]) << 8 == 312 + 3840, "\(line)")
        }
    }

    /// The wrap skips no sample where a join's frames are not whole samples. tone-late-ntsc.mov (fixtures/
    /// make-metadata.sh, 18): section 4's tone at 29.97 fps, 44.1 kHz, in ALAC (the reel's samples are the clips'),
    /// 24-bit, 59 frames a clip (its sound ends 88 samples before its 60th frame does). A crossfade of f frames is
    /// f x 1471.47 samples: the first clip's opening takes round(f x 1471.47) samples, the join's slot at the reel's
    /// end round(end) - round(end - f x 1471.47), one more or one fewer for 12 (0.4 s), 16 (0.55 s) and 18 (0.6 s):
    /// the wrap stepped by 0.031 (a sample skipped), 0.003 and 0.016. The reel is 118 - 2f frames, its samples
    /// round((118 - 2f) x 1001 / 30000 x 44100); its first sample is the first clip's sample round(f x 1471.47), and
    /// the wave turns at the wrap no more sharply than a 440 Hz tone at 44.1 kHz does (0.5 x (2 pi 440 / 44100)^2).
    @Test(arguments: [("0.4", 12, 138_318), ("0.55", 16, 126_546), ("0.6", 18, 120_661)])
    func aWrapOnAFractionalSampleGridSkipsNoSample(_ duration: String, _ frames: Int, _ count: Int) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.mov").path
        let clip = Run.fixture("tone-late-ntsc.mov")
        let run = try Run.loopprep(
            ["stitch", clip, clip, "-o", out, "--loop", "--transition", "crossfade", "--duration", duration])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("(\(frames) frames)"), "\(run.stdout)")
        let samples = try Self.decoded(out)
        let source = try Self.decodedWhole(clip)
        #expect(samples.count == count)
        let opening = Int((Double(frames) * 1001 / 30000 * 44100).rounded())
        #expect(samples.first == source[opening])
        // The clips' 24 bits (ALAC's header says them; the MOV's sample entry says 16).
        let bits = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=bits_per_raw_sample", "-of",
            "csv=p=0", out,
        ])
        #expect(bits.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "24")
        let around = (Array(samples.suffix(16)) + Array(samples.prefix(16))).map(Double.init)
        var turns: [Double] = []
        for n in 1..<around.count - 1 {
            let bend: Double = around[n + 1] - 2 * around[n] + around[n - 1]
            turns.append(abs(bend))
        }
        let toneTurn = 0.5 * pow(2 * Double.pi * 440 / 44100, 2)
        #expect((turns.max() ?? 1) < 1.5 * toneTurn, "\(turns)")
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
