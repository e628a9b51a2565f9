/// `audio-longer-than-video`, `video-longer-than-audio`: the player loops at the longer track's end, so the
/// shorter one leaves a hole (Apple's advice: make track durations match). Error above half a video frame
/// (the overhang is visible), warning above half an audio sample of audio past the picture (the fix can still make
/// it exact) or a whole sample of picture past the sound (less is no difference: no frame is dropped for a fraction
/// of a sample, and the sound cannot be longer by one).
package struct TrackLengthMismatch: Rule {
    public let ids: [RuleID] = [.audioLongerThanVideo, .videoLongerThanAudio]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        guard let video = clip.mainVideo else { return [] }
        return clip.audioTracks.compactMap { audio in
            finding(video: video, audio: audio, resolution: clip.timestampResolution)
        }
    }

    func finding(video: TrackFacts, audio: TrackFacts, resolution: Rational) -> Finding? {
        let overhang = audio.endSeconds - video.endSeconds
        let size = overhang.magnitude
        guard let rate = audio.sampleRate, rate > 0 else { return nil }
        // A container without edit lists (Matroska: 1 ms ticks) cannot say finer than one tick.
        let audioLonger = !overhang.isNegative
        let sample = Rational(1, Int64(rate))
        let tolerance = Rational.max(audioLonger ? sample * Rational(1, 2) : .zero, resolution)
        guard size > tolerance, audioLonger || size >= sample else { return nil }
        let halfFrame = (video.frameSeconds ?? .zero) * Rational(1, 2)
        let severity: Severity = size > halfFrame ? .error : .warning
        let (longer, shorter) = audioLonger ? (audio, video) : (video, audio)
        var parts = [Figures.ms(size), Figures.samples(size, rate: rate)]
        var figures = ["ms": Figures.msValue(size), "samples": (size * Int64(rate)).doubleValue]
        if let fps = video.frameRate {
            parts.append(Figures.frames(size, frameRate: fps))
            figures["frames"] = (size * fps).doubleValue
        }
        return Finding(
            rule: audioLonger ? ids[0] : ids[1], severity: severity, track: longer.index,
            message:
                """
                \(Figures.trackName(longer)) ends \(parts.joined(separator: " = ")) after \
                \(Figures.trackName(shorter))
                """,
            hint: audioLonger
                ? "trim every track to the shortest: loopprep fix"
                : "trim every track to the shortest: loopprep fix; where the picture is the loop (a designed loop), "
                    + "loopprep fix --keep video keeps every frame and pads the sound with silence to its end",
            figures: figures)
    }
}
