/// iTunSMPB (iTunes' gapless metadata: priming, padding and length in samples) says the first audio track's
/// priming where no edit list does: read as the edit it describes.
package enum ITunesGaplessEdit {
    /// The timeline with that edit; nil when the track already has a media edit or the figures do not fit it
    /// (more samples claimed than it holds, or a clock that does not count whole samples): it is then read as
    /// if there were none.
    public static func timeline(_ t: TrackTimeline, priming: Int64, length: Int64, rate: Int?) -> TrackTimeline? {
        guard t.edits?.contains(where: { $0.mediaTime != nil }) != true, let rate, rate > 0, let span = t.mediaSpan
        else { return nil }
        let perSample = Rational(1, Int64(rate)) / t.timeBase
        guard perSample.denominator == 1 else { return nil }
        let start = priming * perSample.numerator
        guard span.start + start + length * perSample.numerator <= span.end else { return nil }
        var out = t
        out.edits = [Edit(mediaTime: span.start + start, duration: Rational(length, Int64(rate)))]
        out.primingMethod = "iTunSMPB"
        return out
    }
}
