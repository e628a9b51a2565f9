/// Vorbis in Ogg. The first audio packet decodes to nothing (it only starts the overlap), though FFmpeg's
/// demuxer gives it a length (a quarter block, 128 samples); the stream's last granule position counts the
/// samples from the first real one. So FFmpeg's clock runs that length ahead of the content, and its decoder,
/// trimming the end to the granule on that clock, drops as many real samples (libvorbis plays them).
package enum VorbisInOgg {
    /// The timeline as libvorbis plays it: the first packet's length is not presented, the end comes that much
    /// later on FFmpeg's clock, and the first real sample is at 0. A first packet already timed before 0 (the
    /// granule positions libvorbis writes) is only skipped.
    public static func timeline(_ t: TrackTimeline) -> TrackTimeline {
        guard t.skipStart == 0, t.samples.count > 1, let first = t.samples.first, first.duration > 0 else {
            return t
        }
        let phantom = first.duration
        var out = t
        // libvorbis's own granule positions (GStreamer's oggmux, oggenc's streams cut by other tools) already put
        // the first packet before 0: FFmpeg's clock is the content's; the warm-up is only not presented, and the
        // content starts with the second packet, where the first page's granule puts it (VLC's muxer: the
        // warm-up at -44, the first sample at 84, a start offset).
        if first.pts < 0 {
            out.skipStart = phantom
            return out
        }
        // The granule's end is on FFmpeg's clock too: the content ends that length later, in the last presented
        // packet (or less of it trimmed, where the stream ends inside one).
        if out.skipEnd >= phantom {
            out.skipEnd -= phantom
        } else if let last = out.samples.lastIndex(where: { !$0.isDiscarded }) {
            out.samples[last].duration += phantom - out.skipEnd
            out.skipEnd = 0
        }
        out.skipStart = phantom
        return out.shifted(by: -phantom)
    }

    /// The packets laid back to back as the decoder plays them: a Vorbis packet lasts previous_blocksize/4 +
    /// current_blocksize/4 (`lengths`, from the block sizes; the first is the warm-up's). FFmpeg's Ogg demuxer
    /// times packets inside a page by lengths of its own that disagree at a long-to-short block transition (a
    /// hole of (2048 - 256) / 4 = 448 samples each time, where the decoder plays none). The second packet's time
    /// (FFmpeg's, reckoned back from the first page's granule) and the last packet's end (the last granule) are
    /// kept; nil when a length is unknown or the last granule does not fall inside the last packet laid so. An
    /// empty packet (length 0: VLC ends a stream with one on its last page) decodes to nothing and ends nothing:
    /// it is laid at the end, lasting nothing.
    public static func laid(_ t: TrackTimeline, lengths: [Int64?]) -> TrackTimeline? {
        guard t.samples.count == lengths.count, t.samples.count > 2 else { return nil }
        let counted = lengths.dropFirst().compactMap { $0 }
        guard counted.count == lengths.count - 1, counted.allSatisfy({ $0 >= 0 }),
            let lastIndex = lengths.indices.dropFirst(2).last(where: { (lengths[$0] ?? 0) > 0 })
        else { return nil }
        let end = t.samples[lastIndex].pts + t.samples[lastIndex].duration
        var out = t
        out.laidAnew = true
        var start = t.samples[1].pts
        for (k, length) in zip(out.samples.indices.dropFirst(), counted) {
            out.samples[k].pts = k > lastIndex ? end : start
            out.samples[k].dts = out.samples[k].pts
            out.samples[k].duration = k > lastIndex ? 0 : length
            start += length
        }
        let final = out.samples[lastIndex]
        guard final.pts < end, end <= final.pts + final.duration else { return nil }
        out.samples[lastIndex].duration = end - final.pts
        return out
    }
}
