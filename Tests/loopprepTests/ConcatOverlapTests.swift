import Foundation
import TestSupport
import Testing

/// concat-overlaps.mp4 (fixtures/make-robust.sh): three clips of 1 s of picture at 30 fps and 1.05 s of AAC, joined
/// by FFmpeg's concat demuxer with -c copy. At each of the two joins the muxer squeezes two AAC frames (1024 samples
/// each) into fewer ticks than they decode to: four overlaps. fix is asked for a trim (the audio cut to the 3.1 s of
/// picture, the start rebased): it writes it, keeps the overlaps as the input has them and says so, where it once
/// refused the whole job.
@Suite struct ConcatOverlapTests {
    /// The audio packets, but the last, that last fewer ticks than an AAC frame's 1024 samples, by ffprobe.
    static func squeezed(_ path: String) throws -> Int {
        let run = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=duration", "-of", "csv=p=0",
            path,
        ])
        let durations = run.stdout.split(separator: "\n").compactMap { Int($0) }
        return durations.dropLast().filter { $0 < 1024 }.count
    }

    @Test func theTrimIsWrittenAndTheOverlapsAreSaid() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Run.fixture("concat-overlaps.mp4")
        #expect(try Self.squeezed(input) == 4)
        let run = try Run.loopprep(["fix", input, "-o", dir.path, "--no-seam"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains(
                "audio track 1 (aac): its 4 timestamp overlaps inside the range kept are copied as they are: "
                    + "--reencode-audio lays every sample on its time"), "\(run.stdout)")
        let out = dir.appendingPathComponent("concat-overlaps.mp4").path
        // The same four, by FFmpeg's reading of the output, and the trim asked for: 3 clips x 30 frames, and the
        // audio to the picture's 3.1 s at 48 kHz.
        #expect(try Self.squeezed(out) == 4)
        let analyzed = try Run.loopprep(["analyze", out, "--no-seam", "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(analyzed.stdout.utf8)) as? [String: Any])
        let facts = try #require(((json["files"] as? [[String: Any]])?.first)?["facts"] as? [String: Any])
        let tracks = try #require(facts["tracks"] as? [[String: Any]])
        #expect(tracks.first { $0["kind"] as? String == "video" }?["frameCount"] as? Int == 90)
        #expect(tracks.first { $0["kind"] as? String == "audio" }?["sampleCount"] as? String == "148800")
        let rules = ((json["files"] as? [[String: Any]])?.first?["findings"] as? [[String: Any]])?.compactMap {
            $0["rule"] as? String
        }
        #expect(rules == ["timestamp-gap"], "\(analyzed.stdout)")
        // Encoded again, the audio has none left.
        let again = dir.appendingPathComponent("again")
        let reencoded = try Run.loopprep(["fix", input, "-o", again.path, "--no-seam", "--reencode-audio"])
        #expect(reencoded.status == 0, "\(reencoded.stdout)\(reencoded.stderr)")
        #expect(!reencoded.stdout.contains("timestamp overlap"))
        #expect(try Self.squeezed(again.appendingPathComponent("concat-overlaps.mp4").path) == 0)
    }
}
