import LoopAnalysis
import LoopIndex

/// The presented samples of a decoded audio frame: those in [cut.mediaStart, +count) on the media's sample clock,
/// continuing exactly where `taken` left off.
enum PresentedAudio {
    /// `pts`: the frame's time on the cut's timeline. `next`: where the previous decoded frame ended (updated here). A
    /// decoder's output is contiguous, so on a
    /// clock coarser than a sample (Matroska's milliseconds) a frame whose rounded time lands within one tick of
    /// that place is taken to start there, not a few samples off (which would drop or repeat them).
    static func slice(_ frame: Frame, at pts: Int64, cut: TrackCut, taken: Int64, count: Int64, next: inout Int64?)
        -> [[Float]]
    {
        guard let rate = cut.sampleRate else { return [] }
        let perSample = Rational(1, Int64(rate)) / cut.timeBase
        var first = (Rational(pts) / perSample).rounded  // frame's first sample, on the media clock
        let span = cut.timeBase * Int64(rate)  // samples one clock tick spans
        let tick = span.denominator == 1 ? span.numerator : span.floor + 1
        if tick > 1, let expected = next, abs(first - expected) <= tick { first = expected }
        next = first + Int64(frame.sampleCount)
        let start = (Rational(cut.mediaStart) / perSample).rounded
        var chunk = Array(repeating: [Float](), count: frame.channelCount)
        for i in 0..<frame.sampleCount {
            let n = first + Int64(i) - start  // index within the presented cut
            guard n >= 0, n < count, n == taken + Int64(chunk[0].count) else { continue }
            for c in 0..<frame.channelCount { chunk[c].append(frame.sample(channel: c, index: i)) }
        }
        return chunk
    }
}
