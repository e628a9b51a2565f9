import LoopAnalysis
import LoopIndex

/// Opus in Matroska/WebM has no edit list but needs none: the OpusHead's pre-skip (and the track's CodecDelay,
/// which FFmpeg writes from the same figure) drops any number of decoded samples at the start, and a
/// DiscardPadding any number at the end. So a cut keeps the decoder's pre-roll packets and starts and ends on
/// the exact sample, losslessly.
struct OpusTrim {
    /// Decoded samples the player drops at the start: the new pre-skip.
    var preSkip: Int64
    /// The first kept packet's time (track ticks): it is written at 0, as CodecDelay asks.
    var base: Int64
    /// Samples the cut presents.
    var count: Int64
    /// Samples the kept packets decode to, so far.
    var decoded: Int64 = 0

    /// The timeline is on the sample clock (the probe's exact Opus timeline): the first kept packet's first
    /// decoded sample is at its pts, the cut's first presented one at `cut.mediaStart`.
    init(cut: TrackCut, timeline: TrackTimeline) throws {
        guard timeline.timeBase == Rational(1, Opus.rate), cut.first < timeline.samples.count else {
            throw MediaError(
                "write packet",
                reason: "the Opus track's packet lengths could not be read, so it cannot be cut to the sample")
        }
        base = timeline.samples[cut.first].pts
        preSkip = cut.mediaStart - base
        count = (cut.duration * Opus.rate).rounded
        guard (0...0xffff).contains(preSkip) else {
            throw MediaError(
                "write packet",
                reason:
                    """
                    the Opus cut would need a pre-skip of \(preSkip) samples, more than the 65535 an Opus header \
                    can say
                    """
            )
        }
    }

    /// The kept packets decode to every presented sample: the packet that did so is the last, its surplus
    /// discarded at the end.
    var isComplete: Bool { decoded - preSkip >= count }
}
