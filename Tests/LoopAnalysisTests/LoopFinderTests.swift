import Foundation
import Testing

@testable import LoopAnalysis

/// The loop finder on made-up signatures, where the true loop is known by construction.
@Suite struct LoopFinderTests {
    /// A 64x36 picture of a grating at phase `p` (0...1), with deterministic noise of +-3.
    static func picture(_ p: Double, seed: Int) -> [UInt8] {
        var state = UInt64(seed &* 2_654_435_761 &+ 1)
        return (0..<(64 * 36)).map { k in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Double(Int(state >> 61) - 3)
            let x = Double(k % 64)
            let wave: Double = 90 * sin(2 * Double.pi * (x / 16 + p))
            let value: Double = 128 + wave + noise
            return UInt8(max(0, min(255, value)))
        }
    }

    static func clip(period: Int, frames: Int) -> ([FrameSignature], [Rational]) {
        let f = (0..<frames).map { n in FrameSignature(luma: picture(Double(n % period) / Double(period), seed: n)) }
        return (f, (0..<frames).map { Rational(Int64($0), 30) })
    }

    /// A period of 37 frames in 300: every candidate between 1 and 1.5 s is 37 frames long, and scores low.
    /// 24 fps film with one keyframe in reach (frame 0, the next 250 frames on): the best seam (cost 0.6) starts 31
    /// frames into the GOP, so its cut encodes all 144 frames again; the same 144 frames from the keyframe cost 2.0
    /// (still seamless) and copy every frame: that one first (encoding a loop again loses more than a point of
    /// seam). A loop of another length from the keyframe at the same cost is no such trade: the best stays first.
    @Test func theBestLengthFromAKeyframeIsPreferredToEncodingItAgain() {
        func candidate(_ i: Int, _ j: Int, cost: Double) -> LoopCandidate {
            LoopCandidate(
                inFrame: i, outFrame: j, start: Rational(Int64(i), 24), end: Rational(Int64(j), 24),
                pictureDifference: 0, motionDifference: 0, audioJump: 0, levelDifference: 0, cost: cost)
        }
        var options = LoopFinder.Options(minFrames: 48, maxFrames: 240)
        options.keyframes = [0, 250]
        let best = candidate(31, 175, cost: 0.6)
        let sameLength = candidate(0, 144, cost: 2.0)
        #expect(LoopFinder.pick([best, sameLength], options: options).first == sameLength)
        let otherLength = candidate(0, 146, cost: 2.0)
        #expect(LoopFinder.pick([best, otherLength], options: options).first == best)
        // Beyond one more point than the copy's share earns (1 + 1), the seam decides.
        let worse = candidate(0, 144, cost: 2.7)
        #expect(LoopFinder.pick([best, worse], options: options).first == best)
    }

    @Test func findsThePeriod() {
        let (frames, times) = Self.clip(period: 37, frames: 300)
        let found = LoopFinder.find(
            frames, times: times, end: Rational(10), options: .init(minFrames: 30, maxFrames: 45, top: 3))
        #expect(found.count == 3)
        #expect(found.allSatisfy { $0.frames == 37 && $0.pictureDifference < 3 })
        #expect(found[0].start == times[found[0].inFrame] && found[0].end == times[found[0].outFrame])
    }

    /// Ties in the coarse pass spread over the file: 600 frames of fine noise whose 8x9 block
    /// means are all 128 (each horizontal pixel pair is 128 + s and 128 - s), so every pair of frames ties at a
    /// coarse cost of 0; the one repeat is late (frame 560 is frame 500). Keeping the earliest tied pairs, the
    /// fine pass never saw it; kept across the file, it is found.
    @Test func coarseTiesAreKeptAcrossTheFile() {
        func noise(_ seed: Int) -> [UInt8] {
            var state = UInt64(seed &* 2_654_435_761 &+ 7)
            var out = [UInt8](repeating: 128, count: 64 * 36)
            for k in stride(from: 0, to: out.count, by: 2) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let s = Int(state >> 59) - 16
                out[k] = UInt8(128 + s)
                out[k + 1] = UInt8(128 - s)
            }
            return out
        }
        var frames = (0..<600).map { FrameSignature(luma: noise($0)) }
        frames[560] = frames[500]
        #expect(Set(frames.map { LoopFinder.coarseSignature($0.luma) }).count == 1)
        let times = (0..<600).map { Rational(Int64($0), 30) }
        let found = LoopFinder.find(
            frames, times: times, end: Rational(20), options: .init(minFrames: 30, maxFrames: 90, top: 1))
        #expect(found.first?.inFrame == 500 && found.first?.outFrame == 560)
        #expect(found.first?.pictureDifference == 0)
    }

    /// Starts only where allowed (keyframes), and a range that holds no whole period gets honest, bad scores.
    /// Footage as unlike frame to frame as noise (a fast pan over detail) still repeats where it repeats: frames of
    /// independent noise, frame n the same as frame n mod 40. Every loop of 40 frames is seamless (the frame after it
    /// is its first); the same frames without the repeat (n never reused) have no loop at all.
    @Test func aPeriodInFootageAsBusyAsNoise() {
        func noise(_ seed: Int) -> [UInt8] {
            var state = UInt64(seed &* 2_654_435_761 &+ 11)
            return (0..<(64 * 36)).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
        }
        let times = (0..<160).map { Rational(Int64($0), 30) }
        let options = LoopFinder.Options(minFrames: 30, maxFrames: 50, top: 3)
        let repeating = (0..<160).map { FrameSignature(luma: noise($0 % 40)) }
        let found = LoopFinder.find(repeating, times: times, end: Rational(16, 3), options: options)
        #expect(!found.isEmpty && found.allSatisfy { $0.frames == 40 && $0.seamless }, "\(found)")
        #expect(found.allSatisfy { $0.repeatDissimilarity == 0 && options.structure($0) == .seamless })
        let never = (0..<160).map { FrameSignature(luma: noise($0)) }
        let none = LoopFinder.find(never, times: times, end: Rational(16, 3), options: options)
        #expect(!none.isEmpty && none.allSatisfy { !$0.seamless && options.structure($0) == .noStructure })
    }

    @Test func keyframesAndNoRepeat() {
        let (frames, times) = Self.clip(period: 37, frames: 300)
        let keys = Set(stride(from: 0, to: 300, by: 10))
        let found = LoopFinder.find(
            frames, times: times, end: Rational(10),
            options: .init(minFrames: 30, maxFrames: 45, allowedIn: keys, top: 2))
        #expect(found.allSatisfy { keys.contains($0.inFrame) && $0.frames == 37 })
        let none = LoopFinder.find(
            frames, times: times, end: Rational(10), options: .init(minFrames: 40, maxFrames: 60, top: 1))
        #expect(none.count == 1 && none[0].pictureDifference > 20)
    }

    /// The audio at the seam counts: two places with the same pictures, one where the wave runs on and one
    /// where it jumps.
    @Test func audioJumpIsMeasuredAtTheSeam() {
        var (frames, times) = Self.clip(period: 37, frames: 120)
        for k in frames.indices {
            frames[k].edges = [[0, 0, 0, 0]]
            frames[k].levelBefore = 0.1
            frames[k].levelAfter = 0.1
        }
        frames[74].edges = [[0.5, 0.5, 0.5, 0.5]]  // a loop ending at 74 jumps from 0.5 to the start's 0
        let clean = LoopFinder.measure(frames, times: times, end: Rational(4), inFrame: 38, outFrame: 75)
        let jumpy = LoopFinder.measure(frames, times: times, end: Rational(4), inFrame: 37, outFrame: 74)
        #expect(clean.audioJump == 0 && abs(jumpy.audioJump - 0.5) < 1e-6)
        #expect(jumpy.cost > clean.cost)
        // The tone: a hiss (4000 crossings a second) where the loop ends against a hum (220) where it starts.
        frames[75].crossingsBefore = 4000
        frames[38].crossingsBefore = 220
        let changed = LoopFinder.measure(frames, times: times, end: Rational(4), inFrame: 38, outFrame: 75)
        #expect(abs(changed.toneDifference - log2(4000.0 / 220)) < 1e-6 && changed.cost > clean.cost)
    }
}
