import CFFmpeg
import LoopAnalysis

/// Matroska SimpleBlocks carry no duration: a missing one is the step to the next packet in presentation
/// order, and the last packet's the commonest step.
func fillDurations(_ samples: [SampleTiming]) -> [SampleTiming] {
    guard samples.contains(where: { $0.duration <= 0 }) else { return samples }
    let order = samples.indices.sorted { samples[$0].pts < samples[$1].pts }
    var steps: [Int: Int64] = [:]
    for (a, b) in zip(order, order.dropFirst()) where samples[b].pts > samples[a].pts {
        steps[a] = samples[b].pts - samples[a].pts
    }
    var counts: [Int64: Int] = [:]
    for step in steps.values { counts[step, default: 0] += 1 }
    let common = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key ?? 0
    var out = samples
    for i in out.indices where out[i].duration <= 0 { out[i].duration = steps[i] ?? common }
    return out
}

/// Opus in Matroska, on the sample clock (1/48000). Block times are whole milliseconds (a 2.5 ms frame, a 6.5 ms
/// codec delay cannot be placed), but each packet's length in samples is in its TOC byte, the pre-skip in the
/// OpusHead and the end discard in samples: laid end to end from the first block, every sample has its exact
/// time, and a cut can be exact. A block more than one tick from where the samples before it end starts anew
/// there (a real hole); within one it is the muxer's rounding (FFmpeg rounds 0.5 ms either way).
enum OpusTimeline {
    /// `codecDelay`: the track's CodecDelay in samples (0 without one); `preSkip`: the OpusHead's.
    static func exact(
        _ list: [SampleTiming], lengths: [(samples: Int64?, discard: Int64)], preSkip: Int64, codecDelay delay: Int64,
        _ tb: AVRational
    ) -> TrackTimeline? {
        guard list.count == lengths.count, !list.isEmpty, tb.num > 0, tb.den > 0 else { return nil }
        let toSamples = Rational(Int64(tb.num) * Opus.rate, Int64(tb.den))
        // FFmpeg's Matroska demuxer moves each block back by the CodecDelay, rounded to its clock: undo the
        // rounding, so a block's first sample sits at block time - CodecDelay exactly.
        let rounding = (Rational(delay) / toSamples).rounded * toSamples.numerator / toSamples.denominator - delay
        var out: [SampleTiming] = []
        var next: Int64?
        for (timing, length) in zip(list, lengths) {
            guard let n = length.samples else { return nil }
            let fromBlock = (Rational(timing.pts) * toSamples).rounded + rounding
            let start = next.map { abs($0 - fromBlock) <= toSamples.rounded ? $0 : fromBlock } ?? fromBlock
            out.append(
                SampleTiming(
                    dts: start, pts: start, duration: n, isSync: timing.isSync, isDiscarded: timing.isDiscarded))
            next = start + n
        }
        return TrackTimeline(
            timeBase: Rational(1, Opus.rate), samples: out, skipStart: preSkip, skipEnd: lengths.last?.discard ?? 0)
    }
}

/// Presentation times MPEG-PS leaves out (it writes a PTS only every few packets, often not on I and P frames).
enum MissingPresentation {
    /// Where every packet that has a PTS shows the same reorder delay (no B-frames, audio), the others are
    /// presented that long after their decode time too. Otherwise (B-frames), every frame has a place on the
    /// frame grid from the earliest known PTS; the known ones take theirs, and the others (I and P frames, which
    /// are shown in the order they are decoded) take the free places in decode order. nil when the packets do
    /// not fit one grid that way.
    static func fill(_ samples: [SampleTiming], missing: [Int]) -> [SampleTiming]? {
        let lacking = Set(missing)
        let known = samples.indices.filter { !lacking.contains($0) }
        var out = samples
        let delays = Set(known.map { samples[$0].pts - samples[$0].dts })
        if delays.count == 1, let delay = delays.first {
            for n in missing { out[n].pts = samples[n].dts + delay }
            return out
        }
        var steps: [Int64: Int] = [:]
        for (a, b) in zip(samples, samples.dropFirst()) where b.dts > a.dts { steps[b.dts - a.dts, default: 0] += 1 }
        guard let step = steps.max(by: { $0.value < $1.value })?.key, step > 0,
            let first = known.map({ samples[$0].pts }).min()
        else { return nil }
        var free = Set((0..<Int64(samples.count)).map { first + $0 * step })
        for n in known {
            guard free.remove(samples[n].pts) != nil else { return nil }
        }
        let places = free.sorted()
        guard places.count == missing.count else { return nil }
        for (n, pts) in zip(missing.sorted(), places) {
            guard pts >= samples[n].dts else { return nil }
            out[n].pts = pts
        }
        return out
    }
}

/// Vorbis in Ogg. The first audio packet decodes to nothing (it only starts the overlap), though FFmpeg's
/// demuxer gives it a length (a quarter block, 128 samples); the stream's last granule position counts the
/// samples from the first real one. So FFmpeg's clock runs that length ahead of the content, and its decoder,
/// trimming the end to the granule on that clock, drops as many real samples (libvorbis plays them).
enum VorbisInOgg {
    /// The timeline as libvorbis plays it: the first packet's length is not presented, the end comes that much
    /// later on FFmpeg's clock, and the first real sample is at 0.
    static func timeline(_ t: TrackTimeline) -> TrackTimeline {
        guard t.skipStart == 0, t.samples.count > 1, let phantom = t.samples.first?.duration, phantom > 0 else {
            return t
        }
        var out = t
        out.samples[out.samples.count - 1].duration += phantom
        out.skipStart = phantom
        return out.shifted(by: -phantom)
    }

    /// Whether FFmpeg's end trim must be taken off a stream's packets before decoding (the timeline says it).
    static func decodesPastTheEnd(_ input: InputFile, stream: Int) -> Bool {
        String(cString: input.context.pointee.iformat.pointee.name) == "ogg"
            && input.stream(stream).pointee.codecpar.pointee.codec_id == AV_CODEC_ID_VORBIS
    }
}
