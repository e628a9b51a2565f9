import CFFmpeg
import Foundation
import LoopAnalysis
import Testing

@testable import LoopIndex
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

    /// A crossfade of 4:2:0 video is blended on the clips' own planes (CrossfadeBlend, chosen by `drawer`), with
    /// xfade's formula: window frame k of N is a * p + b * (1 - p), p = 1 - (k + 1) / (N + 1), truncated, on every
    /// plane (checked here sample by sample); its luma is xfade's to the sample (xfade leaves luma unscaled); its
    /// chroma is the clips' own, where xfade's went through 4:4:4 and back (bicubic) and moved the bars' edges.
    @Test func aFourTwoZeroCrossfadeIsXfadesBlendOnItsOwnPlanes() throws {
        let a = try Self.firstFrame("clean.mp4")
        let b = try Self.firstFrame("seam-jump.mp4")
        #expect(a.pointer.pointee.format == AV_PIX_FMT_YUV420P.rawValue)
        let blend = try TransitionGraph.drawer(
            transition: .crossfade, frames: 4, like: a, frameRate: Rational(30), from: 0)
        #expect(blend is CrossfadeBlend)
        let graph = try TransitionGraph(transition: "fade", frames: 4, like: a, frameRate: Rational(30))
        for k in 0..<4 {
            let mine = try blend.draw(a, b)
            let theirs = try graph.draw(a, b)
            #expect(try Self.luma(mine) == Self.luma(theirs), "window frame \(k)")
            // xfade's chroma went through 4:4:4 and back (bicubic): 1.6-2.4 levels off on average on these bars.
            #expect(try Self.chromaDifference(mine, theirs) < 3, "window frame \(k)")
            let p = 1 - Float(k + 1) / 5
            for plane in 0..<3 {
                let (ma, mb, mm) = (try Self.plane(a, plane), try Self.plane(b, plane), try Self.plane(mine, plane))
                let expected = zip(ma, mb).map { Int(UInt8(Float($0) * p + Float($1) * (1 - p))) }
                #expect(mm == expected, "window frame \(k), plane \(plane)")
            }
        }
        // Another transition, or a format it does not take (10-bit), is xfade's.
        #expect(
            try TransitionGraph.drawer(
                transition: try #require(TransitionKind(rawValue: "wipeleft")), frames: 2, like: a,
                frameRate: Rational(30), from: 0) is TransitionGraph)
        #expect(
            !CrossfadeBlend.takes(AV_PIX_FMT_YUV420P10LE.rawValue) && CrossfadeBlend.takes(AV_PIX_FMT_YUVJ422P.rawValue)
        )
        #expect(!CrossfadeBlend.takes(AV_PIX_FMT_NV12.rawValue) && !CrossfadeBlend.takes(AV_PIX_FMT_RGB24.rawValue))
    }

    /// The blend's arithmetic, which the compiler may carry out many samples at once, is xfade's formula with its
    /// checked conversion for every pair of samples at every position of windows of 1 to 5 frames and of 0.5 s
    /// and 1 s at 24, 25 and 30 fps.
    @Test func theBlendIsTheFormulaForEverySample() {
        var differing = 0
        for frames in [1, 2, 3, 4, 5, 12, 13, 15, 24, 25, 30] {
            for k in 0..<frames {
                let p = max(0, min(1, 1 - Float(k + 1) / Float(frames + 1)))
                for a in 0...255 {
                    for b in 0...255 {
                        let formula = UInt8(Float(a) * p + Float(b) * (1 - p))
                        if CrossfadeBlend.mix(UInt8(a), UInt8(b), p, 1 - p) != formula { differing += 1 }
                    }
                }
            }
        }
        #expect(differing == 0)
    }

    /// A plane's samples, row after row (4:2:0: planes 1 and 2 at half the size, rounded up).
    static func plane(_ f: Frame, _ p: Int) throws -> [Int] {
        let frame = f.pointer.pointee
        let (w, h) =
            p == 0 ? (Int(frame.width), Int(frame.height)) : (Int(frame.width + 1) / 2, Int(frame.height + 1) / 2)
        let (data, stride) = [
            (frame.data.0, frame.linesize.0), (frame.data.1, frame.linesize.1), (frame.data.2, frame.linesize.2),
        ][p]
        let base = try #require(data)
        return (0..<h).flatMap { row in (0..<w).map { Int(base[row * Int(stride) + $0]) } }
    }

    /// The mean difference between two frames' chroma samples (planes 1 and 2, 4:2:0).
    static func chromaDifference(_ x: Frame, _ y: Frame) throws -> Double {
        var total = 0
        var count = 0
        for p in 1...2 {
            let (px, py) = (try plane(x, p), try plane(y, p))
            total += zip(px, py).map { abs($0 - $1) }.reduce(0, +)
            count += px.count
        }
        return Double(total) / Double(max(count, 1))
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
