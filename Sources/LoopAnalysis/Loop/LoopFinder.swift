import Foundation

/// What the loop finder knows of each presented frame: a small grey picture (64x36 luma), and the audio at
/// the frame's start (per channel the last two samples before it and the first two from it, and the level around
/// it).
public struct FrameSignature: Sendable, Equatable {
    public var luma: [UInt8]
    /// Cb then Cr at 32x18 (SeamPicture: a hue cut at one brightness); empty where only luma was read.
    public var chroma: [UInt8] = []
    /// Per channel, the audio samples at the boundary: x[-2], x[-1] (before the frame starts), x[0], x[1] (from
    /// it).
    public var edges: [[Float]]
    /// RMS of the 50 ms before and the 50 ms from the frame's start.
    public var levelBefore: Float, levelAfter: Float
    /// The tone of the same 50 ms: zero crossings a second (a rough centre of the spectrum: a hiss crosses
    /// thousands of times, a hum a hundred).
    public var crossingsBefore: Float = 0, crossingsAfter: Float = 0

    public init(
        luma: [UInt8], chroma: [UInt8] = [], edges: [[Float]] = [], levelBefore: Float = 0, levelAfter: Float = 0
    ) {
        self.luma = luma
        self.chroma = chroma
        self.edges = edges
        self.levelBefore = levelBefore
        self.levelAfter = levelAfter
    }

    /// The grey picture's size.
    public static let width = 64, height = 36
    /// Bytes a frame's signature keeps (64x36 luma, 2x32x18 chroma, the coarse 8x4 luma and the mean Cb and Cr,
    /// 64 spots, the audio figures of two channels).
    public static let bytes = 64 * 36 + 2 * 32 * 18 + 34 + 64 + 8 * 6
}

/// A loop: frames [inFrame, outFrame) played again and again, so frame `outFrame` would follow where frame
/// `inFrame` does. Scores in plain units; lower is better. `seamDifference`, `seamMotion` and `audioJump` are
/// analyze's seam measures (seam-visual-jump, seam-audio-click) as the written loop will show them.
public struct LoopCandidate: Codable, Sendable, Equatable {
    public var inFrame: Int
    public var outFrame: Int
    public var start: Rational
    public var end: Rational
    /// How unlike the loop's first frame is the frame that would follow its last (mean absolute luma
    /// difference, 0-255): 0 where the clip repeats exactly.
    public var pictureDifference: Double
    /// How differently the picture moves into the cut and out of it: mean absolute difference (0-255) of the
    /// frame-to-frame changes on either side.
    public var motionDifference: Double
    /// analyze's seam-visual-jump figures on the written loop: its last frame against its first, and its last two
    /// frames against each other (mean luma or colour difference of 255, SeamPicture).
    public var seamDifference: Double = 0
    public var seamMotion: Double = 0
    /// The steps between neighbouring frames around the seam (its last two transitions, its first two).
    public var motionAround: [Double] = []
    /// The seam's structure (SeamStructure, as analyze measures it): its last frame against its first (1 - SSIM)
    /// and the pairs around it, the loop's last two transitions and its first two.
    public var seamDissimilarity: Double = 0
    public var neighbourDissimilarity: [Double] = []
    /// The frame that would follow the loop against its first (1 - SSIM): about 0 where the clip truly repeats
    /// there, however fast it moves; about 0.5 in noise.
    public var repeatDissimilarity: Double = 0
    /// analyze's seam-audio-click figure: the largest jump over the channels, of full scale.
    public var audioJump: Double
    /// Level difference at the seam in dB.
    public var levelDifference: Double
    /// Tone difference at the seam: how far apart the zero-crossing rates are, in octaves.
    public var toneDifference: Double = 0
    /// Whether analyze will find the written loop's seam clean: no seam-visual-jump, no seam-audio-click, at the
    /// thresholds analyze uses (the project's, when it sets them).
    public var seamless: Bool = true
    public var cost: Double
    public var frames: Int { outFrame - inFrame }
}

/// Finds where a clip repeats. The search is coarse to fine: every pair (in, out) whose length is within
/// [min, max] is first compared on an 8x4 average of the pictures (32 numbers a frame), the best few hundred
/// are then measured in full (picture, motion into and out of the cut, audio at the seam) and ranked.
package enum LoopFinder {
    public struct Options: Sendable {
        public var minFrames: Int, maxFrames: Int
        /// Frames a loop may start on (keyframes, where the start cannot be re-encoded); nil: any.
        public var allowedIn: Set<Int>?
        public var top: Int
        /// analyze's thresholds: the mean luma or colour difference under which a seam is never a cut, and the
        /// audio jump above which it clicks.
        public var visualThreshold: Double
        public var clickThreshold: Double
        /// The clip's keyframes (frame indices): among loops that are both seamless, the one that copies the most
        /// frames ranks first (a start on a keyframe copies all; one inside a GOP encodes its frames up to the next
        /// keyframe again, or the whole loop where none follows). nil: not known, not weighed.
        public var keyframes: Set<Int>?
        public init(
            minFrames: Int, maxFrames: Int, allowedIn: Set<Int>? = nil, top: Int = 5,
            visualThreshold: Double = SeamVisualJump.floor, clickThreshold: Double = SeamAudioClick.threshold
        ) {
            self.minFrames = minFrames
            self.maxFrames = maxFrames
            self.allowedIn = allowedIn
            self.top = top
            self.visualThreshold = visualThreshold
            self.clickThreshold = clickThreshold
        }

        /// analyze's two seam rules on a candidate's figures: a visible cut (seam-visual-jump: above the floor and
        /// three times the motion) and a click (seam-audio-click).
        /// Footage with no structure to repeat (noise) is never seamless either.
        public func seamFlags(_ c: LoopCandidate) -> (cut: Bool, click: Bool) {
            (
                SeamVisualJump.isCut(
                    difference: c.seamDifference, motion: c.seamMotion, threshold: visualThreshold,
                    around: c.motionAround)
                    || structure(c) != .seamless,
                c.audioJump > clickThreshold
            )
        }

        /// The seam's structure against the frames around it, at analyze's threshold (SeamVisualJump's rule).
        /// Footage whose neighbouring frames are half unlike has structure where it truly repeats: a fast pan over
        /// detail is as unlike frame to frame as noise, but the frame after a true period is the loop's first
        /// (a third of the neighbours' dissimilarity at most, and under SeamStructure's floor), which noise never is.
        public func structure(_ c: LoopCandidate) -> SeamStructure.Verdict {
            let floor = SeamVisualJump.structureFloor(visualThreshold)
            let verdict = SeamStructure.verdict(
                seam: c.seamDissimilarity, neighbours: c.neighbourDissimilarity, floor: floor)
            guard verdict == .noStructure, !c.neighbourDissimilarity.isEmpty else { return verdict }
            let mean = c.neighbourDissimilarity.reduce(0, +) / Double(c.neighbourDissimilarity.count)
            return c.repeatDissimilarity <= min(floor, mean / 3) ? .seamless : verdict
        }

        /// Pairs kept from the coarse pass for the fine one: fixed, so `top` only says how many are reported and
        /// never which one wins.
        public static let kept = 256
        /// The best candidates whose neighbourhood (two frames either way at each end) is measured too.
        public static let polished = 8

        /// Pairs of each loop length kept from the coarse pass besides those (its best few).
        public static let keptPerLength = 2

        /// Frames a candidate's cut encodes again: none from a keyframe, those up to the next keyframe inside it,
        /// or all of it.
        public func reencodedFrames(_ c: LoopCandidate) -> Int {
            guard let keyframes, !keyframes.contains(c.inFrame) else { return 0 }
            let next = keyframes.filter { $0 > c.inFrame && $0 < c.outFrame }.min()
            return (next ?? c.outFrame) - c.inFrame
        }
    }

    /// `times[k]`: frame k's start; `end`: the last frame's end.
    /// `progress`: told how far the coarse pass is (0-1), once per in-frame.
    public static func find(
        _ frames: [FrameSignature], times: [Rational], end: Rational, options o: Options,
        progress: ((Double) -> Void)? = nil
    ) -> [LoopCandidate] {
        let n = frames.count
        guard n >= 2, times.count == n, o.minFrames >= 1, o.maxFrames >= o.minFrames else { return [] }
        let pairs = coarsePass(frames, options: o, progress: progress)
        let ranked = finePass(frames, times: times, end: end, pairs: pairs, options: o)
        return pick(ranked, options: o)
    }

    /// A pair's coarse rank: the coarse picture distance, then a finer look, then a hash of the pair.
    typealias CoarseKey = (cost: Int, finer: Int, tie: UInt64)
    typealias CoarsePair = (key: CoarseKey, inFrame: Int, outFrame: Int)

    static func before(_ a: CoarseKey, _ b: CoarseKey) -> Bool {
        a.cost != b.cost ? a.cost < b.cost : a.finer != b.finer ? a.finer < b.finer : a.tie < b.tie
    }

    /// Coarse pass: the best `Options.kept` pairs by the coarse picture distance, and the best few of every loop
    /// length (out ranges to n: frame n is the clip's end, compared as its last frame's successor would be: not
    /// available, so out < n). Pairs of equal coarse cost (long footage holds thousands: a still sky, a slow drone
    /// shot) are told apart by a finer look (64 pixels spread over the picture), then by a hash of the pair, not by
    /// their place: what is kept spreads over the whole file, not its first seconds.
    static func coarsePass(
        _ frames: [FrameSignature], options o: Options, progress: ((Double) -> Void)?
    ) -> [(Int, Int)] {
        let (n, keep) = (frames.count, Options.kept)
        let coarse = frames.map { coarseSignature($0.luma, chroma: $0.chroma) }
        let spots = frames.map { Self.spotSignature($0.luma) }
        var best: [CoarsePair] = []
        var worstKept: CoarseKey = (Int.max, Int.max, UInt64.max)
        var byLength: [Int: [CoarsePair]] = [:]
        func key(_ cost: Int, _ i: Int, _ j: Int) -> CoarseKey {
            var finer = 0
            for k in 0..<spots[i].count { finer += abs(Int(spots[i][k]) - Int(spots[j][k])) }
            return (cost, finer, Self.tieBreak(i, j))
        }
        for i in 0..<n where o.allowedIn?.contains(i) ?? true {
            progress?(Double(i) / Double(n))
            let lo = i + o.minFrames
            let hi = min(i + o.maxFrames, n - 1)
            guard lo <= hi else { continue }
            for j in lo...hi {
                var d = 0
                for k in 0..<32 { d += abs(Int(coarse[i][k]) - Int(coarse[j][k])) }
                // The mean Cb and Cr weigh as much as the 32 luma cells together (a hue change over the frame).
                d += 16 * (abs(Int(coarse[i][32]) - Int(coarse[j][32])) + abs(Int(coarse[i][33]) - Int(coarse[j][33])))
                // The best few of each length, whatever the others' costs.
                keepBest(&byLength[j - i, default: []], d, i, j, key: key)
                guard best.count < keep || d <= worstKept.cost else { continue }
                let k = key(d, i, j)
                guard best.count < keep || before(k, worstKept) else { continue }
                best.append((k, i, j))
                if best.count > keep * 2 {
                    best.sort { before($0.key, $1.key) }
                    best.removeLast(best.count - keep)
                    worstKept = best.last?.key ?? worstKept
                }
            }
        }
        best.sort { before($0.key, $1.key) }
        // (The groups in a fixed order: a dictionary's is not, and the fine pass breaks ties by place.)
        let grouped = byLength.values.flatMap { $0 }.sorted { ($0.inFrame, $0.outFrame) < ($1.inFrame, $1.outFrame) }
        return best.prefix(keep).map { ($0.inFrame, $0.outFrame) } + grouped.map { ($0.inFrame, $0.outFrame) }
    }

    /// Keeps the pair among its group's best few, told apart as the best overall are (coarse, finer, tie).
    static func keepBest(
        _ mine: inout [CoarsePair], _ cost: Int, _ i: Int, _ j: Int, key: (Int, Int, Int) -> CoarseKey
    ) {
        if mine.count >= Options.keptPerLength, let worst = mine.last?.key, cost > worst.cost { return }
        let k = key(cost, i, j)
        if mine.count >= Options.keptPerLength, let worst = mine.last?.key, !before(k, worst) { return }
        mine.append((k, i, j))
        mine.sort { before($0.key, $1.key) }
        if mine.count > Options.keptPerLength { mine.removeLast() }
    }

    /// Fine pass: the pairs the coarse pass kept (the best overall, and the best few of every loop length, so a
    /// true period that the coarse distance ranks below near-repeats (a 30-frame step of slow motion against a
    /// 180-frame period under moving grain) is still measured), every loop starting on a keyframe, and the best
    /// few polished, each measured in full.
    static func finePass(
        _ frames: [FrameSignature], times: [Rational], end: Rational, pairs: [(Int, Int)], options o: Options
    ) -> [LoopCandidate] {
        let n = frames.count
        var seen = Set<Int>()
        var ranked: [LoopCandidate] = []
        let steps = Steps(frames)
        func measured(_ i: Int, _ j: Int) -> LoopCandidate {
            measure(frames, times: times, end: end, inFrame: i, outFrame: j, options: o, steps: steps)
        }
        for (i, j) in pairs where seen.insert(i * (n + 1) + j).inserted { ranked.append(measured(i, j)) }
        // Every loop starting on a keyframe (a cut that copies every frame: one in every GOP of 250 frames) is
        // measured finely, whatever the coarse pass kept: near a true period its coarse figures tie with the
        // frames around it, and grain decides among them.
        for i in (o.keyframes ?? []).sorted() where i < n && (o.allowedIn?.contains(i) ?? true) {
            let lo = i + o.minFrames
            let hi = min(i + o.maxFrames, n - 1)
            guard lo <= hi else { continue }
            let own = (lo...hi).filter { seen.insert(i * (n + 1) + $0).inserted }.map { measured(i, $0) }
            ranked += own.sorted { $0.cost < $1.cost }.prefix(Options.keptPerLength)
        }
        // The best few polished: every pair within two frames of each (in and out) measured too, so a period the
        // coarse figures could not tell from its neighbours (they tie under moving grain) is found exactly.
        let leaders = ranked.sorted { $0.cost < $1.cost }.prefix(Options.polished)
        for c in leaders {
            for i in max(c.inFrame - 2, 0)...(c.inFrame + 2) where o.allowedIn?.contains(i) ?? true {
                for j in (c.outFrame - 2)...min(c.outFrame + 2, n - 1)
                where j - i >= o.minFrames && j - i <= o.maxFrames && seen.insert(i * (n + 1) + j).inserted {
                    ranked.append(measured(i, j))
                }
            }
        }
        return ranked
    }

    /// By cost (a seam analyze would flag costs more than any it would not); then, among the loops as clean as the
    /// best (costing at most one more: a luma level, half a dB; one more again for the best's own length placed where
    /// its cut copies every frame while the best's encodes every one again, in proportion between: the same period,
    /// and encoding a loop again loses more than a point of seam), the one whose cut copies the largest share of its
    /// frames first (a start on a keyframe copies all; footage with a keyframe every 250 frames holds such a loop in
    /// every period; 24 fps film's best seam 1.3 s into a GOP of 10 s against the same 144 frames from its first
    /// keyframe, 0.6 against 2.0). One candidate per place: those within two frames of a better one are dropped.
    static func pick(_ measured: [LoopCandidate], options o: Options) -> [LoopCandidate] {
        var ranked = measured.sorted {
            $0.cost != $1.cost ? $0.cost < $1.cost : ($0.inFrame, $0.outFrame) < ($1.inFrame, $1.outFrame)
        }
        if let best = ranked.first, best.seamless {
            func copied(_ c: LoopCandidate) -> (share: Int, of: Int) {
                let length = c.outFrame - c.inFrame
                return (length - o.reencodedFrames(c), max(length, 1))
            }
            func fraction(_ c: LoopCandidate) -> Double { Double(copied(c).share) / Double(copied(c).of) }
            let reach = { (c: LoopCandidate) in
                let sameLength = c.outFrame - c.inFrame == best.outFrame - best.inFrame
                return best.cost + 1 + (sameLength ? max(0, fraction(c) - fraction(best)) : 0)
            }
            let isClean = { (c: LoopCandidate) in c.seamless && c.cost <= reach(c) }
            let preferred = ranked.filter(isClean).sorted {
                let (a, b) = (copied($0), copied($1))
                return a.share * b.of != b.share * a.of ? a.share * b.of > b.share * a.of : $0.cost < $1.cost
            }
            ranked = preferred + ranked.filter { !isClean($0) }
        }
        var out: [LoopCandidate] = []
        for c in ranked
        where !out.contains(where: { abs($0.inFrame - c.inFrame) <= 2 && abs($0.outFrame - c.outFrame) <= 2 }) {
            out.append(c)
            if out.count == o.top { break }
        }
        return out
    }

    /// The figures of each frame and the next (structure and mean difference), measured once for all the
    /// candidates that share them: the hundreds measured in a search share a few hundred frames.
    final class Steps {
        let frames: [FrameSignature]
        private var unlike: [Int: Double] = [:]
        private var differences: [Int: Double] = [:]
        init(_ frames: [FrameSignature]) { self.frames = frames }

        /// Frame k against frame k + 1.
        func dissimilarity(_ k: Int) -> Double {
            if let known = unlike[k] { return known }
            let value = SeamStructure.dissimilarity(
                frames[k].luma, frames[k + 1].luma, width: FrameSignature.width, height: FrameSignature.height)
            unlike[k] = value
            return value
        }

        func difference(_ k: Int) -> Double {
            if let known = differences[k] { return known }
            let value = LoopFinder.difference(frames[k], frames[k + 1])
            differences[k] = value
            return value
        }
    }

    static func measure(
        _ f: [FrameSignature], times: [Rational], end: Rational, inFrame i: Int, outFrame j: Int,
        options o: Options = Options(minFrames: 1, maxFrames: 1), steps: Steps? = nil
    ) -> LoopCandidate {
        let steps = steps ?? Steps(f)
        let picture = difference(f[j], f[i])
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
        // analyze's seam figures on the written loop: its last frame (j - 1) against its first (i), its last two.
        let seamDifference = difference(f[j - 1], f[i])
        let seamMotion = j - 2 >= i ? steps.difference(j - 2) : 0
        func unlike(_ a: Int, _ b: Int) -> Double {
            SeamStructure.dissimilarity(
                f[a].luma, f[b].luma, width: FrameSignature.width, height: FrameSignature.height)
        }
        let seamDissimilarity = unlike(j - 1, i)
        let around = [j - 3, j - 2, i, i + 1].filter { $0 >= i && $0 + 1 < j }
        // Audio, per channel: the loop's last samples (before frame j) run into its first (from frame i), where
        // they were heading (analyze's seam-audio-click measure).
        var jump = 0.0
        // Each edge holds x[-2], x[-1], x[0], x[1] around its frame's start: the loop ends on frame j's x[-2],
        // x[-1] and starts on frame i's x[0], x[1].
        for (before, after) in zip(f[j].edges, f[i].edges) where before.count == 4 && after.count == 4 {
            let final = Double(before[1])
            let predicted = final + ((final - Double(before[0])) + (Double(after[3]) - Double(after[2]))) / 2
            jump = max(jump, abs(Double(after[2]) - predicted))
        }
        func db(_ a: Float, _ b: Float) -> Double { abs(20 * log10(Double(max(a, 1e-5)) / Double(max(b, 1e-5)))) }
        // Before the clip's first frame there is nothing to compare: only what follows it counts there.
        let levelAfter = db(f[j].levelAfter, f[i].levelAfter)
        let level = i > 0 ? max(db(f[j].levelBefore, f[i].levelBefore), levelAfter) : levelAfter
        func octaves(_ a: Float, _ b: Float) -> Double { abs(log2(Double(max(a, 10)) / Double(max(b, 10)))) }
        let toneAfter = octaves(f[j].crossingsAfter, f[i].crossingsAfter)
        let tone = i > 0 ? max(octaves(f[j].crossingsBefore, f[i].crossingsBefore), toneAfter) : toneAfter
        var c = LoopCandidate(
            inFrame: i, outFrame: j, start: times[i], end: j < times.count ? times[j] : end,
            pictureDifference: picture, motionDifference: motion, audioJump: jump, levelDifference: level, cost: 0)
        c.seamDifference = seamDifference
        c.seamMotion = seamMotion
        c.motionAround = around.map { steps.difference($0) }
        c.seamDissimilarity = seamDissimilarity
        c.neighbourDissimilarity = around.map { steps.dissimilarity($0) }
        c.repeatDissimilarity = unlike(j, i)
        c.toneDifference = tone
        let (cut, click) = o.seamFlags(c)
        // Sound counts as much as the picture: a level step of 10 dB or an octave of tone weighs like a visible
        // change; a seam analyze would flag costs more than any it would not.
        let cost =
            picture + 0.5 * motion + 100 * jump + 2 * min(level, 40) + 10 * min(tone, 10)
            + (cut || click ? 1000 : 0)
        c.cost = cost
        c.seamless = !cut && !click
        return c
    }

    /// 64 pixels of a 64x36 picture, every 36th (spread over its rows and columns): a finer look for pairs the
    /// block averages cannot tell apart.
    static func spotSignature(_ luma: [UInt8]) -> [UInt8] {
        guard luma.count >= 64 * 36 else { return [] }
        return (0..<64).map { luma[$0 * 36 + ($0 % 36)] }
    }

    /// A pair's place in a tie, the same on every run: SplitMix64 of the pair, spread evenly over the file.
    static func tieBreak(_ i: Int, _ j: Int) -> UInt64 {
        var z = UInt64(truncatingIfNeeded: i) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(truncatingIfNeeded: j)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seam's picture step between two frames, luma and chroma (SeamPicture, as analyze measures it).
    static func difference(_ a: FrameSignature, _ b: FrameSignature) -> Double {
        SeamPicture.difference(a.luma, a.chroma, b.luma, b.chroma)
    }

    /// 8x4 block averages of a 64x36 picture, then its mean Cb and Cr (128 without chroma).
    static func coarseSignature(_ luma: [UInt8], chroma: [UInt8] = []) -> [UInt8] {
        let w = 64
        let h = 36
        let bw = w / 8
        let bh = h / 4
        var out = [UInt8](repeating: 128, count: 34)
        let half = chroma.count / 2
        if half > 0 {
            out[32] = UInt8(chroma[..<half].reduce(0) { $0 + Int($1) } / half)
            out[33] = UInt8(chroma[half...].reduce(0) { $0 + Int($1) } / half)
        }
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
