extension TrackFacts {
    /// Interprets a track's container timeline: pure, so every case is testable on values built in code.
    public init?(basics b: TrackBasics, timeline t: TrackTimeline) {
        guard let range = t.presentedRange() else { return nil }
        index = b.index
        trackID = b.trackID
        kind = b.kind
        codec = b.codec
        profile = b.profile
        codecTag = b.codecTag
        reorderDepth = b.reorderDepth
        beyondEntry = b.beyondEntry
        noEncoder = b.noEncoder
        language = b.language
        timeBase = t.timeBase
        startSeconds = range.start
        durationSeconds = range.duration
        start = TimeFigure(seconds: range.start, timeBase: t.timeBase)
        end = TimeFigure(seconds: range.end, timeBase: t.timeBase)
        duration = TimeFigure(seconds: range.duration, timeBase: t.timeBase)
        packetCount = t.samples.count
        edits = t.edits
        width = b.width
        height = b.height
        rotation = b.rotation
        sampleRate = b.sampleRate
        channels = b.channels

        let nominal = t.nominalDuration
        switch b.kind {
        case .video:
            frameRate = Self.frameRate(
                nominal: nominal, timeBase: t.timeBase,
                declared: b.declaredFrameRate,
                grid: Self.gridRate(t.samples.filter { !$0.isDiscarded }.map(\.pts).sorted(), timeBase: t.timeBase))
            frameCount = range.presentedSampleCount
            firstFrameIsKeyframe = range.firstSample.map { t.samples[$0].isSync }
            let keyPts = t.samples.filter { $0.isSync && !$0.isDiscarded }.map(\.pts).sorted()
            keyframeCount = keyPts.count
            let gaps =
                zip(keyPts, keyPts.dropFirst()).map { $1 - $0 } + [Int64(range.mediaEnd.floor) - (keyPts.last ?? 0)]
            maxKeyframeInterval = gaps.max().map {
                TimeFigure(seconds: Rational($0) * t.timeBase, timeBase: t.timeBase)
            }
            nominalFrameDuration = nominal
            variableFrameRate = Self.frameSteps(t, range: range)
            relaidDecodeTimes = t.relaidDecodeTimes > 0 ? t.relaidDecodeTimes : nil
            if t.decidedLastDuration, let last = t.samples.filter({ !$0.isDiscarded }).max(by: { $0.pts < $1.pts }) {
                decidedLastFrame = Rational(last.duration) * t.timeBase
            }
            // The last frame in presentation order sets where the track ends; an odd length moves the end.
            if let last = t.samples.filter({ !$0.isDiscarded }).max(by: { $0.pts < $1.pts }), let nominal,
                last.duration != nominal
            {
                lastFrameDuration = last.duration
            }
        case .audio:
            if let rate = b.sampleRate, rate > 0 { sampleCount = range.duration * Int64(rate) }
            relaidStamps = t.relaidStamps > 0 ? t.relaidStamps : nil
            priming = Self.priming(codec: b.codec, range: range, timeline: t, basics: b)
            if let frame = AudioFrames.frameTicks(codec: b.codec, sampleRate: b.sampleRate, timeline: t),
                AudioFrames.isJitter(t, frame: frame)
            {
                let odd = AudioFrames.irregular(t, frame: frame)
                if let worst = odd.map({ t.samples[$0].duration - frame }).max(by: { $0.magnitude < $1.magnitude }) {
                    irregularDurations = IrregularDurations(
                        count: odd.count, frameTicks: frame, largestDeviation: worst)
                }
            }
        default:
            break
        }
        let step = b.kind == .video ? nominal : nil
        // Where a sample is not a whole number of ticks (millisecond time bases; 44.1 kHz on MPEG-TS's 90 kHz
        // clock, where a 1024-sample frame is 2089.8 ticks), the muxer's rounding moves packets by up to a sample:
        // that much slack (at least a tick). None where ticks are whole samples.
        let ticksPerSample = b.sampleRate.map { Rational(1, Int64(max($0, 1))) / t.timeBase }
        let tolerance: Int64 =
            b.kind == .audio ? ticksPerSample.map { $0.denominator != 1 ? Swift.max(1, -(-$0).floor) : 0 } ?? 0 : 0
        var breaks =
            (b.kind == .video || b.kind == .audio)
            ? t.timingBreaks(frameStep: step, tolerance: tolerance, within: (range.mediaStart, range.mediaEnd)) : []
        // A fixed-frame codec's stored duration that is a frame off or more is a hole (or an overlap) in the
        // audio, not jitter: the decoder plays one frame there.
        if b.kind == .audio, irregularDurations == nil,
            let frame = AudioFrames.frameTicks(codec: b.codec, sampleRate: b.sampleRate, timeline: t)
        {
            for i in AudioFrames.irregular(t, frame: frame) where 2 * (t.samples[i].duration - frame).magnitude >= frame
            {
                let s = t.samples[i]
                guard Rational(s.pts + frame) < range.mediaEnd, Rational(s.pts + s.duration) > range.mediaStart else {
                    continue
                }
                breaks.append(
                    TimingBreak(at: s.pts + s.duration, expectedAt: s.pts + frame, length: s.duration - frame))
            }
        }
        timingBreaks = Array(breaks.prefix(Self.breakLimit))
        timingBreakCount = breaks.count
    }

    /// The steps between the presented frames, where they vary (FrameSteps.vary: a clock's rounding is one rate).
    static func frameSteps(_ t: TrackTimeline, range: PresentedRange) -> FrameSteps? {
        let shown = t.samples.filter {
            !$0.isDiscarded && Rational($0.pts + $0.duration) > range.mediaStart && Rational($0.pts) < range.mediaEnd
        }.map(\.pts).sorted()
        let steps = zip(shown, shown.dropFirst()).map { $1 - $0 }
        guard let shortest = steps.min(), let longest = steps.max(),
            FrameSteps.vary(shortest: shortest, longest: longest)
        else { return nil }
        let figure = { (ticks: Int64) in TimeFigure(seconds: Rational(ticks) * t.timeBase, timeBase: t.timeBase) }
        return FrameSteps(shortest: figure(shortest), longest: figure(longest))
    }

    /// The exact nominal rate: from the commonest frame duration when the time base resolves it, otherwise the
    /// stream's declared rate (a millisecond time base cannot express 30000/1001 frame by frame).
    package static func frameRate(nominal: Int64?, timeBase: Rational, declared: Rational?, grid: Rational? = nil)
        -> Rational?
    {
        if let nominal, nominal > 0 {
            let measured = (Rational(nominal) * timeBase).reciprocal
            // A coarse clock's rounded steps (33 ms) are not the rate: the standard rate every timestamp rounds
            // from is, where the declared one is not that or absent (VLC's Matroska: 33 ms blocks, 1000/33). A
            // step that is a standard rate's own (20 ticks of 1/600 s) says the rate itself.
            let rounded =
                !standardRates.contains(measured)
                && grid.map { (($0.reciprocal / timeBase) - Rational(nominal)).magnitude < .one } == true
            guard let declared, declared.numerator > 0 else { return rounded ? grid : measured }
            // The declared rate when the commonest step matches it to within a tick or 2% (coarse time bases
            // jitter: FLV's milliseconds make 30 fps steps of 33 and 34 ms; a held frame does not count).
            let declaredTicks = declared.reciprocal / timeBase
            let slack = Rational.max(.one, Rational(nominal, 50))
            // A declared rate its steps deny (a track whose every frame is said to last 1 ms, 1000 fps) says
            // nothing: the rate is the steps', as without one.
            guard (declaredTicks - Rational(nominal)).magnitude < slack else { return rounded ? grid : measured }
            return rounded && declared != grid && declaredTicks.denominator == 1 ? grid : declared
        }
        return declared.flatMap { $0.numerator > 0 ? $0 : nil }
    }

    /// The frame rates cameras, encoders and players use, slowest first (a short clip that fits two takes the
    /// NTSC one).
    static let standardRates: [Rational] = [
        Rational(24000, 1001), Rational(24), Rational(25), Rational(30000, 1001), Rational(30), Rational(48),
        Rational(50), Rational(60000, 1001), Rational(60), Rational(120),
    ]

    /// The standard frame rate whose frame grid every presented timestamp of a coarse clock (milliseconds:
    /// Matroska, FLV) rounds from: each within a tick of a whole number of frames after the first, three or more
    /// frames, each step at least one frame. nil where the clock is fine enough to say the rate itself or ticks
    /// once a frame or so (Theora's 1/30), or where no standard rate fits (a variable rate, a dropped frame).
    package static func gridRate(_ pts: [Int64], timeBase: Rational) -> Rational? {
        guard pts.count >= 3, timeBase >= Rational(1, 1000), timeBase * 120 < .one, let first = pts.first else {
            return nil
        }
        for rate in standardRates {
            let frame = rate.reciprocal / timeBase
            // Ticks a whole frame: the clock says this rate itself.
            guard frame.denominator != 1 else { continue }
            var last: Int64 = -1
            let fits = pts.allSatisfy { p in
                let k = (Rational(p - first) / frame).rounded
                defer { last = k }
                return k > last && (Rational(p - first) - Rational(k) * frame).magnitude <= .one
            }
            if fits { return rate }
        }
        return nil
    }

    /// AAC always carries encoder delay (1024 samples from FFmpeg, 2112 from Apple's encoders); it is signalled
    /// when an edit list or skip-samples hides it. Opus carries its own pre-skip in the codec header.
    static func priming(codec: String, range: PresentedRange, timeline t: TrackTimeline, basics b: TrackBasics)
        -> PrimingFacts?
    {
        switch codec {
        case "aac":
            if let removed = b.primingRemoved, range.signalledDelay == 0 {
                return PrimingFacts(samples: removed, signalled: true, method: "removed by fix")
            }
            guard range.signalledDelay > 0, let rate = b.sampleRate else {
                return PrimingFacts(samples: nil, signalled: false, method: "none")
            }
            let samples = (Rational(range.signalledDelay) * t.timeBase * Int64(rate)).rounded
            return PrimingFacts(
                samples: samples, signalled: true,
                method: t.primingMethod ?? (t.edits != nil ? "edit list" : "skip samples"))
        case "opus":
            return PrimingFacts(samples: b.codecDelay, signalled: true, method: "codec header")
        case "mp3":
            // Signalled by a LAME header, or an edit list (MP3 in MP4); otherwise every loop plays the encoder
            // delay (and the decoder's) as silence.
            guard let rate = b.sampleRate else { return nil }
            guard range.signalledDelay > 0 else { return PrimingFacts(samples: nil, signalled: false, method: "none") }
            return PrimingFacts(
                samples: (Rational(range.signalledDelay) * t.timeBase * Int64(rate)).rounded, signalled: true,
                method: t.primingMethod ?? (t.edits != nil ? "edit list" : "skip samples"))
        default:
            return nil
        }
    }
}
