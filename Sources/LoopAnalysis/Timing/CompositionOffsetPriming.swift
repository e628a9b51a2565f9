/// AAC whose priming an older encoder marked with composition offsets instead of an edit list (.m4a files of
/// the 2000s, as in mutagen's test data): the priming frame is presented at the first content frame's time
/// (stts 159 x 1024 then 704; ctts +1024 for the first sample, 0 for the rest: samples 0 and 1 both at 1024).
/// Priming is what is presented at or before the first content frame's time; the decoder plays every frame from
/// the first, back to back. The timeline takes that reading: frames in decode order with no offsets, and the
/// edit the encoder meant (the content from the first content frame on), so the priming is hidden the one way
/// every player reads.
package enum CompositionOffsetPriming {
    /// The timeline unchanged unless it has no media edit, no negative offset, and more than one sample is
    /// presented at or before the time of the last of them in decode order (the first content frame).
    public static func timeline(_ t: TrackTimeline) -> TrackTimeline? {
        guard t.edits?.contains(where: { $0.mediaTime != nil }) != true, t.samples.count > 1,
            t.samples.contains(where: { $0.pts != $0.dts }), t.samples.allSatisfy({ $0.pts >= $0.dts }),
            let earliest = t.samples.map(\.pts).min(),
            let content = t.samples.lastIndex(where: { $0.pts <= earliest }), content > 0,
            // After the first content frame, presentation follows decode order (audio does not reorder).
            zip(t.samples[content...], t.samples[content...].dropFirst()).allSatisfy({ $0.pts < $1.pts }),
            let last = t.samples.last
        else { return nil }
        var out = t
        // FFmpeg's reading keeps the offsets: a packet reader takes these times over them.
        out.laidAnew = true
        for i in out.samples.indices { out.samples[i].pts = out.samples[i].dts }
        let start = t.samples[content].dts
        out.edits = [Edit(mediaTime: start, duration: Rational(last.dts + last.duration - start) * t.timeBase)]
        out.primingMethod = "composition offset"
        return out
    }
}
