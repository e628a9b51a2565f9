/// An MP3's LAME/Xing header says its encoder delay and padding; FFmpeg turns them into skip samples on the
/// packets that start at 0 (`skipStart`, `skipEnd` of the scanned timeline). The file plays from its first real
/// sample, at 0: read as the edit it is, so the priming counts as signalled and a cut can keep it hidden.
package enum LAMEGapless {
    /// Every MP3 decoder puts out 529 samples of its own before the encoder's first: the delay a player hides is
    /// the tag's plus these, and the padding it drops at the end the tag's less these.
    public static let decoderDelay: Int64 = 529

    /// The timeline with the tag's delay and padding (samples at `rate`) as one edit: the content is every
    /// decoded sample less both, from the delay on. An MPEG-2 frame is 576 samples and LAME pads up to 1,423, so
    /// the padding may cover more than the last packet, where FFmpeg's skip on that packet says less. nil where
    /// the clock does not count whole samples or the figures do not fit the packets.
    public static func timeline(_ t: TrackTimeline, delay: Int64, padding: Int64, rate: Int) -> TrackTimeline? {
        guard rate > 0, let span = t.mediaSpan, span.start >= 0, delay >= 0, padding >= 0 else { return nil }
        let perSample = Rational(1, Int64(rate)) / t.timeBase
        guard perSample.denominator == 1 else { return nil }
        let tick = perSample.numerator
        let samples = (span.end - span.start) / tick
        let content = samples - delay - padding
        guard content > 0 else { return nil }
        var out = t
        out.edits = [
            Edit(mediaTime: span.start + (delay + decoderDelay) * tick, duration: Rational(content, Int64(rate)))
        ]
        out.skipStart = 0
        out.skipEnd = 0
        out.primingMethod = "LAME header"
        return out
    }

    /// The timeline with its skips as one edit; unchanged where FFmpeg found no delay or the packets start
    /// before 0.
    public static func timeline(_ t: TrackTimeline) -> TrackTimeline {
        guard t.skipStart > 0, let span = t.mediaSpan, span.start >= 0 else { return t }
        var out = t
        let start = span.start + t.skipStart
        let end = Swift.max(span.end - t.skipEnd, start)
        out.edits = [Edit(mediaTime: start, duration: Rational(end - start) * t.timeBase)]
        out.skipStart = 0
        out.skipEnd = 0
        out.primingMethod = "LAME header"
        return out
    }
}
