/// An MP3's LAME/Xing header says its encoder delay and padding; FFmpeg turns them into skip samples on the
/// packets that start at 0 (`skipStart`, `skipEnd` of the scanned timeline). The file plays from its first real
/// sample, at 0: read as the edit it is, so the priming counts as signalled and a cut can keep it hidden.
public enum LAMEGapless {
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
