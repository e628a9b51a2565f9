import Foundation
import Testing

@testable import LoopAnalysis

/// stitch's JSON gives the reel's loop range as analyze's does: `null` beside its reason where none makes it loop.
@Suite struct StitchReportJSONTests {
    static func json(_ report: StitchReport) throws -> [String: Any] {
        let data = try JSONEncoder().encode(report)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func noRangeIsNullWithItsReason() throws {
        let timeline = try StitchPlanner.timeline(
            [StitchClip(path: "a.mp4", frames: 30)], transitions: [], frameRate: Rational(30), sampleRate: nil,
            loop: false)
        var report = StitchReport(output: "reel.mp4", timeline: timeline)
        report.loopRangeReason = "the reel has no track to loop"
        let written = try Self.json(report)
        #expect(written.keys.contains("loopRange") && written["loopRange"] is NSNull, "\(written)")
        #expect(written["loopRangeReason"] as? String == "the reel has no track to loop")
        // Not measured (a dry run): neither key.
        report.loopRangeReason = nil
        let dry = try Self.json(report)
        #expect(!dry.keys.contains("loopRange") && !dry.keys.contains("loopRangeReason"))
        #expect(dry["colourConverted"] as? [String] == [] && dry["schemaVersion"] as? Int == 1)
    }
}
