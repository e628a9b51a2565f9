/// A track's timeline from packet headers alone (containers without an index loopprep reads itself), before
/// any container's own reading: what FFmpeg's demuxer said of each packet, in decode order.
package struct ScannedTimeline: Sendable, Equatable {
    public var timeBase: Rational
    public var samples: [SampleTiming]
    /// Packets that came with no presentation time (MPEG-PS writes one only every few packets).
    public var missingPresentation: [Int] = []
    /// Packets came with presentation times only (Matroska video: no decode times).
    public var missingDecode = false
    /// Ticks to drop at the start (the first presented packet's skip samples) and at the end (the last packet's).
    public var skipStart: Int64 = 0
    public var skipEnd: Int64 = 0
    /// Where the stream ends when that is before its last packets do (an Ogg cut whose last granule position is
    /// earlier than its last packet's start): packets from there on are not presented.
    public var endsAt: Int64?

    public init(timeBase: Rational, samples: [SampleTiming]) {
        self.timeBase = timeBase
        self.samples = samples
    }

    /// The timeline every container's importer starts from: presentation times placed where MPEG-PS left them
    /// out, decode times made from the presentation order where the container gives none or repeats one (the
    /// packet reader retimes to the same ones), and missing durations filled. `codecDelay` (samples at
    /// `sampleRate`): Opus's pre-skip where no skip samples said it (Matroska's CodecDelay), skipped at the start.
    public func timeline(codecDelay: Int64? = nil, sampleRate: Int? = nil) -> TrackTimeline {
        var samples = self.samples
        if !missingPresentation.isEmpty, let filled = MissingPresentation.fill(samples, missing: missingPresentation) {
            samples = filled
        }
        // Decode times that do not increase (GStreamer's flvmux writes 0, 0, 0 before B-frames) cannot be
        // written to any container: they are made from the presentation order, as for none at all.
        if missingDecode || zip(samples, samples.dropFirst()).contains(where: { $0.dts >= $1.dts }) {
            let dts = decodeTimes(presentation: samples.map(\.pts))
            for n in samples.indices { samples[n].dts = dts[n] }
        }
        var start = skipStart
        if start == 0, let delay = codecDelay, let rate = sampleRate, rate > 0 {
            start = (Rational(delay, Int64(rate)) / timeBase).rounded
        }
        var filled = MissingDurations.fill(samples)
        var end = skipEnd
        if let limit = endsAt {
            // Not presented from the limit on; the packet holding it is cut there.
            for n in filled.indices where filled[n].pts >= limit { filled[n].isDiscarded = true }
            if let last = filled.lastIndex(where: { !$0.isDiscarded }) {
                end = Swift.max(0, filled[last].pts + filled[last].duration - limit)
            }
        }
        var timeline = TrackTimeline(timeBase: timeBase, samples: filled, skipStart: start, skipEnd: end)
        if let last = samples.indices.filter({ !samples[$0].isDiscarded }).max(by: { samples[$0].pts < samples[$1].pts }
        ) {
            timeline.decidedLastDuration = samples[last].duration <= 0
        }
        // Audio on a clock of whole frames (MP3 in AVI: a tick a frame, 576 samples) cannot be cut to the sample:
        // it is put on the sample clock, whole ticks times the samples in one. (A millisecond clock, Matroska's,
        // holds at most 96 samples a tick and has its own tick allowance.)
        if let rate = sampleRate, rate > 0 {
            let perTick = timeBase * Int64(rate)
            if perTick.denominator == 1, perTick.numerator > 96 { return timeline.scaled(by: perTick.numerator) }
        }
        return timeline
    }
}
