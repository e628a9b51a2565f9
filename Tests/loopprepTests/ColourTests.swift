import Foundation
import TestSupport
import Testing

/// Colour is a difference stitch sees. colour-hlg.mov and colour-709.mov (fixtures/make-metadata.sh): the same
/// second of testsrc2 in HEVC 10-bit, tagged BT.2020 / HLG and BT.709. The expected pictures come from the ffmpeg
/// CLI's own zscale (and tonemap) applied to the source frame, not from loopprep.
@Suite struct ColourTests {
    @Test func thePairIsRefusedWithItsColours() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep([
            "stitch", Run.fixture("colour-hlg.mov"), Run.fixture("colour-709.mov"), "-o",
            dir.appendingPathComponent("ab.mov").path,
        ])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "colour-709.mov: colour bt709 / bt709 / bt709, limited range, where "), "\(run.stderr)")
        #expect(run.stderr.contains("has bt2020 / arib-std-b67 (HLG) / bt2020nc, limited range"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("ab.mov").path))
    }

    /// --normalize, HLG first: the SDR pictures converted into HLG (as zscale converts them), the reel tagged HLG.
    /// SDR first: the HLG pictures tone-mapped (zscale to linear light, BT.709's gamut, tonemap's Hable curve).
    @Test(arguments: [
        (
            "colour-hlg.mov", "colour-709.mov", "bt2020", "arib-std-b67",
            "zscale=primariesin=709:transferin=709:matrixin=709:rangein=limited:primaries=2020:transfer=arib-std-b67:"
                + "matrix=2020_ncl:range=limited"
        ),
        (
            "colour-709.mov", "colour-hlg.mov", "bt709", "bt709",
            "zscale=primariesin=2020:transferin=arib-std-b67:matrixin=2020_ncl:rangein=limited:transfer=linear:"
                + "npl=100,format=gbrpf32le,zscale=primaries=709,tonemap=tonemap=hable:desat=0,zscale=primaries=709:"
                + "transfer=709:matrix=709:range=limited"
        ),
    ])
    func normalizeConvertsToTheFirstClipsColour(
        first: String, second: String, primaries: String, transfer: String, conversion: String
    ) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("ab.mov").path
        let run = try Run.loopprep([
            "stitch", Run.fixture(first), Run.fixture(second), "-o", out, "--normalize", "--no-seam",
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("\(second): its pictures are converted from"), "\(run.stdout)")
        let tags = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
            "stream=color_primaries,color_transfer", "-of", "csv=p=0", out,
        ])
        // (ffprobe prints the transfer first.)
        #expect(tags.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(transfer),\(primaries)")
        // The reel's frame 37 is the second clip's frame 12 (25 frames a clip).
        let shown = try Self.luma(out, "select=eq(n\\,37)")
        let expected = try Self.luma(Run.fixture(second), "select=eq(n\\,12),\(conversion),format=yuv420p10le")
        let unconverted = try Self.luma(Run.fixture(second), "select=eq(n\\,12)")
        let near = Self.distance(shown, expected)
        #expect(near < 0.01 && Self.distance(shown, unconverted) > 4 * near, "\(near)")
    }

    /// A frame's luma as 16-bit samples, after `filters`.
    static func luma(_ path: String, _ filters: String) throws -> [UInt16] {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("f.gray16").path
        let run = try Run.tool([
            "ffmpeg", "-v", "error", "-i", path, "-vf", filters, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt",
            "gray16le", raw,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    }

    /// Mean absolute difference, as a fraction of full scale.
    static func distance(_ a: [UInt16], _ b: [UInt16]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return zip(a, b).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(a.count) / 65535
    }
}
