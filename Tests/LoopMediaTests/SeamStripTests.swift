import LoopAnalysis
import Testing

@testable import LoopIndex
@testable import LoopMedia

/// The seam strip's labels: each frame's time from the loop point, each lane's channel, a millisecond axis.
@Suite struct SeamStripTests {
    /// One black 160x90 tile each side, `channels` lanes of 50 ms at 48 kHz (2400 samples), a 30 fps clock.
    static func capture(lastTime: Rational = Rational(-1, 30), names: [String] = ["FL", "FR"]) -> SeamCapture {
        var shot = SeamCapture()
        shot.lastFrames = [RGBImage(width: 160, height: 90)]
        shot.firstFrames = [RGBImage(width: 160, height: 90)]
        shot.lastFrameTimes = [lastTime]
        shot.firstFrameTimes = [.zero]
        shot.audioBefore = Array(repeating: Array(repeating: 0, count: 2400), count: names.count)
        shot.audioAfter = shot.audioBefore
        shot.channelNames = names
        shot.sampleRate = 48000
        return shot
    }

    /// The bounding box of the pixels where two pictures differ.
    static func changed(_ a: RGBImage, _ b: RGBImage) -> (x: ClosedRange<Int>, y: ClosedRange<Int>)? {
        var xs: [Int] = []
        var ys: [Int] = []
        for y in 0..<a.height {
            for x in 0..<a.width
            where (0..<3).contains(where: {
                a.pixels[(y * a.width + x) * 3 + $0] != b.pixels[(y * a.width + x) * 3 + $0]
            }) {
                xs.append(x)
                ys.append(y)
            }
        }
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return nil }
        return (x0...x1, y0...y1)
    }

    @Test func timesAreMillisecondsFromTheLoopPoint() {
        #expect(SeamStrip.milliseconds(Rational(-1, 30)) == "-33 ms")
        #expect(SeamStrip.milliseconds(Rational(-3003, 30000)) == "-100 ms")
        #expect(SeamStrip.milliseconds(.zero) == "0 ms")
        #expect(SeamStrip.milliseconds(Rational(2, 30)) == "+67 ms")
    }

    @Test func theFontHasEveryGlyphItsLabelsUse() {
        for (c, rows) in StripFont.glyphs {
            #expect(rows.count == 7 && rows.allSatisfy { $0.count == 5 }, "glyph \(c)")
        }
        // No two glyphs alike (a typo would make two characters read the same).
        #expect(Set(StripFont.glyphs.values.map { $0.joined() }).count == StripFont.glyphs.count)
        let needed = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZms+-. "
        #expect(needed.allSatisfy { StripFont.glyphs[$0] != nil })
        #expect(StripFont.measure("-33 ms", scale: 2) == (6 * 6 - 1) * 2)
    }

    @Test func layoutHasRoomForTheAxis() {
        // margin 8, tile 90, margin 8, two lanes of 56 with a 4 gap, margin 8, and the axis (4 + 14 + 4).
        let image = SeamStrip.draw(Self.capture())
        #expect(image.height == 8 + 90 + 8 + 56 + 4 + 56 + 8 + 22)
        // 3 tile places a side (160 wide, 4 apart), the 14-pixel seam gap and margins.
        #expect(image.width == 2 * 8 + 2 * (3 * 160 + 2 * 4) + 14)
    }

    @Test func aChannelNameIsDrawnInItsOwnLane() {
        let a = SeamStrip.draw(Self.capture(names: ["FL", "FR"]))
        let b = SeamStrip.draw(Self.capture(names: ["FL", "LFE"]))
        let box = try! #require(Self.changed(a, b))
        // Lane 2 starts at 8 + 98 + 60 = 166; its label sits 5 in from the lane's corner, 14 high.
        let lane2 = 8 + 98 + 60
        #expect(box.y.lowerBound >= lane2 && box.y.upperBound < lane2 + 5 + 14 + 2)
        #expect(box.x.lowerBound >= 8 && box.x.upperBound < 8 + 5 + StripFont.measure("LFE", scale: 2) + 2)
    }

    @Test func aFrameTimeIsDrawnOnItsTile() {
        let a = SeamStrip.draw(Self.capture(lastTime: Rational(-1, 30)))
        let b = SeamStrip.draw(Self.capture(lastTime: Rational(-1, 25)))
        let box = try! #require(Self.changed(a, b))
        // The last frame's tile sits just left of the seam gap: x from 8 + 3*160 + 2*4 - 160 = 336; its label is
        // in its bottom left corner (tile bottom at 8 + 90).
        let tileX = 8 + 3 * 160 + 2 * 4 - 160
        #expect(box.x.lowerBound >= tileX && box.x.upperBound < tileX + 5 + StripFont.measure("-40 ms", scale: 2) + 2)
        #expect(box.y.lowerBound >= 98 - 16 - 2 && box.y.upperBound < 98)
    }
}
