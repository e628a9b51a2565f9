import Foundation
import LoopAnalysis
import LoopIndex

/// Lays the clips' audio on the output's sample grid and mixes the joins: equal-power for dissolves and slides,
/// a dip through silence for fade-black. With a loop, the first clip's opening is held back and mixed into the
/// last clip's tail at the end of the file.
final class AudioMixer {
    let timeline: StitchTimeline
    let channels: Int
    var clip = 0
    var local: Int64 = 0
    var clipStart: Int64 = 0
    var clipCount: Int64 = 0
    var incoming: (range: Range<Int64>, kind: TransitionKind)?
    var outgoing: Range<Int64>?
    var held: [[Float]] = []
    var heldStart: Int64 = 0
    var nextHeld: [[Float]] = []
    var wrapHead: [[Float]] = []
    var last: [Float] = []

    /// The fade curve both sides of a join follow (acrossfade's, by name).
    let curve: FadeCurve

    init(timeline: StitchTimeline, channels: Int, curve: FadeCurve = .qsin) {
        self.timeline = timeline
        self.channels = channels
        self.curve = curve
        held = Array(repeating: [], count: channels)
        nextHeld = held
        wrapHead = held
        last = Array(repeating: 0, count: channels)
    }

    /// Output sample at a frame boundary (frames may be negative: a loop's consumed opening).
    func sample(_ frame: Int) -> Int64 {
        (Rational(Int64(frame)) / timeline.frameRate * Int64(timeline.sampleRate ?? 0)).rounded
    }

    func range(_ join: StitchTimeline.JoinEntry) -> Range<Int64> {
        sample(join.span.startFrame)..<sample(join.span.endFrame)
    }

    func begin(clip i: Int) {
        clip = i
        local = 0
        let n = timeline.clips.count
        let first = timeline.loop && i == 0 ? -(timeline.joins.last?.frames ?? 0) : timeline.clips[i].span.startFrame
        clipStart = sample(first)
        clipCount = sample(timeline.clips[i].span.endFrame) - clipStart
        incoming =
            i > 0 && timeline.joins[i - 1].frames > 0 ? (range(timeline.joins[i - 1]), timeline.joins[i - 1].kind) : nil
        let out = i < n - 1 || timeline.loop ? timeline.joins[i] : nil
        outgoing = out.flatMap { $0.frames > 0 ? range($0) : nil }
        nextHeld = Array(repeating: [], count: channels)
    }

    func add(_ chunk: [[Float]], _ emit: ([[Float]]) throws -> Void) throws {
        guard let n = chunk.first?.count, n > 0 else { return }
        var out = Array(repeating: [Float](), count: channels)
        for i in 0..<n {
            route((0..<channels).map { c in c < chunk.count ? chunk[c][i] : 0 }, into: &out)
        }
        if (out.first?.count ?? 0) > 0 { try emit(out) }
    }

    /// Fills a clip that decoded a sample short (rounding to the output grid) with its last value.
    func end(_ emit: ([[Float]]) throws -> Void) throws {
        var out = Array(repeating: [Float](), count: channels)
        while local < clipCount { route(last, into: &out) }
        if (out.first?.count ?? 0) > 0 { try emit(out) }
        held = nextHeld
        heldStart = outgoing?.lowerBound ?? 0
    }

    /// With a loop: the last clip's tail over the first clip's opening, the file's last samples. The opening is
    /// laid so its last sample is the file's last: the first clip goes on from the next at the wrap. (Its span
    /// and the join's, each rounded to the sample grid, may differ by a sample: 16 frames at 30000/1001 fps are
    /// 23543.52 samples at 44.1 kHz, the opening 23544 where the join's slot is 23543; laid from the join's
    /// start, the wrap skipped a sample, a step of 0.025 on a 440 Hz tone.)
    func finish(_ emit: ([[Float]]) throws -> Void) throws {
        guard timeline.loop, let join = timeline.joins.last, join.frames > 0 else { return }
        let length = range(join).count
        var out = Array(repeating: [Float](), count: channels)
        for k in 0..<length {
            for c in 0..<channels {
                let a = k < held[c].count ? held[c][k] : (held[c].last ?? 0)
                let h = wrapHead[c].count - length + k
                let b = wrapHead[c].isEmpty ? 0 : wrapHead[c][max(0, min(h, wrapHead[c].count - 1))]
                out[c].append(mix(a, b, sample: k, of: length, join.kind))
            }
        }
        if length > 0 { try emit(out) }
    }

    private func route(_ s: [Float], into out: inout [[Float]]) {
        guard local < clipCount else { return }
        let p = clipStart + local
        local += 1
        last = s
        if timeline.loop && clip == 0 && p < 0 {
            for c in 0..<channels { wrapHead[c].append(s[c]) }
        } else if let (r, kind) = incoming, r.contains(p) {
            let k = Int(p - heldStart)
            let i = Int(p - r.lowerBound)
            for c in 0..<channels {
                out[c].append(mix(k < held[c].count ? held[c][k] : 0, s[c], sample: i, of: r.count, kind))
            }
        } else if let r = outgoing, r.contains(p) {
            for c in 0..<channels { nextHeld[c].append(s[c]) }
        } else {
            for c in 0..<channels { out[c].append(s[c]) }
        }
    }

    /// Sample `i` of an `n`-sample join, as acrossfade weighs it: the outgoing side at the curve's gain of
    /// (n - 1 - i) / n, the incoming at that of i / n. Through black or white, the first half fades out and the
    /// second fades in, through silence.
    func mix(_ a: Float, _ b: Float, sample i: Int, of n: Int, _ kind: TransitionKind) -> Float {
        let (out, into) = Self.gains(curve, sample: i, of: n, dip: kind.dipsAudio)
        return a * Float(out) + b * Float(into)
    }

    static func gains(_ curve: FadeCurve, sample i: Int, of n: Int, dip: Bool) -> (Double, Double) {
        let n = Double(max(n, 1))
        let i = Double(i)
        guard dip else { return (curve.gain((n - 1 - i) / n), curve.gain(i / n)) }
        return (curve.gain(max(0, (n - 1 - 2 * i) / n)), curve.gain(max(0, (2 * i - n) / n)))
    }
}
