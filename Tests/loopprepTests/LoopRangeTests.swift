import Foundation
import LoopAnalysis
import LoopRange
import TestSupport
import Testing

/// The loop range a player takes when the file cannot be rewritten, on clips made with known truth
/// (fixtures/make-fixtures.sh): decoded with the LoopRange library from analyze's real output, checked by the
/// contract script, and equal to what fix writes (FFmpeg's reading of fix's output).
@Suite struct LoopRangeTests {
    /// fixture, start and duration (seconds, from its recipe), the rule the range cures.
    static let truths: [(String, String, String, String)] = [
        // 1 s of video (30 frames) over 1.5 s of audio: the range is the video.
        ("audio-longer.mp4", "0", "1", "audio-longer-than-video"),
        // 1.5 s of video over 1 s of audio: 30 frames.
        ("video-longer.mp4", "0", "1", "video-longer-than-audio"),
        // 36 frames from 0.2 s (an empty edit) over 1.4 s of audio.
        ("video-late-edit.mp4", "1/5", "6/5", "start-offset"),
        // 60 frames at 30000/1001 from the B-frame delay, 2002/30000 s, no edit list: 1001/500 s.
        ("bframes-no-edits-2997-44k.mp4", "1001/15000", "1001/500", "start-offset"),
    ]

    static func fraction(_ text: String) -> (Int64, Int64) {
        let parts = text.split(separator: "/").compactMap { Int64($0) }
        return (parts[0], parts.count > 1 ? parts[1] : 1)
    }

    @Test func rangesHoldTheirTruthAndTheContract() throws {
        let paths = Self.truths.map { Run.fixture($0.0) }
        let json = try Run.loopprep(["analyze", "--no-seam", "--format", "json"] + paths)
        let clips = try LoopRangeReport.decode(Data(json.stdout.utf8))
        #expect(clips.count == 4)
        for (truth, clip) in zip(
            Self.truths,
            clips.sorted { a, b in
                (Self.truths.firstIndex { a.path.hasSuffix($0.0) } ?? 0)
                    < (Self.truths.firstIndex { b.path.hasSuffix($0.0) } ?? 0)
            })
        {
            let range = try #require(clip.loopRange, "\(truth.0)")
            #expect(range.start == truth.1 && range.duration == truth.2, "\(truth.0): \(range)")
            #expect(range.cures.contains(truth.3), "\(truth.0): \(range.cures)")
            // The video track's own clock, as FFmpeg reads it.
            let clock = try Run.tool([
                "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=time_base", "-of",
                "csv=p=0", Run.fixture(truth.0),
            ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let timescale = try #require(Int64(clock.split(separator: "/").last ?? ""))
            let (sn, sd) = Self.fraction(truth.1)
            let (dn, dd) = Self.fraction(truth.2)
            let cm = try #require(range.cmTime)
            #expect(Int64(cm.start.timescale) == timescale && cm.start.value == sn * timescale / sd, "\(truth.0)")
            #expect(Int64(cm.duration.timescale) == timescale && cm.duration.value == dn * timescale / dd)
            // Inward: the start rounded up, the end down.
            let startMicros = (sn * 1_000_000 + sd - 1) / sd
            let endMicros = (sn * dd + dn * sd) * 1_000_000 / (sd * dd)
            #expect(range.microseconds.start == startMicros && range.microseconds.end == endMicros, "\(truth.0)")
        }
        // The same ranges through JSON Lines and --format ranges, and the contract script on all three.
        for format in ["json", "jsonl", "ranges"] {
            let run = try Run.loopprep(["analyze", "--no-seam", "--format", format] + paths)
            // (JSON Lines come in the order the clips were given; the report sorts them by path.)
            let decoded = try LoopRangeReport.decode(Data(run.stdout.utf8)).sorted { $0.path < $1.path }
            #expect(decoded == clips.sorted { $0.path < $1.path }, "\(format)")
            let dir = try Run.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("report").path
            try Data(run.stdout.utf8).write(to: URL(fileURLWithPath: file))
            let check = try Run.tool([
                "python3", Run.repository.appendingPathComponent("scripts/check-loop-range.py").path, file,
            ])
            #expect(check.status == 0 && check.stdout.contains("4 ranges in 4 clips, 0 problems"), "\(check.stdout)")
        }
    }

    /// The range is what fix keeps: fix's output, as FFmpeg reads it, lasts the range's duration. fix's report
    /// gives the written file's own range (from 0, the whole output) and the input's labelled.
    @Test(arguments: truths.map(\.0))
    func theRangeIsWhatFixWrites(fixture: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truth = try #require(Self.truths.first { $0.0 == fixture })
        let run = try Run.loopprep(["fix", Run.fixture(fixture), "-o", dir.path, "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let fixed = try LoopRangeReport.decode(Data(run.stdout.utf8))
        #expect(fixed.first?.loopRange?.start == "0" && fixed.first?.loopRange?.duration == truth.2)
        struct Fixed: Decodable {
            struct File: Decodable { var fix: FixOutcome }
            var files: [File]
        }
        let input = try JSONDecoder().decode(Fixed.self, from: Data(run.stdout.utf8)).files.first?.fix.inputLoopRange
        #expect(input?.start == truth.1 && input?.duration == truth.2)
        let shown = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=duration", "-of", "csv=p=0",
            dir.appendingPathComponent(fixture).path,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (dn, dd) = Self.fraction(truth.2)
        #expect(abs((Double(shown) ?? 0) - Double(dn) / Double(dd)) < 0.000_001, "\(fixture): \(shown)")
    }

    /// No range where none makes the clip loop: `null` with the reason, in JSON and in --format ranges.
    @Test func noRangeIsNullWithAReason() throws {
        let clip = Run.fixture("zero-bytes.mp4")
        let ranges = try Run.loopprep(["analyze", "--no-seam", "--format", "ranges", clip])
        #expect(ranges.stdout.contains(#""loopRange":null,"loopRangeReason":"the file cannot be read: "#))
        let decoded = try LoopRangeReport.decode(Data(ranges.stdout.utf8))
        #expect(decoded.first?.loopRange == nil && decoded.first?.loopRangeReason != nil)
    }
}
