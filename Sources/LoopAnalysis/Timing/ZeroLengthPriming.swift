/// AAC whose priming frame is stored with no length, at the same time as the first content frame (two frames at
/// one time, as some taggers leave .m4a files). The priming decodes to a whole frame all the same: FFmpeg and
/// browsers play it before the content, players that skip zero-length samples do not. The timeline gives it
/// its frame and moves the content after it, so the priming is hidden the one way every player reads (an edit
/// list), not cut out of the content.
package enum ZeroLengthPriming {
    /// `frame`: the codec's frame in the track's ticks (1024 samples for AAC). The timeline unchanged unless its
    /// first sample has no length and shares its time with the second, and no edit list says otherwise.
    public static func timeline(_ t: TrackTimeline, frame: Int64) -> TrackTimeline {
        guard frame > 0, t.edits == nil, t.samples.count > 1, t.samples[0].duration == 0,
            t.samples[1].pts == t.samples[0].pts, t.samples[1].dts == t.samples[0].dts
        else { return t }
        var out = t
        // FFmpeg's reading keeps the stored times (both at 0): a packet reader takes these over them.
        out.laidAnew = true
        out.samples[0].duration = frame
        for i in out.samples.indices.dropFirst() {
            out.samples[i].dts += frame
            out.samples[i].pts += frame
        }
        return out
    }
}
