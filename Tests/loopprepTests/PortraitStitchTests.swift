import Foundation
import TestSupport
import Testing

/// A phone's portrait clip beside a landscape one (fixtures/make-metadata.sh, 15: each a black picture with a white
/// box in its top-left corner as shown; the phone's stored sideways with a display matrix that turns it 90°
/// clockwise): `stitch --normalize` shows each upright in the first clip's orientation, fitted with bars, in either
/// order. Read back as a player shows it: FFmpeg's decoder with its display matrix applied (the CLI's autorotate).
@Suite struct PortraitStitchTests {
    /// Frame `n` of `path` as shown, in grey: one byte a pixel, rows of `width`.
    static func shown(_ path: String, frame n: Int, into dir: URL) throws -> [UInt8] {
        let file = dir.appendingPathComponent("frame-\(n).gray").path
        _ = try Run.tool([
            "ffmpeg", "-v", "error", "-y", "-i", path, "-vf", "select=eq(n\\,\(n))", "-frames:v", "1", "-f", "rawvideo",
            "-pix_fmt", "gray", file,
        ])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// Where the box shows (bright) and where bars and the rest of the picture are (dark), in shown pixels.
    struct Expectation {
        var width: Int
        var bright: [(Int, Int)]
        var dark: [(Int, Int)]
    }

    @Test func eachClipIsShownUprightInTheFirstClipsOrientation() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let phone = Run.fixture("phone-portrait.mp4")
        let landscape = Run.fixture("landscape-box.mp4")
        // Without --normalize: refused, the turn named as its cure.
        let refused = try Run.loopprep(["stitch", phone, landscape, "-o", dir.appendingPathComponent("no.mp4").path])
        #expect(refused.status == 1)
        let named =
            "\(landscape): rotation 0, where \(phone) has 90 (--normalize turns it to show as the first clip does)"
        #expect(refused.stderr.contains(named), "\(refused.stderr)")

        // The phone first: a 96x160 portrait reel. The landscape clip (192x108) fits its width at half size, 96x54,
        // from row (160 - 54) / 2 = 53, its box 24x13 from there; the phone's own box is 24x40 at the top left.
        let portrait = dir.appendingPathComponent("portrait.mp4").path
        let first = try Run.loopprep(["stitch", phone, landscape, "-o", portrait, "--normalize", "--format", "json"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("its pixels are turned 270° clockwise and fitted with bars"), "\(first.stdout)")
        try Self.expect(
            portrait, frame: 5, Expectation(width: 96, bright: [(10, 10), (20, 35)], dark: [(40, 10), (60, 100)]),
            dir: dir)
        try Self.expect(
            portrait, frame: 45,
            Expectation(width: 96, bright: [(10, 58), (20, 63)], dark: [(10, 30), (10, 120), (60, 58), (40, 90)]),
            dir: dir)

        // The landscape clip first: a 192x108 reel. The phone's picture as shown (96x160) fits its height:
        // 160 x 0.675 = 108 rows by 64 columns (an even width), from column (192 - 64) / 2 = 64, its box 16x27.
        let wide = dir.appendingPathComponent("landscape.mp4").path
        let second = try Run.loopprep(["stitch", landscape, phone, "-o", wide, "--normalize"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("its pixels are turned 90° clockwise and fitted with bars"), "\(second.stdout)")
        // Joined without --loop: its end meets its start (the landscape box against the phone's) as how it would
        // loop, not as a fault of the joins.
        #expect(second.stdout.contains("note: stitched without --loop, the reel is not joined as a loop"))
        try Self.expect(
            wide, frame: 5, Expectation(width: 192, bright: [(10, 10), (40, 20)], dark: [(60, 10), (100, 60)]),
            dir: dir)
        try Self.expect(
            wide, frame: 45,
            Expectation(width: 192, bright: [(70, 10), (76, 22)], dark: [(30, 10), (160, 10), (100, 10), (70, 60)]),
            dir: dir)
    }

    static func expect(_ path: String, frame: Int, _ e: Expectation, dir: URL) throws {
        let pixels = try shown(path, frame: frame, into: dir)
        #expect(pixels.count % e.width == 0 && !pixels.isEmpty)
        for (x, y) in e.bright { #expect(pixels[y * e.width + x] > 200, "frame \(frame) (\(x), \(y)) is bright") }
        for (x, y) in e.dark { #expect(pixels[y * e.width + x] < 40, "frame \(frame) (\(x), \(y)) is dark") }
    }
}

/// A slide show looped with crossfades (fixtures/make-metadata.sh, 17: two 2 s stills at 60 fps): the wrap's fade
/// ends at the loop point, so the picture moves into the seam by a fade's step a frame and rests after it. That is
/// no cut (it was flagged "2.7 against 2.5" because the still side was taken for the whole seam's motion).
@Suite struct SlideReelTests {
    @Test func aFadeThatEndsAtTheLoopPointIsNoCut() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reel = dir.appendingPathComponent("slides.mp4").path
        let run = try Run.loopprep([
            "stitch", Run.fixture("slide-bars.mp4"), Run.fixture("slide-mandelbrot.mp4"), "--loop", "--transition",
            "crossfade", "--duration", "0.5", "-o", reel,
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(!run.stdout.contains("seam-visual-jump"), "\(run.stdout)")
        // analyze says the same of the reel, and measured its seam.
        let analyzed = try Run.loopprep(["analyze", reel, "--format", "json"])
        #expect(analyzed.stdout.contains("\"videoDifference\""))
        #expect(!analyzed.stdout.contains("seam-visual-jump"), "\(analyzed.stdout)")
    }
}
