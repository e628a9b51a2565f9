import Foundation
import LoopAnalysis
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// Matroska's Segment Duration: read from the file's head, rewritten in place, and made exact by fix and stitch.
@Suite struct SegmentDurationTests {
    /// EBML header, a Segment of unknown size, a Void, then Info with TimestampScale and an 8-byte Duration.
    static func bytes(scale: [UInt8] = [0x0F, 0x42, 0x40], duration: Double) -> [UInt8] {
        let header: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x84, 0x42, 0x86, 0x81, 0x01]
        let segment: [UInt8] = [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let void: [UInt8] = [0xEC, 0x83, 0, 0, 0]
        let d = (0..<8).map { UInt8(truncatingIfNeeded: duration.bitPattern >> (56 - 8 * $0)) }
        let info: [UInt8] = [0x2A, 0xD7, 0xB1, 0x80 | UInt8(scale.count)] + scale + [0x44, 0x89, 0x88] + d
        return header + segment + void + [0x15, 0x49, 0xA9, 0x66, 0x80 | UInt8(info.count)] + info
            + [0x1F, 0x43, 0xB6, 0x75, 0x80]
    }

    @Test func readsTheDurationInItsScale() throws {
        // 2008 units of 1 ms (scale 1,000,000 ns): 2.008 s.
        let found = try #require(SegmentDuration.parse(Self.bytes(duration: 2008)))
        #expect(found.seconds == Rational(2008, 1000) && found.scale == 1_000_000 && found.width == 8)
        // A finer scale (100,000 ns a unit): 20080 units are the same 2.008 s.
        #expect(
            SegmentDuration.parse(Self.bytes(scale: [0x01, 0x86, 0xA0], duration: 20080))?.seconds
                == Rational(2008, 1000))
        // Not Matroska, or Info only after the first Cluster: nothing.
        #expect(SegmentDuration.parse(Array("ftypisom".utf8)) == nil)
    }

    @Test func rewritesItInPlace() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("d.mkv").path
        let original = Self.bytes(duration: 2008)
        try Data(original).write(to: URL(fileURLWithPath: path))
        try SegmentDuration.write(path, seconds: Rational(2))
        let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(SegmentDuration.parse(after)?.seconds == Rational(2))
        #expect(after.count == original.count && zip(after, original).filter { $0 != $1 }.count <= 8)
    }

    @Test func fixWritesThePresentedLength() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // web-video-late.webm: 1 s of video from 0.5 s into 2 s of Opus; FFmpeg's muxer says 2.008 s. The cut is
        // the video's second, and the output says exactly that (ffprobe reads it as the format's duration).
        let source = Fixtures.path("web-video-late.webm")
        #expect(SegmentDuration.read(source)?.seconds == Rational(2008, 1000))
        let before = try Tool.run(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", source]
        ).out
        #expect(String(decoding: before, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "2.008000")
        let report = ClipFix.fix(
            source,
            FixRequest(
                to: dir.appendingPathComponent("w.webm").path, options: .init(), analysis: .init(seamChecks: false),
                temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let out = try #require(report.fix?.output)
        #expect(SegmentDuration.read(out)?.seconds == Rational(1))
        let format = try Tool.run(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out]
        ).out
        #expect(String(decoding: format, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "1.000000")
        // The source's own mismatch is an info, not a failure.
        let finding = try #require(
            ClipAnalysis.report(path: source, options: .init(seamChecks: false)).findings.first {
                $0.rule == "movie-duration-mismatch"
            })
        #expect(finding.severity == .info && finding.figures["ms"] == 8)
    }
}
