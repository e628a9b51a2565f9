import Foundation
import Testing

@testable import LoopAnalysis

/// stitch's report is every command's: the reel is one file record (`files[0]`), named by its output, its timeline
/// and plan on the record, its outcome as every command's; the reel's loop range is given as analyze's is: `null`
/// beside its reason where none makes it loop.
@Suite struct StitchReportJSONTests {
    static func json(_ file: FileReport) throws -> [String: Any] {
        let data = try JSONEncoder().encode(file)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func timeline() throws -> StitchTimeline {
        try StitchPlanner.timeline(
            [StitchClip(path: "a.mp4", frames: 30)], transitions: [], frameRate: Rational(30), sampleRate: nil,
            loop: false)
    }

    @Test func noRangeIsNullWithItsReason() throws {
        var report = StitchReport(output: "reel.mp4", timeline: try Self.timeline())
        report.loopRangeReason = "the reel has no track to loop"
        let written = try Self.json(report.record)
        #expect(written.keys.contains("loopRange") && written["loopRange"] is NSNull, "\(written)")
        #expect(written["loopRangeReason"] as? String == "the reel has no track to loop")
        #expect(written["path"] as? String == "reel.mp4" && written["timeline"] is [String: Any])
        #expect((written["outcome"] as? [String: Any])?["status"] as? String == "written")
        // Not measured (a dry run): neither key.
        report.loopRangeReason = nil
        let dry = try Self.json(report.record)
        #expect(!dry.keys.contains("loopRange") && !dry.keys.contains("loopRangeReason"))
        #expect(dry["colourConverted"] as? [String] == [])
    }

    /// Each way a stitch ends is the record's outcome: planned (the output it would write, or none named), written,
    /// kept (apply), refused (a dry run refused names the output it would have written).
    @Test func theReelsOutcomeIsEveryCommands() throws {
        let timeline = try Self.timeline()
        #expect(
            StitchReport(output: nil, timeline: timeline, planned: "r.mp4").record.outcome == .planned(output: "r.mp4"))
        let unnamed = StitchReport(output: nil, timeline: timeline).record
        #expect(unnamed.outcome == .planned(output: nil) && unnamed.path == ReelRecord.unnamed)
        var kept = StitchReport(output: "r.mp4", timeline: timeline)
        kept.alreadyWritten = true
        #expect(kept.record.outcome == .unchanged(output: "r.mp4") && kept.record.fix?.alreadyWritten == true)
        var refused = StitchReport(output: nil, timeline: timeline, planned: "r.mkv")
        refused.refusal = .plan("name the output .mp4")
        #expect(refused.record.outcome == .refused(.plan("name the output .mp4"), output: "r.mkv"))
        #expect(refused.record.path == "r.mkv" && refused.record.fix?.status == .failed)
    }

    /// The record reads back whole: its reel (timeline and the lists of what was left out), its outcome.
    @Test func theRecordReadsBack() throws {
        var report = StitchReport(output: "reel.mp4", timeline: try Self.timeline())
        report.reel.audioLeftOut = ["b.mp4 has no audio: silence is laid under it"]
        report.reel.turned = ["b.mp4: shown upright"]
        let record = report.record
        let back = try JSONDecoder().decode(FileReport.self, from: try JSONEncoder().encode(record))
        #expect(back == record)
        #expect(back.reel?.audioLeftOut == report.reel.audioLeftOut && back.reel?.timeline == report.reel.timeline)
    }
}
