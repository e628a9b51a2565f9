/// MPEG-TS, MPEG-PS and FLV clocks start anywhere (a transport stream's PCR often at 1.4 s): only the offsets
/// between tracks mean anything, and the earliest track's presented start is the file's 0.
package enum ClockOrigin {
    /// The timelines moved so the earliest presented start of `tracks` (audio and video) is at 0, and the
    /// instant removed (nil when it already was 0). Each timeline moves by whole ticks of its own clock.
    public static func rebased(_ timelines: [Int: TrackTimeline], tracks: Set<Int>) -> ([Int: TrackTimeline], Rational?)
    {
        let starts = timelines.filter { tracks.contains($0.key) }.values.compactMap { $0.presentedRange()?.start }
        guard let first = starts.min(), !first.isZero else { return (timelines, nil) }
        return (timelines.mapValues { $0.shifted(by: -(first / $0.timeBase).floor) }, first)
    }
}
