import Foundation
import TestSupport
import Testing

/// Opus in WebM, copied and re-encoded, exact. fixtures/hero-vp9-opus.webm is VP9 at 25 fps for
/// 3 s over 3.1 s of a 440 Hz tone from the ffmpeg CLI (Opus's 312-sample pre-skip as CodecDelay): one loop is 75
/// frames and 144000 samples at 48 kHz. Repeats and fades re-encode the Opus; its first block must sit at 0 with the
/// pre-skip after it (FFmpeg 5.1's muxer writes CodecDelay but does not add it to block times), so FFmpeg decodes
/// the first sample at 0 and exactly `loops` x 144000 samples, and 1320 whole cycles a loop run on across each wrap
/// with no step.
@Suite struct OpusWebMTests {
    static let cases: [([String], Int)] = [
        ([], 1), (["--loops", "3"], 3), (["--unroll", "5"], 2), (["--keep", "video"], 1),
        (["--seam-fade", "10ms"], 1),
    ]

    @Test(arguments: cases)
    func opusInWebMIsExact(options: [String], loops: Int) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture("hero-vp9-opus.webm"), "-o", dir.path] + options)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent("hero-vp9-opus.webm").path
        #expect(try LoopFootageTests.read(out).frames == "\(75 * loops)")
        let first = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "frame=pts", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n").first.map(String.init)
        #expect(first == "0")
        let pcm = try Subprocess.tool("ffmpeg", ["-v", "error", "-i", out, "-map", "0:a", "-f", "f32le", "-"]).out
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.count == 144_000 * loops)
        // Across each wrap: a 440 Hz tone at 1/8 of full scale keeps its second difference under 0.0005, Opus's
        // coding noise a few thousandths; a hole or a step of a pre-skip is tens of times more.
        for wrap in (1..<max(loops, 1)).map({ $0 * 144_000 }) where options.first != "--seam-fade" {
            let step = (wrap - 8)..<(wrap + 8)
            let worst = step.map { abs(samples[$0] - 2 * samples[$0 - 1] + samples[$0 - 2]) }.max() ?? 0
            #expect(worst < 0.02, "step \(worst) at sample \(wrap)")
        }
    }
}
