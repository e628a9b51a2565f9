/// Opus in MP4 or MOV carries its pre-skip in dOps, and the decoder drops that many samples at the start whatever
/// the edit list says. A muxer that writes no edit list (a browser's MediaRecorder) means the pre-skip hidden, the
/// first sound at 0, as the decoder's first sample after it is the first one captured: read as the edit FFmpeg's
/// muxer writes for it (media time = the pre-skip), so the track presents what the decoder gives, and a rewrite
/// writes that edit for every reader.
package enum OpusPreSkipEdit {
    /// The timeline with that edit; nil when the track has a media edit of its own, no pre-skip, or a clock that
    /// does not count whole samples at 48 kHz.
    public static func timeline(_ t: TrackTimeline, preSkip: Int64) -> TrackTimeline? {
        guard preSkip > 0, t.edits?.contains(where: { $0.mediaTime != nil }) != true, let span = t.mediaSpan else {
            return nil
        }
        let perSample = Rational(1, OpusSampleClock.rate) / t.timeBase
        guard perSample.denominator == 1 else { return nil }
        let start = span.start + preSkip * perSample.numerator
        guard start < span.end else { return nil }
        var out = t
        out.edits = [Edit(mediaTime: start, duration: Rational(span.end - start) * t.timeBase)]
        out.primingMethod = "Opus pre-skip"
        return out
    }
}
