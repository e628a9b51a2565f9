/// Audio whose packets say how many samples each decodes to (FLAC's frame headers, Opus's TOC bytes, PCM's
/// byte counts) plays back to back: a decoder puts each packet's samples right after the last one's, whatever time
/// the container stamps it with. A recording's stamps come from a capture clock (a browser's MediaRecorder stamps
/// each 20-60 ms Opus or 10 ms PCM packet when it was captured: 1-9 ms too far apart or overlapping), a muxer's from
/// its own rounding (mkvmerge's FLAC blocks drift up to 1.5 ms from the samples). Laid as the decoder plays them:
/// the clock starts at the first packet, and each later one follows end to end where its stamp strays by less than
/// the longest packet (or a tick) after where the samples before it end, or lies anywhere before it; one further on
/// starts anew at its stamp (a real hole: a dropped packet, a pause the decoder fills with silence).
package enum SampleClock {
    /// Each packet's start on the sample clock: `stamps` (samples, from the container's times) laid end to end by
    /// `lengths`, where a stamp strays less than `slack` from the end of the samples before it.
    public static func starts(stamps: [Int64], lengths: [Int64], slack: Int64) -> [Int64] {
        var out: [Int64] = []
        out.reserveCapacity(stamps.count)
        var next: Int64?
        for (stamp, length) in zip(stamps, lengths) {
            // A stamp before the end of the samples before it is no overlap a decoder plays (a capture clock's
            // repeated first stamp, a clock slower than the samples): it plays on from there.
            let start = next.map { stamp - $0 < slack ? $0 : stamp } ?? stamp
            out.append(start)
            next = start + length
        }
        return out
    }

    /// How many packets moved (`moves`, in samples) as a capture clock strays, more than a millisecond clock's
    /// rounding does (mkvmerge's FLAC blocks drift 1.5 ms from the samples): over 2 ms.
    public static func relaid(_ moves: [Rational], rate: Int64) -> Int {
        moves.filter { $0.magnitude * 500 > Rational(rate) }.count
    }

    /// A container on a clock coarser than the samples (Matroska's milliseconds): `list` on `timeBase`, each
    /// packet's `lengths` in samples at `rate`, `discardEnd` the samples the last packet's DiscardPadding drops.
    /// The timeline on the sample clock (1/rate); nil when a length is unknown.
    public static func timeline(
        _ list: [SampleTiming], lengths: [Int64?], rate: Int64, timeBase: Rational, discardEnd: Int64 = 0
    ) -> TrackTimeline? {
        guard list.count == lengths.count, !list.isEmpty, rate > 0, timeBase > .zero else { return nil }
        let known = lengths.compactMap { $0 }
        guard known.count == lengths.count else { return nil }
        let toSamples = timeBase * rate
        let slack = Swift.max(toSamples.rounded, 1, known.max() ?? 0)
        let starts = starts(
            stamps: list.map { (Rational($0.pts) * toSamples).rounded }, lengths: known, slack: slack)
        let samples = zip(list, zip(starts, known)).map { timing, laid in
            SampleTiming(dts: laid.0, pts: laid.0, duration: laid.1, isSync: true, isDiscarded: timing.isDiscarded)
        }
        var out = TrackTimeline(timeBase: Rational(1, rate), samples: samples, skipEnd: discardEnd)
        out.relaidStamps = relaid(zip(list, starts).map { Rational($0.pts) * toSamples - Rational($1) }, rate: rate)
        return out
    }

    /// A track already on its sample clock (an MP4's Opus at 48 kHz) whose stored times and durations are a
    /// capture clock's: laid end to end by `lengths` (samples), as the decoder plays it, its edits, skips and clock
    /// kept. The last packet lasts what it decodes to (a recorder cannot know its length when it writes it: a
    /// fragment's last duration is a guess). nil when a length is unknown, the clock is not the sample clock, or
    /// nothing moves.
    public static func laid(_ t: TrackTimeline, lengths: [Int64?], rate: Int64) -> TrackTimeline? {
        guard t.timeBase == Rational(1, rate), lengths.count == t.samples.count, !t.samples.isEmpty else {
            return nil
        }
        let known = lengths.compactMap { $0 }
        guard known.count == lengths.count else { return nil }
        let starts = starts(stamps: t.samples.map(\.dts), lengths: known, slack: Swift.max(known.max() ?? 0, 1))
        var out = t
        for i in out.samples.indices {
            out.samples[i].pts = starts[i] + (t.samples[i].pts - t.samples[i].dts)
            out.samples[i].dts = starts[i]
            out.samples[i].duration = known[i]
        }
        out.relaidStamps = relaid(zip(t.samples, starts).map { Rational($0.dts - $1) }, rate: rate)
        guard out.samples != t.samples else { return nil }
        out.laidAnew = true
        return out
    }
}
