/// Vorbis in Ogg. The first audio packet decodes to nothing (it only starts the overlap), though FFmpeg's
/// demuxer gives it a length (a quarter block, 128 samples); the stream's last granule position counts the
/// samples from the first real one. So FFmpeg's clock runs that length ahead of the content, and its decoder,
/// trimming the end to the granule on that clock, drops as many real samples (libvorbis plays them).
public enum VorbisInOgg {
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
        // the first packet before 0: FFmpeg's clock is the content's; the warm-up is only not presented.
        if first.pts < 0 {
            out.skipStart = Swift.min(phantom, -first.pts)
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
}
