import Foundation
import TestSupport
import Testing

/// Vorbis's warm-up stays before 0 in a short Ogg. Each fixture is Theora at 25 fps over 1.081 s
/// of Vorbis at 44.1 kHz (fixtures/make-fixtures.sh); fix cuts the audio at the video's end (or the video at the
/// audio's last frame boundary), so the output holds `frames` x 1764 samples. Its Ogg times the warm-up packet (the
/// first, which decodes to nothing: 128 samples of a 256-sample short block) at -128, as libvorbis's granules do,
/// so that FFmpeg's first decoded sample is at 0 with the video's first frame.
@Suite struct OggWarmUpTests {
    @Test(arguments: [("short-vorbis.ogv", 3), ("short-vorbis-12f.ogv", 12), ("short-vorbis-2s.ogv", 27)])
    func theWarmUpStaysBeforeZero(file: String, frames: Int) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture(file), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent(file).path
        #expect(try LoopFootageTests.read(out).frames == "\(frames)")
        func first(_ entries: String) throws -> String {
            try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", entries, "-of", "csv=p=0", out,
            ]).stdout.split(separator: "\n").first.map { $0.trimmingCharacters(in: .init(charactersIn: ", ")) } ?? ""
        }
        #expect(try first("packet=pts") == "-128")
        #expect(try first("frame=pts") == "0")
        let pcm = try Subprocess.tool(
            "ffmpeg", ["-v", "error", "-i", out, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"])
        #expect(pcm.out.count / 2 == frames * 1764)
        // Fixed again, the output needs nothing: a copy.
        let again = try Run.loopprep(["fix", out, "-o", dir.appendingPathComponent("again").path])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(
            FileManager.default.contentsEqual(
                atPath: out, andPath: dir.appendingPathComponent("again").appendingPathComponent(file).path))
    }

    /// Oggenc's 1.7 s at 22050 Hz mono in one page that is both its first and its last
    /// (fixtures/oggenc-one-page.ogg): libvorbis plays 1.7 x 22050 = 37485 samples; FFmpeg reads the page otherwise
    /// (915 samples more), so fix writes it again through the muxer, whose pages FFmpeg times as libvorbis does:
    /// 37485 samples decoded, the warm-up (512 samples: two 1024-sample blocks) before 0, and fixed again a copy. A
    /// dry run says so too (it checks the input as the run checks its copy), not "copied byte for byte".
    @Test func oggencsOnePageIsWrittenAgain() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dry = try Run.loopprep(["fix", Run.fixture("oggenc-one-page.ogg"), "-o", dir.path, "--dry-run"])
        #expect(dry.stdout.contains("written again: FFmpeg reads the input's single Ogg page otherwise"))
        #expect(!dry.stdout.contains("copied byte for byte"), "\(dry.stdout)")
        let run = try Run.loopprep(["fix", Run.fixture("oggenc-one-page.ogg"), "-o", dir.path])
        #expect(run.status == 0 && run.stdout.contains("fixed ->"), "\(run.stdout)")
        let out = dir.appendingPathComponent("oggenc-one-page.ogg").path
        let pcm = try Subprocess.tool("ffmpeg", ["-v", "error", "-i", out, "-f", "s16le", "-"])
        #expect(pcm.out.count / 2 == 37485)
        let first = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "packet=pts", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n").first.map { $0.trimmingCharacters(in: .init(charactersIn: ", ")) }
        #expect(first == "-512")
        let again = try Run.loopprep(["fix", out, "-o", dir.appendingPathComponent("again").path])
        #expect(again.stdout.contains("copied unchanged"), "\(again.stdout)")
    }
}

/// A WebM cut by stream copy with its pre-roll kept before 0 (fixtures/make-robust.sh: `ffmpeg -ss 1 -c copy
/// -avoid_negative_ts disabled`). FFmpeg's demuxer moved blocks before 0 after it unless it had read the streams'
/// information first (ffprobe does): the video read as a variable frame rate of 6-40 ms frames from 0, the audio as
/// 85 overlaps. Read now as ffprobe reads it: the video from its first block's time, 75 frames at 25 fps, the Vorbis
/// from its second packet's (the first is the decoder's warm-up), no timestamp breaks.
@Suite struct BlocksBeforeZeroTests {
    @Test func aCopyCutWithItsPreRollBeforeZeroIsReadAsFFprobeReadsIt() throws {
        let clip = Run.fixture("webm-before-zero.webm")
        let run = try Run.loopprep(["analyze", clip, "--no-seam", "--format", "json"])
        let file = try #require(
            (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["files"]
                as? [[String: Any]])
        let facts = try #require(file.first?["facts"] as? [String: Any])
        let tracks = try #require(facts["tracks"] as? [[String: Any]])
        // ffprobe's own reading (it reads the streams' information before the packets).
        let probe = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "packet=stream_index,pts", "-of", "csv=p=0", clip,
        ])
        let packets = probe.stdout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Int($0) } }
        let video = packets.filter { $0.first == 0 }.map { $0[1] }
        let audio = packets.filter { $0.first == 1 }.map { $0[1] }
        #expect(video.count == 75 && video.min() ?? 0 < -900)
        let v = try #require(tracks.first { $0["kind"] as? String == "video" })
        let a = try #require(tracks.first { $0["kind"] as? String == "audio" })
        #expect((v["start"] as? [String: Any])?["ticks"] as? String == String(video.min() ?? 0))
        #expect(v["frameCount"] as? Int == 75 && v["variableFrameRate"] == nil)
        // On the sample clock: within half of Matroska's millisecond tick of that block's time.
        let audioStart = try #require((a["start"] as? [String: Any])?["seconds"] as? Double)
        #expect(abs(audioStart - Double(audio[1]) / 1000) < 0.0005, "\(audioStart) \(audio)")
        let rules = (file.first?["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        #expect(!rules.contains("timestamp-gap"), "\(rules)")
    }

    /// fix of that copy: planned from the true times, it was then copied through a reading that moved the blocks
    /// (the output's audio ended 994 ms after its picture, refused). Every reading of such a file now reads the
    /// streams' information first: written, the picture from the keyframe at 1 s (its 26th block) on, as FFmpeg
    /// decodes the input.
    @Test func aCopyCutWithItsPreRollBeforeZeroIsTrimmed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("webm-before-zero.webm")
        let fixed = try Run.loopprep(["fix", clip, "-o", dir.path + "/"])
        #expect(fixed.status == 0, "\(fixed.stdout)")
        let out = dir.appendingPathComponent("webm-before-zero.webm").path
        let (videoIn, videoOut) = (try Self.hashes(clip, "v"), try Self.hashes(out, "v"))
        #expect(!videoOut.isEmpty && Array(videoIn.dropFirst(25).prefix(videoOut.count)) == videoOut)
    }

    static func hashes(_ path: String, _ stream: String) throws -> [String] {
        try Run.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:" + stream, "-f", "framemd5", "-"]).stdout
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The second part of a WebM split by mkvmerge (fixtures/make-robust.sh): the cut starts on its keyframe at
    /// 1 s, inside a Vorbis packet. It was refused ("audio starts 46 ms after 0", read from blocks FFmpeg moves
    /// when it reads before the streams' information); now written, and FFmpeg decodes from the output a run of what
    /// it decodes from the input: the picture from that keyframe, the audio from the packet nearest it, at 0.
    @Test func aVorbisPartSplitByMkvmergeIsTrimmedNotRefused() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("mkvmerge-split-part2.webm")
        let fixed = try Run.loopprep(["fix", clip, "-o", dir.path + "/"])
        #expect(fixed.status == 0, "\(fixed.stdout)")
        let out = dir.appendingPathComponent("mkvmerge-split-part2.webm").path
        func firstTime(_ path: String, _ stream: String) throws -> Double? {
            let probe = try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "frame=pts_time", "-of",
                "csv=p=0", path,
            ])
            return probe.stdout.split(separator: "\n").first.flatMap { Double($0) }
        }
        // The picture: the input's frames from its keyframe at 1 s (frame 25 at 25 fps), in order.
        let (videoIn, videoOut) = (try Self.hashes(clip, "v"), try Self.hashes(out, "v"))
        #expect(!videoOut.isEmpty && Array(videoIn.dropFirst(25).prefix(videoOut.count)) == videoOut)
        // The audio: a run of the input's decoded frames (the last may be shortened by the end's trim), from 0.
        let (audioIn, audioOut) = (try Self.hashes(clip, "a"), try Self.hashes(out, "a"))
        let from = try #require(audioIn.firstIndex(of: audioOut.first ?? ""))
        #expect(Array(audioIn.dropFirst(from).prefix(audioOut.count - 1)) == Array(audioOut.dropLast()))
        let audioStart = try #require(try firstTime(out, "a"))
        let videoStart = try #require(try firstTime(out, "v"))
        #expect(abs(audioStart) < 0.001 && abs(videoStart) < 0.001)
    }
}

/// mpv's encoder cut (fixtures/make-other-muxers.sh: `mpv --start=1 --end=3.767 --o=...`): a millisecond movie clock,
/// a video edit of 2767 ms over 84 frames whose last starts at 2766.667 ms with no length in the index (stts delta
/// 0), so FFmpeg reads the video as ending at 2766.667 where loopprep reads the edit's 2767. fix refused its own
/// output over that 0.333 ms ("please report the input"); the video is copied whole, so FFmpeg's reading of the
/// input decides, and the output is written.
@Suite struct MPVCutTests {
    @Test func anEditFFmpegReadsAThirdOfAMillisecondShorterIsWritten() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("mpv-cut.mp4")
        let fixed = try Run.loopprep(["fix", clip, "-o", dir.path + "/"])
        #expect(fixed.status == 0, "\(fixed.stdout)")
        let out = dir.appendingPathComponent("mpv-cut.mp4").path
        func streams(_ path: String) throws -> [String: (frames: Int?, duration: Double?)] {
            let probe = try Run.tool([
                "ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames,duration",
                "-of", "csv=p=0", path,
            ])
            var out: [String: (frames: Int?, duration: Double?)] = [:]
            for line in probe.stdout.split(separator: "\n") {
                let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard f.count >= 3 else { continue }
                out[f[0]] = (Int(f[2]), Double(f[1]))
            }
            return out
        }
        let (input, output) = (try streams(clip), try streams(out))
        // Every frame of the input's video, as FFmpeg decodes it (84), and its audio cut to the edit mpv wrote
        // (--end 3.767 less --start 1: 2.767 s), to half a sample at 44.1 kHz.
        #expect(input["video"]?.frames == 84 && output["video"]?.frames == 84)
        let audio = try #require(output["audio"]?.duration)
        #expect(abs(audio - 2.767) < 0.5 / 44100 + 0.000_001, "\(audio)")
        // A second fix has nothing to do.
        let again = try Run.loopprep(["fix", out, "-o", dir.appendingPathComponent("again").path + "/"])
        #expect(again.status == 0 && again.stdout.contains("already"), "\(again.stdout)")
    }

    /// The same cut with a keyframe every 10 frames and its audio starting 200 ms late (mpv-cut-audio-late.mp4,
    /// make-other-muxers.sh): fix starts the picture at its next keyframe, frame 10 (1/3 s), and keeps its end as mpv
    /// wrote it, which FFmpeg reads 0.333 ms shorter than the edit says, in input and output alike. The output was
    /// refused over that third of a millisecond; FFmpeg's reading of the input's kept end decides: written, the 74
    /// frames from the 11th to the last, the audio from 1/3 s for as long as the picture (2.434 s), a no-op again.
    @Test func anEndKeptAsFFmpegReadsItInTheInputIsWritten() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("mpv-cut-audio-late.mp4")
        let fixed = try Run.loopprep(["fix", clip, "-o", dir.path + "/"])
        #expect(fixed.status == 0 && fixed.stdout.contains("fixed ->"), "\(fixed.stdout)")
        let out = dir.appendingPathComponent("mpv-cut-audio-late.mp4").path
        let frames = { (path: String) in
            let md5 = ["-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "framemd5", "-"]
            return try Run.tool(["ffmpeg"] + md5).stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
                .map { $0.split(separator: ",").last ?? "" }
        }
        let (input, output) = (try frames(clip), try frames(out))
        #expect(input.count == 84)
        #expect(output == Array(input.dropFirst(10)))
        let again = try Run.loopprep(["fix", out, "-o", dir.appendingPathComponent("again").path + "/"])
        #expect(again.status == 0 && again.stdout.contains("already"), "\(again.stdout)")
    }
}
