import Foundation
import TestSupport
import Testing

/// Issue 43, item 1: Vorbis's warm-up stays before 0 in a short Ogg. Each fixture is Theora at 25 fps over 1.081 s
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

    /// Issue 43, item 4: oggenc's 1.7 s at 22050 Hz mono in one page that is both its first and its last
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
        #expect(again.stdout.contains("already clean"), "\(again.stdout)")
    }
}
