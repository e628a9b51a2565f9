/// Opus in Matroska, on the sample clock (1/48000). Block times are whole milliseconds (a 2.5 ms frame, a 6.5 ms
/// codec delay cannot be placed), but each packet's length in samples is in its TOC byte, the pre-skip in the
/// OpusHead and the end discard in samples: laid end to end from the first block, every sample has its exact
/// time, and a cut can be exact. A block that strays from where the samples before it end by less than the longest
/// packet (and no more than a tick: FFmpeg rounds 0.5 ms either way) is the muxer's rounding or its capture clock's
/// jitter (a live muxer's 20 ms packets at steps of 15, 20, 21 and 24 ms), which the decoder plays end to end; one
/// further starts anew at its block time (a real hole: a lost packet).
package enum OpusSampleClock {
    /// Opus always decodes at 48 kHz (RFC 6716).
    public static let rate: Int64 = 48_000

    /// One packet as the container stores it: its length in samples from the TOC byte (nil: no valid TOC) and
    /// the samples its end discard drops.
    public struct Packet: Sendable, Equatable {
        public var samples: Int64?
        public var discard: Int64
        public init(samples: Int64?, discard: Int64) {
            self.samples = samples
            self.discard = discard
        }
    }

    /// `list`: the packets' timing on the container's clock `timeBase` (FFmpeg's Matroska demuxer has already
    /// moved each block back by the CodecDelay, rounded to that clock). `codecDelay`: the track's CodecDelay in
    /// samples (0 without one); `preSkip`: the OpusHead's. nil when a packet's length is unknown.
    public static func timeline(
        _ list: [SampleTiming], packets: [Packet], preSkip: Int64, codecDelay delay: Int64, timeBase: Rational
    ) -> TrackTimeline? {
        guard list.count == packets.count, !list.isEmpty, timeBase > .zero else { return nil }
        let toSamples = timeBase * rate
        // Undo the demuxer's rounding of the CodecDelay, so a block's first sample sits at block time -
        // CodecDelay exactly.
        let rounding = (Rational(delay) / toSamples).rounded * toSamples.numerator / toSamples.denominator - delay
        let tick = toSamples.rounded
        let longest = packets.compactMap(\.samples).max() ?? 0
        var out: [SampleTiming] = []
        var next: Int64?
        for (timing, packet) in zip(list, packets) {
            guard let n = packet.samples else { return nil }
            let fromBlock = (Rational(timing.pts) * toSamples).rounded + rounding
            let start =
                next.map { abs($0 - fromBlock) <= tick || abs($0 - fromBlock) < longest ? $0 : fromBlock } ?? fromBlock
            out.append(
                SampleTiming(
                    dts: start, pts: start, duration: n, isSync: timing.isSync, isDiscarded: timing.isDiscarded))
            next = start + n
        }
        return TrackTimeline(
            timeBase: Rational(1, rate), samples: out, skipStart: preSkip, skipEnd: packets.last?.discard ?? 0)
    }
}
