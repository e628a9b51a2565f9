import Foundation

/// What the loop finder knows of each presented frame: a small grey picture (64x36 luma), and the audio at
/// the frame's start (the last two samples before it and the first two from it, and the level around it).
public struct FrameSignature: Sendable, Equatable {
    public var luma: [UInt8]
    /// Audio samples at the boundary: x[-2], x[-1] (before the frame starts), x[0], x[1] (from it); the loudest
    /// channel's.
    public var edge: [Float]
    /// RMS of the 50 ms before and the 50 ms from the frame's start.
    public var levelBefore: Float, levelAfter: Float
    /// The tone of the same 50 ms: zero crossings a second (a rough centre of the spectrum: a hiss crosses
    /// thousands of times, a hum a hundred).
    public var crossingsBefore: Float = 0, crossingsAfter: Float = 0

    public init(luma: [UInt8], edge: [Float] = [0, 0, 0, 0], levelBefore: Float = 0, levelAfter: Float = 0) {
        self.luma = luma
        self.edge = edge
        self.levelBefore = levelBefore
        self.levelAfter = levelAfter
    }

    /// Bytes a frame's signature keeps (64x36 luma, the coarse 8x4 one, the audio figures).
    public static let bytes = 64 * 36 + 32 + 8 * 4
}

/// A loop: frames [inFrame, outFrame) played again and again, so frame `outFrame` would follow where frame
/// `inFrame` does. Scores in plain units; lower is better.
public struct LoopCandidate: Codable, Sendable, Equatable {
    public var inFrame: Int
    public var outFrame: Int
    public var start: Rational
    public var end: Rational
    /// Mean absolute luma difference (0-255) between the frame after the loop's last and its first.
    public var pictureDifference: Double
    /// How differently the picture moves into the cut and out of it: mean absolute difference (0-255) of the
    /// frame-to-frame changes on either side.
    public var motionDifference: Double
    /// The audio's jump at the seam, of full scale (the seam-audio-click measure).
    public var audioJump: Double
    /// Level difference at the seam in dB.
    public var levelDifference: Double
    /// Tone difference at the seam: how far apart the zero-crossing rates are, in octaves.
    public var toneDifference: Double = 0
    public var cost: Double
    public var frames: Int { outFrame - inFrame }
}

/// Finds where a clip repeats. The search is coarse to fine: every pair (in, out) whose length is within
/// [min, max] is first compared on an 8x4 average of the pictures (32 numbers a frame), the best few hundred
/// are then measured in full (picture, motion into and out of the cut, audio at the seam) and ranked.
public enum LoopFinder {
    public struct Options: Sendable {
        public var minFrames: Int, maxFrames: Int
        /// Frames a loop may start on (keyframes, where the start cannot be re-encoded); nil: any.
        public var allowedIn: Set<Int>?
        public var top: Int
        public init(minFrames: Int, maxFrames: Int, allowedIn: Set<Int>? = nil, top: Int = 5) {
            self.minFrames = minFrames
            self.maxFrames = maxFrames
            self.allowedIn = allowedIn
            self.top = top
        }
    }

    /// `times[k]`: frame k's start; `end`: the last frame's end.
    public static func find(_ frames: [FrameSignature], times: [Rational], end: Rational, options o: Options)
        -> [LoopCandidate]
    {
        let n = frames.count
        guard n >= 2, times.count == n, o.minFrames >= 1, o.maxFrames >= o.minFrames else { return [] }
        let coarse = frames.map { coarseSignature($0.luma) }
        // Coarse pass: the best `keep` pairs by the coarse picture distance (out ranges to n: frame n is the
        // clip's end, compared as its last frame's successor would be: not available, so out < n).
        let keep = max(64, o.top * 20)
        var best: [(cost: Int, inFrame: Int, outFrame: Int)] = []
        var worstKept = Int.max
        for i in 0..<n where o.allowedIn?.contains(i) ?? true {
            let lo = i + o.minFrames
            let hi = min(i + o.maxFrames, n - 1)
            guard lo <= hi else { continue }
            for j in lo...hi {
                var d = 0
                for k in 0..<32 { d += abs(Int(coarse[i][k]) - Int(coarse[j][k])) }
                guard best.count < keep || d < worstKept else { continue }
                best.append((d, i, j))
                if best.count > keep * 2 {
                    best.sort { $0.cost < $1.cost }
                    best.removeLast(best.count - keep)
                    worstKept = best.last?.cost ?? worstKept
                }
            }
        }
        best.sort { $0.cost < $1.cost }
        // Fine pass.
        var ranked = best.prefix(keep).map { c in
            measure(frames, times: times, end: end, inFrame: c.inFrame, outFrame: c.outFrame)
        }
        ranked.sort { $0.cost != $1.cost ? $0.cost < $1.cost : ($0.inFrame, $0.outFrame) < ($1.inFrame, $1.outFrame) }
        // One candidate per place: drop those within two frames of a better one.
        var out: [LoopCandidate] = []
        for c in ranked
        where !out.contains(where: { abs($0.inFrame - c.inFrame) <= 2 && abs($0.outFrame - c.outFrame) <= 2 }) {
            out.append(c)
            if out.count == o.top { break }
        }
        return out
    }

    static func measure(_ f: [FrameSignature], times: [Rational], end: Rational, inFrame i: Int, outFrame j: Int)
        -> LoopCandidate
    {
        let picture = difference(f[j].luma, f[i].luma)
        // The changes into frame j and into frame i (the loop's last frame to what follows it, and the frame
        // before the start to the start) should be alike.
        var motion = 0.0
        if i > 0 {
            var sum = 0
            let a = f[j].luma
            let b = f[j - 1].luma
            let c = f[i].luma
            let d = f[i - 1].luma
            for k in a.indices { sum += abs((Int(a[k]) - Int(b[k])) - (Int(c[k]) - Int(d[k]))) }
            motion = Double(sum) / Double(max(a.count, 1))
        }
        // Audio: the loop's last samples (before frame j) run into its first (from frame i).
        let before = f[j].edge
        let after = f[i].edge
        let predicted = Double(before[1]) + (Double(before[1] - before[0]) + Double(after[1] - after[0])) / 2
        let jump = abs(Double(after[0]) - predicted)
        func db(_ a: Float, _ b: Float) -> Double { abs(20 * log10(Double(max(a, 1e-5)) / Double(max(b, 1e-5)))) }
        let level = max(db(f[j].levelBefore, f[i].levelBefore), db(f[j].levelAfter, f[i].levelAfter))
        func octaves(_ a: Float, _ b: Float) -> Double { abs(log2(Double(max(a, 10)) / Double(max(b, 10)))) }
        let tone = max(
            octaves(f[j].crossingsBefore, f[i].crossingsBefore), octaves(f[j].crossingsAfter, f[i].crossingsAfter))
        let cost = picture + 0.5 * motion + 100 * jump + 0.5 * min(level, 40) + 2 * min(tone, 10)
        var c = LoopCandidate(
            inFrame: i, outFrame: j, start: times[i], end: j < times.count ? times[j] : end,
            pictureDifference: picture, motionDifference: motion, audioJump: jump, levelDifference: level, cost: cost)
        c.toneDifference = tone
        return c
    }

    static func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0
        for k in a.indices where k < b.count { sum += abs(Int(a[k]) - Int(b[k])) }
        return Double(sum) / Double(max(a.count, 1))
    }

    /// 8x4 block averages of a 64x36 picture.
    static func coarseSignature(_ luma: [UInt8]) -> [UInt8] {
        let w = 64
        let h = 36
        let bw = w / 8
        let bh = h / 4
        var out = [UInt8](repeating: 0, count: 32)
        guard luma.count >= w * h else { return out }
        for by in 0..<4 {
            for bx in 0..<8 {
                var sum = 0
                for y in (by * bh)..<((by + 1) * bh) {
                    for x in (bx * bw)..<((bx + 1) * bw) { sum += Int(luma[y * w + x]) }
                }
                out[by * 8 + bx] = UInt8(sum / (bw * bh))
            }
        }
        return out
    }
}
