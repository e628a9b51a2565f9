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

    /// Fixed-frame audio (AAC, MP3, AC-3) on a clock coarser than its samples (Matroska's milliseconds): each
    /// frame's stamp is rounded, and a stream joined or encoded again (`ffmpeg -stream_loop`) skips a frame's stamp
    /// where no sample is missing, which the decoder plays back to back all the same. The frame is the codec's
    /// length the stamps step by (their median step, within a tick); a packet stamped up to two frames and a tick
    /// after the one before it follows it end to end; one further on starts anew at its stamp, as far after the
    /// samples before it as its stamp is after the last one's end (a real hole). nil where no frame fits the steps
    /// or the clock is not coarser than the samples.
    public static func fixedFrames(
        _ list: [SampleTiming], codec: String, rate: Int64, timeBase: Rational, discardEnd: Int64 = 0
    ) -> TrackTimeline? {
        let toSamples = timeBase * rate
        guard list.count > 2, rate > 0, toSamples > .one else { return nil }
        var steps = zip(list.dropFirst(), list).map { $0.pts - $1.pts }
        steps.sort()
        let median = Rational(steps[steps.count / 2]) * toSamples
        let fits = AudioFrames.candidates(codec: codec).filter { (median - Rational($0)).magnitude <= toSamples }
        guard let frame = fits.min(by: { (median - Rational($0)).magnitude < (median - Rational($1)).magnitude })
        else { return nil }
        let stamps = list.map { (Rational($0.pts) * toSamples).rounded }
        var starts = [stamps[0]]
        for i in 1..<stamps.count {
            let step = stamps[i] - stamps[i - 1]
            starts.append(starts[i - 1] + (step <= 2 * frame + toSamples.ceiling ? frame : step))
        }
        let samples = zip(list, starts).map { timing, start in
            SampleTiming(dts: start, pts: start, duration: frame, isSync: true, isDiscarded: timing.isDiscarded)
        }
        var out = TrackTimeline(timeBase: Rational(1, rate), samples: samples, skipEnd: discardEnd)
        out.relaidStamps = relaid(zip(stamps, starts).map { Rational($0 - $1) }, rate: rate)
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
