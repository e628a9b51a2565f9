import Foundation
import TestSupport
import Testing

/// A phone's clip joined with itself and encoded again into Matroska (fixtures/make-robust.sh: `ffmpeg -stream_loop
/// 3` of 2 s of H.264 and a tone, one keyframe): the encoder stamps each audio frame at whole milliseconds and, at
/// each of the three joins, stamps the next frame 23 ms late (the source's AAC frame) where no sample is missing.
/// FFmpeg's decoder plays the frames back to back, so the sound is shorter than its stamps say; the picture starts
/// 5-25 ms after 0. Read as
/// played, such a clip is fixed and looped into an MP4 whose tracks end together (the write once refused its own
/// output: "video ends 38.5 ms after the audio"), and its dry run plans what the write does.
@Suite struct JoinedStampsTests {
    /// Each fixture, its audio frame in samples and its rate.
    static let clips: [(name: String, frame: Int, rate: Int)] = [
        ("phone-joined.mkv", 1024, 44100), ("phone-joined-mp3.mkv", 1152, 44100), ("phone-joined-ac3.mkv", 1536, 48000),
    ]

    /// The stream's packet times in milliseconds, as ffprobe reads them.
    static func stamps(_ path: String, stream: String) throws -> [Int] {
        try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts", "-of", "csv=p=0", path,
        ]).stdout.split(whereSeparator: \.isNewline).compactMap { Int($0.split(separator: ",").first ?? "") }
    }

    /// The streams' durations ffprobe gives an MP4 (each track's edit list): video first.
    static func durations(_ path: String) throws -> [Double] {
        try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "stream=duration", "-of", "csv=p=0", path,
        ]).stdout.split(whereSeparator: \.isNewline).compactMap { Double($0.split(separator: ",").first ?? "") }
    }

    @Test(arguments: clips)
    func readAsPlayedAndWrittenWithTheTracksEndingTogether(clip: (name: String, frame: Int, rate: Int)) throws {
        let path = Run.fixture(clip.name)
        // The shape: every step between audio stamps is one frame (to the millisecond) but three, about two frames
        // (a skipped stamp at each join).
        let frameMs = Double(clip.frame) * 1000 / Double(clip.rate)
        let steps = zip(try Self.stamps(path, stream: "a"), try Self.stamps(path, stream: "a").dropFirst()).map {
            Double($1 - $0)
        }
        // (The stamp skipped is the source's AAC frame, 1024 samples at 44.1 kHz: 23.22 ms past the codec's step.)
        let skipped = steps.filter { abs($0 - frameMs) > 1 }
        let source = 1024.0 * 1000 / 44100
        #expect(skipped.count == 3 && skipped.allSatisfy { abs($0 - frameMs - source) <= 1 }, "\(skipped)")
        // analyze counts the samples FFmpeg decodes, not the stamps' span.
        let analyzed = try Run.loopprep(["analyze", path, "--no-seam", "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(analyzed.stdout.utf8)) as? [String: Any])
        let tracks = try #require(
            ((json["files"] as? [[String: Any]])?.first?["facts"] as? [String: Any])?["tracks"] as? [[String: Any]])
        let count = try #require(tracks.first { $0["kind"] as? String == "audio" }?["sampleCount"] as? String)
        let decoded = try WrapSoundTests.decodedWhole(path).count
        #expect(Int(count) == decoded, "\(count) against \(decoded)")
        // fix into an MP4 and loop into one: written, the tracks ending within half a sample of each other.
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixed = dir.appendingPathComponent("fixed.mp4").path
        let looped = dir.appendingPathComponent("loop.mp4").path
        let commands = [
            (["fix", path, "--to", "mp4", "-o", fixed, "--no-seam"], fixed), (["loop", path, "-o", looped], looped),
        ]
        for (command, out) in commands {
            let run = try Run.loopprep(command)
            #expect(run.status == 0, "\(command[0]): \(run.stdout)\(run.stderr)")
            let ends = try Self.durations(out)
            #expect(ends.count == 2, "\(ends)")
            if ends.count == 2 { #expect(abs(ends[0] - ends[1]) * Double(clip.rate) <= 0.55, "\(command[0]): \(ends)") }
        }
    }

    /// The loop's dry run plans the write: the same plan value, and the output it names is the one written.
    @Test func theLoopsDryRunIsItsWrite() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let path = Run.fixture("phone-joined.mkv")
        // Each run's plan, its keys sorted.
        func plan(_ extra: [String]) throws -> (Int32, String) {
            let run = try Run.loopprep(["loop", path, "-o", out, "--format", "json"] + extra)
            let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            let plan = try #require((json?["files"] as? [[String: Any]])?.first?["plan"])
            let sorted = try JSONSerialization.data(withJSONObject: plan, options: [.sortedKeys])
            return (run.status, String(decoding: sorted, as: UTF8.self))
        }
        let (dryStatus, dry) = try plan(["--dry-run"])
        let (wetStatus, wet) = try plan([])
        #expect(dryStatus == 0 && wetStatus == 0)
        #expect(dry == wet && dry.contains("remuxThenEdit"), "\(dry)\n\(wet)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// Matroska kept: AAC is cut to the picture's end by its DiscardPadding, which FFmpeg decodes to the sample.
    /// MP3 and AC-3 are not, because FFmpeg parses them and takes the padding a frame early: refused before
    /// writing, dry run and write alike, naming --to mp4.
    @Test func matroskaKeptEndsWithThePictureOrIsRefusedBeforeWriting() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mkv").path
        let run = try Run.loopprep(["fix", Run.fixture("phone-joined.mkv"), "-o", out, "--no-seam"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // The picture's end: its last frame's time and length (the track's DefaultDuration), in milliseconds.
        let probe = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,duration", "-of", "csv=p=0",
            out,
        ]).stdout.split(whereSeparator: \.isNewline).compactMap { line -> (Int, Int)? in
            let f = line.split(separator: ",").compactMap { Int($0) }
            return f.count == 2 ? (f[0], f[1]) : nil
        }
        let last = try #require(probe.max { $0.0 < $1.0 })
        let end = Double(last.0 + last.1) / 1000
        let samples = try WrapSoundTests.decodedWhole(out).count
        #expect(abs(Double(samples) - end * 44100) <= 0.5, "\(samples) against \(end) s")
        for name in ["phone-joined-mp3.mkv", "phone-joined-ac3.mkv"] {
            let refused = dir.appendingPathComponent(name).path
            let dry = try Run.loopprep(["fix", Run.fixture(name), "-o", refused, "--dry-run"])
            let wet = try Run.loopprep(["fix", Run.fixture(name), "-o", refused])
            #expect(dry.status == 1 && wet.status == 1, "\(name): \(dry.status) \(wet.status)")
            let sentence = wet.stdout.split(separator: "\n").first { $0.contains("NOT FIXED") }.map(String.init)
            #expect(sentence?.contains("--to mp4") == true, "\(name): \(wet.stdout)")
            #expect(sentence != nil && dry.stdout.contains(sentence ?? ""), "\(name): \(dry.stdout)")
            #expect(!FileManager.default.fileExists(atPath: refused))
        }
    }
}
