import Foundation
import LoopAnalysis
import Testing

@testable import LoopMedia

/// The libavfilter graph that draws stitch's transitions, checked against blends computed here, independently,
/// so it is wired the right way round (outgoing clip first) and weighted as planned.
@Suite struct TransitionGraphTests {
    /// The first presented frame of a fixture, decoded.
    static func firstFrame(_ file: String) throws -> Frame {
        let input = try InputFile(path: Fixtures.path(file))
        let stream = try #require((0..<input.streamCount).first { input.basics($0).kind == .video })
        let decoder = try Decoder(input, stream: stream)
        let packet = try Packet()
        let frame = try Frame()
        var out: Frame?
        while out == nil, try input.read(into: packet) {
            guard packet.streamIndex == stream else { continue }
            try decoder.decode(packet, into: frame) { f in if out == nil { out = try f.clone() } }
        }
        return try #require(out)
    }

    static func luma(_ f: Frame) throws -> [[Int]] {
        let p = f.pointer.pointee
        let plane = try #require(p.data.0)
        return (0..<Int(p.height)).map { y in (0..<Int(p.width)).map { x in Int(plane[y * Int(p.linesize.0) + x]) } }
    }

    /// A 4-frame crossfade: window frame 1 is 2/5 of the incoming clip (progress (k + 1) / (N + 1)), so a swap
    /// of the inputs (3/5) would be far off.
    @Test func crossfadeWeighsTheIncomingClipByItsProgress() throws {
        let a = try Self.firstFrame("clean.mp4")
        let b = try Self.firstFrame("seam-jump.mp4")
        let graph = try TransitionGraph(
            transition: TransitionKind.crossfade.xfade!, frames: 4, like: a, frameRate: Rational(30))
        var drawn: [Frame] = []
        for _ in 0..<4 { drawn.append(try graph.draw(a, b)) }
        let la = try Self.luma(a)
        let lb = try Self.luma(b)
        let out = try Self.luma(drawn[1])
        var error = 0.0
        var swapped = 0.0
        var count = 0.0
        for y in la.indices {
            for x in la[y].indices {
                error += abs(Double(out[y][x]) - (Double(la[y][x]) * 3 + Double(lb[y][x]) * 2) / 5)
                swapped += abs(Double(out[y][x]) - (Double(la[y][x]) * 2 + Double(lb[y][x]) * 3) / 5)
                count += 1
            }
        }
        #expect(error / count < 1.0, "mean difference \(error / count)")
        #expect(swapped / count > 3 * max(error / count, 0.5))
        #expect(
            drawn.allSatisfy {
                $0.pointer.pointee.format == a.pointer.pointee.format
                    && $0.pointer.pointee.width == a.pointer.pointee.width
            })
    }

    /// slide-left (xfade's slideleft): the outgoing clip moves left by the progress, the incoming one follows
    /// from the right. Window frame 1 of 3 is half way: the left half shows the outgoing clip's right half.
    @Test func slideLeftPushesTheOutgoingClipLeft() throws {
        let a = try Self.firstFrame("clean.mp4")
        let b = try Self.firstFrame("seam-jump.mp4")
        let graph = try TransitionGraph(
            transition: TransitionKind.slideLeft.xfade!, frames: 3, like: a, frameRate: Rational(30))
        _ = try graph.draw(a, b)
        let middle = try Self.luma(try graph.draw(a, b))
        let la = try Self.luma(a)
        let lb = try Self.luma(b)
        let w = la[0].count
        let shift = w / 2
        var error = 0.0
        var count = 0.0
        for y in la.indices {
            for x in 0..<w {
                let expected = x + shift < w ? la[y][x + shift] : lb[y][x + shift - w]
                error += abs(Double(middle[y][x] - expected))
                count += 1
            }
        }
        #expect(error / count < 1.0, "mean difference \(error / count)")
    }

    /// Every name xfade has is accepted and draws (10-bit too: xfade takes yuv420p10).
    @Test func everyXfadeTransitionDraws() throws {
        let a = try Self.firstFrame("clean.mp4")
        let b = try Self.firstFrame("seam-jump.mp4")
        for name in TransitionKind.xfadeNames {
            let graph = try TransitionGraph(transition: name, frames: 2, like: a, frameRate: Rational(30000, 1001))
            let d = try graph.draw(a, b)
            #expect(d.pointer.pointee.height == a.pointer.pointee.height, "\(name)")
        }
        #expect(TransitionKind(rawValue: "circleopen")?.xfade == "circleopen")
        #expect(
            TransitionKind(rawValue: "fade-black")?.xfade == "fadeblack"
                && TransitionKind(rawValue: "fade-black")?.dipsAudio == true)
        #expect(TransitionKind(rawValue: "sparkle") == nil)
    }
}

/// stitch's audio under a transition follows FFmpeg's acrossfade curves: checked against acrossfade itself,
/// crossfading two constant signals (0.5 and -0.25) over 100 samples, curve by curve.
@Suite struct AudioCurveTests {
    @Test(arguments: FadeCurve.allCases)
    func gainsAreAcrossfades(curve: FadeCurve) throws {
        let n = 100
        // The ffmpeg 7 CLI now and then writes nothing for this graph (and exits 0): ask again, a few times.
        var run = (out: Data(), err: Data(), status: Int32(0))
        for _ in 0..<5 where run.out.isEmpty {
            run = try Tool.run(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-f", "lavfi", "-i", "aevalsrc=0.5:s=48000:d=1", "-f", "lavfi", "-i",
                    "aevalsrc=-0.25:s=48000:d=1",
                    "-filter_complex",
                    "[0]atrim=end_sample=\(n)[a];[1]atrim=end_sample=\(n)[b];"
                        + "[a][b]acrossfade=ns=\(n):c1=\(curve.rawValue):c2=\(curve.rawValue)",
                    "-f", "f64le", "-c:a", "pcm_f64le", "-",
                ])
        }
        let theirs = run.out.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        #expect(theirs.count == n, "ffmpeg exited \(run.status): \(String(decoding: run.err, as: UTF8.self))")
        let ours = (0..<n).map { i -> Double in
            let (a, b) = AudioMixer.gains(curve, sample: i, of: n, dip: false)
            return 0.5 * a - 0.25 * b
        }
        let worst = zip(theirs, ours).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-6, "\(curve): largest difference \(worst)")
    }
}
