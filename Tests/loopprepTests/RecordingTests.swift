import Foundation
import TestSupport
import Testing

/// Browser recordings (fixtures/make-recordings.sh: MediaRecorder in headless Chromium and Firefox over a canvas and
/// an oscillator): their stamps are a capture clock's. The clock was real, so every figure here comes from the file's
/// own packets and FFmpeg's decode of it, never from a number written down.
@Suite struct RecordingTests {
    static let recordings = [
        "rec-vp8-opus.webm", "rec-vp9-opus.webm", "rec-h264-opus.webm", "rec-av1-opus.webm", "rec-avc1-opus.mkv",
        "rec-avc1-opus.mp4", "rec-vp9-opus.mp4", "rec-av01-opus.mp4", "rec-opus.weba", "rec-opus.m4a", "rec-pcm.weba",
        "rec-vp8-pcm.webm", "rec-vp8-opus-100.webm", "rec-vp8-opus-250.webm", "rec-vp8-opus-1000.webm",
        "rec-avc1-opus-1000.mp4", "rec-vp8-opus-paused.webm", "rec-avc1-opus-paused.mp4",
        // Firefox's: its own muxer's stamps and pre-skip.
        "ff-vp8-opus.webm", "ff-vp8-opus-250.webm", "ff-opus.ogg",
    ]

    /// FFmpeg's decode of a file's audio: the samples it gives, per channel.
    static func decodedSamples(_ path: String) throws -> Int {
        let channels = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=channels", "-of", "csv=p=0",
            path,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let pcm = try Subprocess.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "f32le", "-"]).out
        return pcm.count / 4 / max(Int(channels) ?? 1, 1)
    }

    /// The audio track's presented samples as `loopprep analyze` reports them.
    static func analyzedSamples(_ path: String) throws -> Int? {
        let run = try Run.loopprep(["analyze", "--no-seam", "--format", "json", path])
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let file = (json?["files"] as? [[String: Any]])?.first
        let tracks = (file?["facts"] as? [String: Any])?["tracks"] as? [[String: Any]]
        let audio = tracks?.first { $0["kind"] as? String == "audio" }
        return (audio?["sampleCount"] as? String).flatMap { Int($0) }
    }

    /// Audio stamped by a capture clock (Opus in WebM, Matroska and fragmented MP4, PCM float in WebM) is
    /// read as every decoder plays it, back to back: analyze counts the samples FFmpeg decodes. (An MP4's decode
    /// hides the pre-skip its dOps names, as the recorder meant.)
    @Test(arguments: recordings)
    func theSoundIsWhatTheDecoderPlays(name: String) throws {
        let path = Run.fixture(name)
        #expect(try Self.analyzedSamples(path) == (try Self.decodedSamples(path)))
    }

    /// Every recording is written (trimmed, its stamps laid end to end, its picture encoded again where
    /// the sound starts after its only keyframe), FFmpeg decodes the output's audio to what loopprep says it wrote,
    /// and a second fix finds nothing to do.
    @Test(arguments: recordings)
    func everyRecordingIsWrittenExactlyOnce(name: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture(name), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent(name).path
        #expect(FileManager.default.fileExists(atPath: out))
        let written = try #require(try Self.analyzedSamples(out))
        if name.hasSuffix(".mp4") || name.hasSuffix(".m4a") {
            // FFmpeg's CLI decodes an MP4's last packet whole past its edit; its stream ends at the edit.
            let seconds = try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration", "-of", "csv=p=0",
                out,
            ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(abs((Double(seconds) ?? 0) * 48000 - Double(written)) < 1)
        } else {
            #expect(try Self.decodedSamples(out) == written)
        }
        let again = try Run.loopprep(["fix", out, "-o", dir.appendingPathComponent("again").path])
        #expect(again.stdout.contains("copied unchanged"), "\(again.stdout)")
    }

    /// The recorder's Opus MP4 says its pre-skip in dOps and no edit list; the plain MP4 fix writes hides
    /// it by an edit (FFmpeg's first decoded sample at 0) and presents what FFmpeg decodes of the input.
    @Test func theRecordersOpusPreSkipStaysHidden() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Run.fixture("rec-opus.m4a")
        #expect(try Run.loopprep(["fix", input, "-o", dir.path]).status == 0)
        let out = dir.appendingPathComponent("rec-opus.m4a").path
        let first = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "frame=pts", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n").first.map(String.init)
        #expect(first == "0")
        #expect(try Self.decodedSamples(out) == (try Self.decodedSamples(input)))
    }

    /// A recording's one keyframe is its first frame, and its sound starts later: the picture is encoded
    /// again from the first frame the sound covers, the plan says so, and FFmpeg reads the output's first frame as a
    /// keyframe at 0, with the sound starting there too.
    @Test(arguments: ["rec-vp8-opus.webm", "rec-vp9-opus.webm", "rec-av1-opus.webm"])
    func soundAfterTheOnlyKeyframe(name: String) throws {
        let input = Run.fixture(name)
        let keys = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", input,
        ]).stdout.split(separator: "\n").filter { $0.hasPrefix("K") }
        #expect(keys.count == 1)
        let dry = try Run.loopprep(["fix", input, "--dry-run"])
        #expect(dry.stdout.contains("the picture is encoded again"), "\(dry.stdout)")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try Run.loopprep(["fix", input, "-o", dir.path]).status == 0)
        let out = dir.appendingPathComponent(name).path
        // The first decoded picture and sample (Opus's pre-roll block sits before 0, its pre-skip hiding it).
        let starts = try ["v", "a"].map { kind in
            try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", kind, "-show_entries", "frame=pts_time", "-of", "csv=p=0",
                out,
            ]).stdout.split(separator: "\n").first.flatMap { Double($0) }
        }
        #expect(starts == [0, 0])
        let flags = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n")
        #expect(flags.first?.hasPrefix("K") == true)
    }

    /// Two recordings whose sound starts after their only keyframe, stitched with --normalize: every frame is
    /// decoded from that keyframe (it was "a frame does not decode"), and FFmpeg decodes the whole reel cleanly.
    @Test func recordingsStitchedWithNormalize() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.webm").path
        let run = try Run.loopprep([
            "stitch", Run.fixture("rec-vp8-opus.webm"), Run.fixture("rec-vp8-opus-250.webm"), "-o", out, "--normalize",
        ])
        #expect(run.status <= 1, "\(run.stdout)\(run.stderr)")
        let decode = try Run.tool(["ffmpeg", "-v", "error", "-i", out, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    /// A recording whose stamps jump where it was paused (the sound 300 ms, the picture 280 ms at 1.5 s):
    /// analyze says the hole where a listener hears it, and fix refuses in words (a player fills it with silence,
    /// FFmpeg plays on), nothing written.
    @Test func aPausedRecordingsJumpIsSaid() throws {
        let clip = Run.fixture("rec-vp8-opus-jump.webm")
        let analyzed = try Run.loopprep(["analyze", "--no-seam", clip]).stdout
        #expect(analyzed.contains("timestamp hole"), "\(analyzed)")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", clip, "-o", dir.path])
        #expect(run.status == 1)
        #expect(run.stdout.contains("the recording was paused there"), "\(run.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// A recording cut off mid-cluster (`head -c 35000`) is unreadable, truncated, in analyze and fix
    /// alike (exit 2, nothing written), not a healthy shorter clip.
    @Test func aRecordingCutShortIsTruncated() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cut = Run.fixture("rec-vp8-opus-cut.webm")
        for arguments in [["analyze", cut], ["fix", cut, "-o", dir.path]] {
            let run = try Run.loopprep(arguments)
            #expect(run.status == 2)
            #expect(run.stdout.contains("truncated"), "\(run.stdout)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Opus plays at 48 kHz whatever input rate its OpusHead names (libopus fed 8, 12, 16 or 24 kHz): 24
    /// frames at 24 fps over 1.03 s of tone are cut to the picture (its last frame's time plus 1/24 s), and FFmpeg
    /// decodes the output's sound to end with it, within Matroska's millisecond.
    @Test(arguments: [8000, 12000, 16000, 24000])
    func opusPlaysAt48kHz(rate: Int) throws {
        let name = "opus-input-rate-\(rate).webm"
        let analyzed = try Run.loopprep(["analyze", "--no-seam", Run.fixture(name)]).stdout
        #expect(analyzed.contains("opus, 48000 Hz"), "\(analyzed)")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try Run.loopprep(["fix", Run.fixture(name), "-o", dir.path]).status == 0)
        let out = dir.appendingPathComponent(name).path
        #expect(try LoopFootageTests.read(out).frames == "24")
        let last = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n").compactMap { Double($0) }.max()
        let pictureEnd = (last ?? 0) + 1.0 / 24
        let sound = Double(try Self.decodedSamples(out)) / 48000
        #expect(abs(sound - pictureEnd) <= 0.001, "sound \(sound) s, picture \(pictureEnd) s")
    }
}
