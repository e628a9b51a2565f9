import Foundation
import TestSupport
import Testing

/// What a Matroska file carries beside its tracks (fixtures/make-robust.sh: mkvmerge's attached font and two chapters
/// at 0 and 1 s): fix's copy keeps the file byte for byte and names the chapters it leaves out, in the dry run as in
/// the write. Read back by ffprobe.
@Suite struct CarriedTests {
    static func probe(_ path: String, _ entries: String) throws -> [String] {
        try Run.tool(["ffprobe", "-v", "error", "-show_entries", entries, "-of", "csv=p=0", path]).stdout
            .split(separator: "\n").map(String.init)
    }

    @Test func attachedFilesAreKeptAndChaptersNamed() throws {
        let input = Run.fixture("mkv-attachments.mkv")
        let dry = try Run.loopprep(["fix", input, "--dry-run"]).stdout
        let said = "keeps the attached file font.ttf; leaves out 2 chapters"
        #expect(dry.contains(said), "\(dry)")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", input, "-o", dir.path])
        #expect(run.stdout.contains(said), "\(run.stdout)")
        let out = dir.appendingPathComponent("mkv-attachments.mkv").path
        #expect(try Self.probe(out, "stream=codec_type:stream_tags=filename").contains("attachment,font.ttf"))
        // The attached file's bytes, as FFmpeg hands them on.
        let dumped = dir.appendingPathComponent("font.ttf").path
        _ = try Run.tool(["ffmpeg", "-v", "error", "-y", "-dump_attachment:t:0", dumped, "-i", out])
        #expect(FileManager.default.contents(atPath: dumped) == Data("loopprep test font: not a real typeface\n".utf8))
        // The chapters are named as left out, and are.
        #expect(try Self.probe(out, "chapter=start_time").isEmpty)
    }
}
