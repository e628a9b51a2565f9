/// Codecs whose every coded frame holds the same number of samples: the stored durations must say so, or
/// the audio is placed where the decoder does not put it.
package enum AudioFrames {
    /// Samples per coded frame, by codec (AAC: 1024, or 960 for the 960-sample variant; HE-AAC's 2048
    /// output samples show as durations of 2048 at the output rate).
    public static func candidates(codec: String) -> [Int64] {
        switch codec {
        case "aac": [1024, 2048, 960, 1920]
        case "mp3", "mp2": [1152, 576]
        case "ac3", "eac3": [1536, 256, 512, 768]
        default: []
        }
    }

    /// Samples in every coded frame of a codec with fixed frames, at the stream's rate: MPEG-2 and 2.5 Layer III
    /// (under 32 kHz) code 576 where MPEG-1 codes 1152; nil for a codec without one frame length.
    public static func samplesPerFrame(codec: String, sampleRate: Int?) -> Int64? {
        switch codec {
        case "aac": 1024
        case "mp3": (sampleRate ?? 44100) < 32000 ? 576 : 1152
        case "mp2": 1152
        case "ac3", "eac3": 1536
        default: nil
        }
    }

    /// HE-AAC's core rate: SBR doubles each 1024-sample (960) core frame, so a track whose frames last 2048
    /// (1920) samples at the rate it plays at runs its core at half that rate. nil for any other track.
    public static func sbrCoreRate(codec: String, sampleRate: Int?, timeline t: TrackTimeline) -> Int? {
        guard codec == "aac", let rate = sampleRate, rate > 0, rate % 2 == 0,
            let ticks = frameTicks(codec: codec, sampleRate: rate, timeline: t)
        else { return nil }
        let samples = Rational(ticks) * t.timeBase * Int64(rate)
        return samples == Rational(2048) || samples == Rational(1920) ? rate / 2 : nil
    }

    /// The frame length in ticks when the codec has one and most samples have it; nil otherwise.
    public static func frameTicks(codec: String, sampleRate: Int?, timeline t: TrackTimeline) -> Int64? {
        guard let rate = sampleRate, rate > 0, let nominal = t.nominalDuration else { return nil }
        let perSample = Rational(1, Int64(rate)) / t.timeBase
        let allowed = candidates(codec: codec).map { Rational($0) * perSample }
        return allowed.contains(Rational(nominal)) ? nominal : nil
    }

    /// Samples (decode order, the last excepted: a stream may end short) whose stored duration is not one frame.
    public static func irregular(_ t: TrackTimeline, frame: Int64) -> [Int] {
        t.samples.indices.dropLast().filter { t.samples[$0].duration != frame }
    }

    /// Durations that wobble around the frame length without moving any frame (the first excepted: a
    /// stretched priming packet) half a frame or more from the regular grid: rounding, not missing audio.
    public static func isJitter(_ t: TrackTimeline, frame: Int64) -> Bool {
        let regular = regular(t, frame: frame)
        return zip(t.samples, regular.samples).dropFirst().allSatisfy { 2 * ($0.dts - $1.dts).magnitude < frame }
    }

    /// A fixed-frame audio track on a clock coarser than its samples (FLV's milliseconds) put on its sample clock
    /// as the decoder plays it: `frame` samples a frame, back to back (`regular`), from the first packet's time
    /// rounded to a sample. nil when the clock is not coarser or the rate unknown.
    public static func onSampleClock(_ t: TrackTimeline, rate: Int, frame: Int64) -> TrackTimeline? {
        let sample = Rational(1, Int64(rate))
        guard rate > 0, frame > 0, t.timeBase > sample, !t.samples.isEmpty else { return nil }
        let toSamples = t.timeBase * Int64(rate)
        var out = t
        out.timeBase = sample
        for i in out.samples.indices {
            let offset = t.samples[i].pts - t.samples[i].dts
            out.samples[i].dts = (Rational(t.samples[i].dts) * toSamples).rounded
            out.samples[i].pts = out.samples[i].dts + (Rational(offset) * toSamples).rounded
            out.samples[i].duration = (Rational(t.samples[i].duration) * toSamples).rounded
        }
        out.skipStart = (Rational(t.skipStart) * toSamples).rounded
        out.skipEnd = (Rational(t.skipEnd) * toSamples).rounded
        out.edits = nil
        return regular(out, frame: frame)
    }

    /// The timeline as the decoder plays it: every frame one frame long, back to back, placed so that most of
    /// them keep their stored time (the median offset from the frame grid: a stretched first packet or
    /// millisecond jitter from an FLV remux does not move the rest). The last keeps its stored length when
    /// shorter. Edits are unchanged: they are in media time.
    /// `fromFirst`: placed from the first packet instead, where an index says where decoding starts (MP4/MOV:
    /// an edit's media time counts from the first sample, and FFmpeg and players decode from it, back to back;
    /// the median would move every sample from where they play it: AAC durations rounded from a millisecond
    /// clock drift by hundreds of samples over a clip). A first packet stretched by half a frame or more (a
    /// fragmented file's priming, held until the content's start) is laid just before the second.
    public static func regular(_ t: TrackTimeline, frame: Int64, fromFirst: Bool = false) -> TrackTimeline {
        guard let first = t.samples.first else { return t }
        var offsets = t.samples.enumerated().map { $0.element.dts - Int64($0.offset) * frame }
        offsets.sort()
        let stretched = t.samples.count > 1 && 2 * (first.duration - frame).magnitude >= frame
        let anchor =
            fromFirst
            ? (stretched ? t.samples[1].dts - frame : first.dts) : Swift.max(offsets[offsets.count / 2], 0)
        var out = t
        out.laidAnew = true
        for i in out.samples.indices {
            let dts = anchor + Int64(i) * frame
            out.samples[i].pts = dts + (out.samples[i].pts - out.samples[i].dts)
            out.samples[i].dts = dts
            out.samples[i].duration = i == out.samples.count - 1 ? Swift.min(t.samples[i].duration, frame) : frame
        }
        return out
    }
}
