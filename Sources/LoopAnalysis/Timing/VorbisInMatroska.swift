/// Vorbis in Matroska, on its sample clock. Block times are whole milliseconds, and Vorbis's short and long
/// blocks make the packets' lengths uneven (FFmpeg's Vorbis parser gives each from its block sizes). The first
/// packet decodes to nothing (the spec's warm-up): muxers time it differently (FFmpeg one packet-length before
/// the second, GStreamer at the second's time), so the clock starts at the second packet's block, where the
/// first sample is; the first packet is laid just before it and skipped. Later packets follow end to end, as the
/// decoder plays them: block times that stray from that by less than the longest packet are a muxer's rounding
/// of its own (FFmpeg copying an Ogg's times leaves a hole of (2048 - 256) / 4 = 448 samples at each long-to-short
/// block transition; mkvmerge overlaps a quarter short block), not audio; one further from its block time (and
/// more than a tick) starts anew there (a real hole or a splice).
package enum VorbisInMatroska {
    /// `list`: the packets' timing on the container's clock `timeBase`; `lengths`: each packet's samples (nil:
    /// not parsed); `discardEnd`: samples the last packet's DiscardPadding drops. nil when a length is unknown.
    public static func timeline(
        _ list: [SampleTiming], lengths: [Int64?], rate: Int64, timeBase: Rational, discardEnd: Int64 = 0
    ) -> TrackTimeline? {
        guard list.count == lengths.count, list.count > 1, rate > 0, timeBase > .zero else { return nil }
        let toSamples = timeBase * rate
        guard let warmUp = lengths[0] else { return nil }
        let slack = Swift.max(toSamples.rounded, 1, lengths.compactMap { $0 }.max() ?? 0)
        var out: [SampleTiming] = []
        var next: Int64?
        for (timing, length) in zip(list, lengths).dropFirst() {
            guard let n = length else { return nil }
            let fromBlock = (Rational(timing.pts) * toSamples).rounded
            let start = next.map { abs($0 - fromBlock) < slack ? $0 : fromBlock } ?? fromBlock
            out.append(
                SampleTiming(
                    dts: start, pts: start, duration: n, isSync: timing.isSync, isDiscarded: timing.isDiscarded))
            next = start + n
        }
        let first = out[0].pts - warmUp
        out.insert(
            SampleTiming(
                dts: first, pts: first, duration: warmUp, isSync: list[0].isSync, isDiscarded: list[0].isDiscarded),
            at: 0)
        return TrackTimeline(timeBase: Rational(1, rate), samples: out, skipStart: warmUp, skipEnd: discardEnd)
    }
}
