import Foundation
import TestSupport
import Testing

/// flac-mkvmerge-ms.mkv (fixtures/make-robust.sh): 2 s of 23.976 fps H.264 beside 2 s of FLAC at 44.1 kHz, remuxed by
/// mkvmerge, whose blocks sit at whole milliseconds up to 1.5 ms off the samples (4608 samples are 104.49 ms; FFmpeg
/// reads each block as 104 ms long). That is the clock's rounding, not 1-2 ms holes: analyze finds no timestamp gap
/// and fix writes the cut the rules ask for.
@Suite struct MillisecondAudioTests {
    @Test func flacBlocksAtWholeMillisecondsAreNoHoles() throws {
        let clip = Run.fixture("flac-mkvmerge-ms.mkv")
        // The shape, by ffprobe's block times (the container's, whatever duration a version of FFmpeg gives a
        // block): block k starts within 1.5 ms of k x 4608 samples (104.49 ms), at whole milliseconds, so the
        // steps between blocks are not all one length.
        let starts = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=pts", "-of", "csv=p=0", clip,
        ]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(starts.count == 20, "\(starts)")
        let offBy = starts.enumerated().map { abs(Double($1) - Double($0 * 4608) * 1000 / 44100) }
        #expect(offBy.allSatisfy { $0 <= 1.5 }, "\(starts)")
        #expect(Set(zip(starts, starts.dropFirst()).map { $1 - $0 }).count > 1, "\(starts)")
        let analyzed = try Run.loopprep(["analyze", clip, "--no-seam", "--target", "web", "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(analyzed.stdout.utf8)) as? [String: Any])
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        let rules = (file["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } ?? []
        #expect(!rules.contains("timestamp-gap"), "\(analyzed.stdout)")
        let tracks = try #require((file["facts"] as? [String: Any])?["tracks"] as? [[String: Any]])
        #expect(tracks.first { $0["kind"] as? String == "audio" }?["sampleCount"] as? String == "88200")
        // Nothing to do at Matroska's resolution (48 frames end within its millisecond of the audio): fix copies
        // it, and FFmpeg decodes the whole 2 s of sound from the copy.
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", clip, "-o", dir.path, "--target", "web", "--no-seam"])
        #expect(run.stdout.contains("copied unchanged"), "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent("flac-mkvmerge-ms.mkv").path
        #expect(try WrapSoundTests.decodedWhole(out).count == 88200)
    }

    /// The same blocks cut (flac-mkvmerge-cut.mkv): 3 s of FLAC at 44.1 kHz beside 72 frames at 23.976 fps (the
    /// last ending 3 ms after the audio), remuxed by mkvmerge. fix keeps 71 frames (2.961 s), and the FLAC cut there
    /// says it in DiscardPadding:
    /// FFmpeg decodes 2.961 s of it from the output, not the whole last block (104 ms) it once left.
    @Test func aFLACCutInMatroskaEndsWhereThePlanSays() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("flac-mkvmerge-cut.mkv")
        let run = try Run.loopprep(["fix", clip, "-o", dir.appendingPathComponent("out").path, "--target", "web"])
        #expect(run.stdout.contains("fixed ->"), "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent("out/flac-mkvmerge-cut.mkv").path
        // 71 frames of 1001/24000 s are 2.96129 s: 130593 samples, which Matroska's milliseconds hold to within
        // one (2961 ms: 130580.1).
        let samples = try WrapSoundTests.decodedWhole(out).count
        #expect(abs(samples - 130_593) <= 45, "\(samples)")
    }
}
