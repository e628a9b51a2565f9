import Foundation
import TestSupport
import Testing

/// A stitched reel keeps the first clip's descriptions of its tracks (name, handler, language) and the channels its
/// audio decodes to. meta-gps.mov: its video track named "Camera", its audio in French (fixtures/make-metadata.sh, 1);
/// tiny-2x2-mp3.mp4: a mono MP3 whose MP4 sample entry says two channels (fixtures/make-robust.sh). Read back by
/// ffprobe.
@Suite struct ReelDescriptionTests {
    static func streams(_ path: String, _ entries: String) throws -> [String] {
        try Run.tool(["ffprobe", "-v", "error", "-show_entries", entries, "-of", "csv=p=0", path]).stdout
            .split(separator: "\n").map(String.init)
    }

    @Test func theFirstClipsTrackNamesAndLanguages() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Run.fixture("meta-gps.mov")
        let out = dir.appendingPathComponent("reel.mov").path
        let run = try Run.loopprep(["stitch", input, input, "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let entries = "stream=codec_type:stream_tags=handler_name,language"
        // The recipe's: handler_name=Camera on the video, language=fra on the audio.
        let made = try Self.streams(input, entries)
        #expect(made == ["video,Camera", "audio,fra,SoundHandler"])
        // The reel's two tracks say the same; its chapter track (a clip a chapter) comes after them.
        #expect(Array(try Self.streams(out, entries).prefix(2)) == made)
    }

    /// meta-keys.mp4 carries a GoPro-like gpmd telemetry track (fixtures/make-metadata.sh, 2): named as left out, in
    /// the JSON and the text, once for a clip given twice; the reel has none (ffprobe finds video, audio and the
    /// chapter track the reel's own chapters make).
    @Test func dataTracksAreNamedAsLeftOut() throws {
        let input = Run.fixture("meta-keys.mp4")
        let said = "\(input): track 2 (gpmd data) left out: a reel joins pictures and sound"
        let dry = try Run.loopprep(["stitch", input, input, "--dry-run", "--format", "json"])
        #expect(try dry.file()["dataLeftOut"] as? [String] == [said])
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.mp4").path
        let run = try Run.loopprep(["stitch", input, input, "-o", out])
        #expect(run.stdout.contains("note: \(said)"), "\(run.stdout)")
        let tags = try Self.streams(out, "stream=codec_type,codec_tag_string")
        #expect(!tags.contains { $0.contains("gpmd") }, "\(tags)")
    }

    @Test func aMonoPairMakesAMonoReel() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Run.fixture("tiny-2x2-mp3.mp4")
        let out = dir.appendingPathComponent("reel.mp4").path
        let run = try Run.loopprep(["stitch", input, input, "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // FFmpeg decodes the clip in one channel (the frames' header), and the reel's too.
        #expect(try Self.streams(input, "stream=codec_name,channels") == ["h264", "mp3,1"])
        #expect(try Self.streams(out, "stream=codec_name,channels").prefix(2) == ["h264", "mp3,1"])
    }
}
