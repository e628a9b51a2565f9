import LoopRangeValues

/// The exact range a player loops a clip over when the file cannot be rewritten: fix's plan, read as
/// a span of the clip as it is (its start and length on the presented timeline), with the findings that span
/// alone cures and those only a rewrite removes.
package enum LoopRanges {
    /// The range of a clip from its facts and timelines; nil with the reason where no range makes it loop.
    public static func range(_ facts: ClipFacts, timelines: [Int: TrackTimeline], findings: [Finding]) -> (
        range: LoopRange?, reason: String?
    ) {
        do {
            let plan = try FixPlanner.plan(facts, timelines: timelines)
            return (range(plan, facts: facts, findings: findings), nil)
        } catch {
            return (nil, "\(error)")
        }
    }

    /// The range a plan keeps.
    public static func range(_ plan: FixPlan, facts: ClipFacts, findings: [Finding]) -> LoopRange {
        let (start, duration) = (plan.start, plan.duration)
        let cured = Set(
            findings.compactMap { f in f.ruleID.flatMap { cures($0, plan: plan, facts: facts) ? $0 : nil } })
        let faults = findings.filter { $0.severity != .info }.compactMap(\.ruleID)
        var range = LoopRange(
            start: start.description, duration: duration.description,
            cmTime: cmTime(start, duration, video: facts.mainVideo),
            microseconds: LoopRange.Microseconds(
                start: (start * 1_000_000).ceiling, end: ((start + duration) * 1_000_000).floor),
            cures: cured.map(\.rawValue).sorted(),
            remains: Set(faults).subtracting(cured).map(\.rawValue).sorted())
        range.note = cutNote(plan)
        return range
    }

    /// What the range leaves out that a viewer could notice, in words, with how to keep it: more than one frame of
    /// the picture past the sound's end (a designed loop: the picture is the loop), or sound past the picture's last
    /// frame long enough to be part of the loop (a sting: more than a frame and more than `contentTail`). nil where it
    /// cuts less: an encoder's padding, or the room tone a phone or camera records past its last frame (50 ms on an
    /// iPhone), which is the stutter the range exists to cut, not content.
    static func cutNote(_ plan: FixPlan) -> String? {
        guard let video = plan.tracks.first(where: { $0.kind == .video }), let rate = video.frameRate, rate > .zero
        else { return nil }
        let frames = (video.trimmedTail * rate).rounded
        if frames >= 2 {
            let all = frames + (video.duration * rate).rounded
            return """
                this range leaves out the picture's last \(frames) of \(all) frames \
                (\(Figures.seconds(video.trimmedTail))), which the sound does not reach: where the picture is \
                the loop, loop the whole item instead, or rewrite it with \(keepsThePicture)
                """
        }
        let sound = plan.tracks.filter { $0.kind == .audio }.map(\.trimmedTail).max() ?? .zero
        guard sound * rate > .one, sound > contentTail else { return nil }
        return """
            this range leaves out the sound's last \(Figures.seconds(sound)), after the picture's last frame: \
            where that is part of the loop (a sting), loop the whole item instead, which holds the last frame for \
            those \(Figures.seconds(sound)); \(softensTheWrap)
            """
    }

    /// Sound past the picture shorter than this is a recording's room tone or an encoder's padding, not a tail a
    /// viewer would miss: a quarter of a second.
    static let contentTail = Rational(1, 4)

    /// The rewrites each cut calls for: a picture longer than its sound keeps every frame with the sound padded; a
    /// sound longer than its picture is cut to it (as the range is), its wrap faded, never padded: --keep video would
    /// keep the sound's jump at the wrap.
    static let keepsThePicture =
        "loopprep fix --keep video (every frame kept, the audio padded with silence to the video's end)"
    static let softensTheWrap =
        "loopprep fix --seam-fade 10ms makes the same cut with the sound faded out and in at the wrap"

    /// Whether passing the range to the player removes what `rule` found: a track's tail past the others, a late
    /// start (where no track had to be moved), priming the range starts after, a movie header's length (the
    /// range sets the end), a first frame that is not a keyframe (the range starts on one, unless fix would
    /// re-encode the head).
    static func cures(_ rule: RuleID, plan: FixPlan, facts: ClipFacts) -> Bool {
        switch rule {
        case .audioLongerThanVideo, .videoLongerThanAudio, .movieDurationMismatch: true
        case .startOffset: plan.tracks.allSatisfy { $0.shift == nil }
        case .firstFrameNotKeyframe: plan.tracks.allSatisfy { $0.head == nil }
        case .primingNotSignalled:
            // The range starts after each audio track's priming (not where fix moves the content over it).
            plan.tracks.filter { $0.kind == .audio }.allSatisfy { cut in
                guard let track = facts.tracks.first(where: { $0.index == cut.index }), let rate = track.sampleRate,
                    let priming = track.priming, !priming.signalled
                else { return true }
                let samples = priming.samples ?? FixOptions.usualPriming(codec: track.codec)
                return cut.trimmedHead * Int64(rate) >= Rational(samples)
            }
        default: false
        }
    }

    /// CMTime values for the start and the length on one timescale that says both exactly: the video track's
    /// clock where it does, else the least one; nil where none fits 32 bits.
    static func cmTime(_ start: Rational, _ duration: Rational, video: TrackFacts?) -> LoopRange.CMTimes? {
        func exact(_ scale: Int64) -> Bool {
            (start * scale).denominator == 1 && (duration * scale).denominator == 1
        }
        var scale: Int64?
        if let tb = video?.timeBase, tb.numerator == 1, exact(tb.denominator) { scale = tb.denominator }
        if scale == nil {
            let least =
                start.denominator / MovieTimescale.gcd(start.denominator, duration.denominator)
                * duration.denominator
            scale = exact(least) ? least : nil
        }
        guard let scale, scale <= Int64(Int32.max) else { return nil }
        return LoopRange.CMTimes(
            start: .init(value: (start * scale).numerator, timescale: Int32(scale)),
            duration: .init(value: (duration * scale).numerator, timescale: Int32(scale)))
    }

    /// The seam rules: a range's own seam is measured where it wraps, not taken from the clip's.
    static let seamRules: Set<RuleID> = [.seamVisualJump, .seamAudioClick]

    /// Whether the range is the clip's whole presented span for each of `tracks` (then its seam is the clip's).
    public static func isWhole(_ range: LoopRange, tracks: [TrackFacts]) -> Bool {
        guard let s = range.exactStart, let d = range.exactDuration else { return true }
        let start = Rational(s.numerator, s.denominator)
        let end = start + Rational(d.numerator, d.denominator)
        return tracks.allSatisfy { $0.startSeconds >= start && $0.endSeconds <= end }
    }

    /// The range with its own seam: `clip` are the clip's findings, `span` those of the clip's
    /// facts with the seam measured where the range wraps. A seam finding the range makes remains; one only the
    /// clip's whole wrap has is cured; where the range adds one the whole clip loops without, the note says so.
    public static func measured(_ range: LoopRange, clip: [Finding], span: [Finding]) -> LoopRange {
        func seams(_ findings: [Finding]) -> Set<String> {
            Set(findings.filter { $0.severity != .info && ($0.ruleID.map(seamRules.contains) ?? false) }.map(\.rule))
        }
        let (whole, own) = (seams(clip), seams(span))
        var out = range
        out.remains = Set(range.remains).subtracting(whole).union(own).sorted()
        out.cures = Set(range.cures).union(whole.subtracting(own)).sorted()
        let added = own.subtracting(whole).sorted()
        if !added.isEmpty {
            // The rewrite that keeps what the range cuts: the picture where it is the longer, else the sound's fade.
            let rewrite =
                range.cures.contains(RuleID.videoLongerThanAudio.rawValue)
                ? "rewrite it with \(keepsThePicture)" : softensTheWrap
            let seam = """
                looping this range adds \(added.joined(separator: " and ")) at its wrap, which the whole clip does not \
                have
                """
            out.note = range.note.map { "\(seam); \($0)" } ?? "\(seam): loop the whole item instead; or \(rewrite)"
        }
        return out
    }
}
