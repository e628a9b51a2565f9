import Foundation
import TestSupport
import Testing

/// A reel keeps its clips' own chapters (fixtures/make-robust.sh's Matroska: One at 0 s, Two at 1 s, over 50
/// frames at 25 fps whose first shows at the video's start time), each moved to where its clip plays and cut to it;
/// a clip without chapters gets one named after its file. Read back by ffprobe; the times derived from the
/// fixture's recipe and the transition's whole frames.
@Suite struct ReelChaptersTests {
    static func chapters(_ path: String) throws -> [String] {
        try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "chapter=start_time,end_time:chapter_tags=title",
            "-of", "csv=p=0", path,
        ]).stdout.split(separator: "\n").map { row in
            let f = row.split(separator: ",").map(String.init)
            return String(format: "%.3f-%.3f %@", Double(f[0]) ?? -1, Double(f[1]) ?? -1, f[2])
        }
    }

    static func row(_ from: Double, _ to: Double, _ title: String) -> String {
        String(format: "%.3f-%.3f %@", from, to, title)
    }

    @Test func clipsChaptersArePlacedWhereTheyPlay() throws {
        let clip = Run.fixture("mkv-attachments.mkv")
        let other = Run.fixture("tags-creator.flv")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Where the clip's first frame shows in its source: its chapters move back by that much.
        let start = try #require(
            Double(
                try Run.tool([
                    "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=start_time",
                    "-of", "csv=p=0", clip,
                ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let two = 1.0 - start

        // A crossfade of 0.2 s (5 frames): the second clip starts at 1.8 s, the reel ends at 3.8 s; an MP4's
        // chapter track ends each chapter where the next starts.
        let crossfaded = dir.appendingPathComponent("crossfaded.mp4").path
        let run = try Run.loopprep([
            "stitch", clip, clip, "--transition", "crossfade", "--duration", "0.2", "-o", crossfaded,
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            try Self.chapters(crossfaded) == [
                Self.row(0, two, "One"), Self.row(two, 1.8, "Two"), Self.row(1.8, 1.8 + two, "One"),
                Self.row(1.8 + two, 3.8, "Two"),
            ])

        // Beside a clip without chapters (2 s, its own file's name).
        let mixed = dir.appendingPathComponent("mixed.mp4").path
        let second = try Run.loopprep(["stitch", clip, other, "-o", mixed])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(
            try Self.chapters(mixed) == [
                Self.row(0, two, "One"), Self.row(two, 2, "Two"), Self.row(2, 4, "tags-creator.flv"),
            ])
    }
}
