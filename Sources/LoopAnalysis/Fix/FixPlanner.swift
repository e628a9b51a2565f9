/// Plans a lossless repair: every audio and video track cut to the same presented range, the intersection of
/// theirs; starting on a keyframe; ending on a video frame boundary with audio within half a sample of it.
/// Works on the container's own timelines (ticks in each track's time base); no floating point.
package enum FixPlanner {
    /// Samples of decoder pre-roll to keep before a cut: AAC's MDCT overlaps one frame; Opus asks for 80 ms.
    static func preRoll(codec: String, sampleRate: Int) -> Int64 {
        switch codec {
        case "aac": 1024
        case "opus": Int64(sampleRate) * 80 / 1000
        case "mp3": 1152
        default: 0
        }
    }

    /// A track's presentation: t = start + (m - mediaStart) * timeBase, for media ticks m in [mediaStart, mediaEnd).
    struct Mapping {
        var track: TrackFacts
        var timeline: TrackTimeline
        var start: Rational
        var end: Rational
        var mediaStart: Rational
        var tb: Rational { timeline.timeBase }
        func time(_ ticks: Rational) -> Rational { start + (ticks - mediaStart) * tb }
        func ticks(_ time: Rational) -> Rational { mediaStart + (time - start) / tb }
    }

    /// An HE-AAC cut whose track is clocked at the rate it plays at, starting inside its first packet (an edit
    /// hides part of it, as priming): FFmpeg's reading would hide twice that, so it is written on its core clock.
    public static func outputClocked(_ cut: TrackCut, timelines: [Int: TrackTimeline]) -> Bool {
        guard let core = cut.coreRate, cut.timeBase != Rational(1, Int64(core)),
            let timeline = timelines[cut.index], cut.first >= 0, cut.first < timeline.samples.count
        else { return false }
        return cut.mediaStart > timeline.samples[cut.first].pts
    }

    /// Where a plan is for a file to write: its name and what FFmpeg's muxers accept (the caller's capability),
    /// so the container it is written in is decided with the plan (FixConversion).
    public struct Output {
        public var destination: String
        public var accepts: (_ format: Muxer, _ codec: String) -> Bool

        public init(destination: String, accepts: @escaping (_ format: Muxer, _ codec: String) -> Bool) {
            self.destination = destination
            self.accepts = accepts
        }
    }

    /// The final plan: cuts, repeats, the container written (with `output`) and the writer.
    public static func plan(
        _ facts: ClipFacts, timelines: [Int: TrackTimeline], options: FixOptions = .init(), output: Output? = nil
    ) throws -> FixPlan {
        // An output named as another container (`loop phone.mkv -o loop.mp4`) is planned for it, as --to is: a
        // Matroska source's cuts in an MP4 are an MP4's (edit lists), not Matroska's.
        var options = options
        if let output, options.convertTo == nil, facts.isMatroska,
            let named = try? FixConversion.named(output.destination, facts: facts)
        {
            options.convertTo = named
        }
        var plan = try cuts(facts, timelines: timelines, options: options)
        if let output {
            plan.outputPath = output.destination
            do {
                if let converted = try FixConversion.convert(
                    &plan, facts: facts, destination: output.destination, to: options.convertTo,
                    accepts: output.accepts)
                {
                    plan.outputPath = converted.path
                }
            } catch let error as PlanError { throw ConversionRefusal(reason: error.reason, plan: plan) }
        }
        plan.writer = FixWriter.choose(plan, facts: facts, timelines: timelines)
        // What the file carries beside its tracks, in the container its muxer writes (an FLV's or AVI's MP4; a
        // Matroska file's Matroska, whatever Matroska name it is given); a copy byte for byte keeps all of it.
        let written = plan.convertsTo.map(Container.init(muxer:)) ?? facts.container(convertedTo: options.convertTo)
        if !plan.isNoop, let carried = carriedNote(facts, output: written) { plan.notes.append(carried) }
        return plan
    }

    /// The plan's cuts and repeats, in the input's own container.
    static func cuts(_ facts: ClipFacts, timelines: [Int: TrackTimeline], options: FixOptions) throws -> FixPlan {
        var notes: [String] = []
        var (mappings, droppedAudio) = try Self.mappings(facts, timelines: timelines, options: options, notes: &notes)
        try keepNotes(options, droppedAudio: droppedAudio, mappings: mappings, notes: &notes)
        var shifts = rebase(&mappings, notes: &notes)
        let empty = (facts.emptyTracks ?? []).map(\.index)
        if !empty.isEmpty { notes.append(emptyTracksNote(empty)) }
        // The container written: --to turns Matroska into MP4 or MOV, whose edit lists hide a pre-roll.
        let output = facts.container(convertedTo: options.convertTo)
        let (start, end) = try span(facts, &mappings, shifts: &shifts, output: output, options: options, notes: &notes)
        let duration = end - start
        var (cuts, padsAudio) = try trackCuts(
            facts, mappings, shifts: shifts, span: (start, end), output: output, options: options, notes: &notes)
        if output.isMatroska { try refuseParsedEnd(cuts, mappings) }
        let timescale = movieTimescale(cuts)
        let repeats = try repeatCount(duration: duration, options: options, cuts: cuts, mappings: mappings)
        padsAudio =
            padShortPasses(&cuts, mappings, duration: duration, facts, repeats: repeats, notes: &notes) || padsAudio
        if let fade = options.seamFade, fade * 2 > duration {
            throw PlanError("--seam-fade \(Figures.ms(fade)) is more than half the clip (\(Figures.ms(duration)))")
        }
        let copies =
            facts.isISO && repeats == 1 && options.seamFade == nil && !options.reencodeAudio
            && cuts.allSatisfy { $0.head == nil && $0.tail == nil }
        notes += isoNotes(facts, copies: copies)
        let (others, dropped) = otherTracks(
            facts, timelines: timelines, copies: copies, start: start, duration: duration, output: output, notes: &notes
        )
        let noop =
            isByteCopy(facts, cuts: cuts, mappings: mappings, dropped: dropped + empty + droppedAudio) && !padsAudio
            && changesNothing(facts, cuts: cuts, others: others, timelines: timelines, repeats: repeats, options)
        var plan = FixPlan(
            tracks: cuts, others: others, dropped: dropped + empty + droppedAudio, start: start, duration: duration,
            movieTimescale: timescale,
            notes: notes, isNoop: noop, repeats: repeats, seamFade: options.seamFade, bakeVideo: options.bakeVideo)
        plan.notes += outcomeNotes(
            facts, timelines: timelines, options: options, mappings: mappings, plan: plan, copies: copies)
        plan.reencodeAudio = options.reencodeAudio && !noop
        plan.padsAudio = padsAudio
        plan.keptBreaks = keptBreaks(facts, cuts: cuts, reencodesAudio: plan.reencodesAudio)
        plan.notes += keptBreakNotes(plan.keptBreaks, facts: facts)
        try checkReencoded(&plan, facts, output: output, options: options)
        return plan
    }

    /// Audio the plan encodes again: refused where FFmpeg has no encoder for it or Matroska cannot end it, said
    /// where it becomes another profile.
    static func checkReencoded(_ plan: inout FixPlan, _ facts: ClipFacts, output: Container, options: FixOptions)
        throws
    {
        guard plan.reencodesAudio else { return }
        try refuseUnencodable(facts, cuts: plan.tracks, options: options)
        try refuseInexactReencode(plan.tracks, output: output, options: options)
        plan.notes += encodedAgainNotes(facts, cuts: plan.tracks)
    }

    /// Audio that must be encoded again but that FFmpeg here cannot encode (AMR-NB: Debian's FFmpeg decodes it
    /// only) is refused by the plan, so the dry run says what the write would: which option asked for it.
    static func refuseUnencodable(_ facts: ClipFacts, cuts: [TrackCut], options: FixOptions) throws {
        guard
            let cut = cuts.first(where: { cut in
                cut.kind == .audio && facts.tracks.first { $0.index == cut.index }?.noEncoder == true
            })
        else { return }
        let asked = reencodeAsked(options)
        throw PlanError(
            """
            \(Figures.trackName(cut)) would have to be encoded again (\(asked ?? "padded with silence")), and this \
            FFmpeg has no \(cut.codec) encoder: \(asked.map { "leave out \($0), or " } ?? "")convert the audio to AAC \
            first
            """)
    }

    /// The option that has the audio encoded again (nil: padded with silence to the picture).
    static func reencodeAsked(_ options: FixOptions) -> String? {
        [
            ("--seam-fade", options.seamFade != nil), ("--loops", options.loops != nil),
            ("--unroll", options.unrollTo != nil), ("--keep video", options.keepVideo),
            ("--reencode-audio", options.reencodeAudio),
        ].first { $0.1 }?.0
    }

    /// What audio encoded again becomes where FFmpeg cannot encode its format: HE-AAC (SBR, with or without
    /// parametric stereo) is written as AAC-LC at the rate and channels it plays at, said before writing.
    static func encodedAgainNotes(_ facts: ClipFacts, cuts: [TrackCut]) -> [String] {
        cuts.compactMap { cut in
            guard cut.kind == .audio, cut.codec == "aac",
                let track = facts.tracks.first(where: { $0.index == cut.index })
            else { return nil }
            let profile = track.profile ?? ""
            guard profile.hasPrefix("HE-AAC") || cut.coreRate != nil else { return nil }
            let channels = track.channels ?? 0
            return """
                \(Figures.trackName(cut)) is \(profile.hasPrefix("HE-AAC") ? profile : "HE-AAC"): FFmpeg has no \
                encoder for it, so it is encoded again as AAC-LC at the rate and channels it plays at \
                (\(cut.sampleRate ?? track.sampleRate ?? 0) Hz, \(channels) channel\(channels == 1 ? "" : "s")), \
                at 64 kb/s a channel or more
                """
        }
    }

    static func emptyTracksNote(_ empty: [Int]) -> String {
        """
        leaves out \(empty.count) empty track\(empty.count == 1 ? "" : "s") \
        (\(empty.map(String.init).joined(separator: ", ")))
        """
    }

    /// Whether a plan that copies every packet leaves every track as it is: nothing moved, the other tracks whole,
    /// one loop, no fade, no baked video, no track laid on the output's clock.
    static func changesNothing(
        _ facts: ClipFacts, cuts: [TrackCut], others: [TrackCut], timelines: [Int: TrackTimeline], repeats: Int,
        _ options: FixOptions
    ) -> Bool {
        let iso = facts.isISO
        return cuts.allSatisfy { $0.shift == nil }
            && others.allSatisfy { cut in
                timelines[cut.index].map { cut.first == 0 && cut.last == $0.samples.count - 1 } ?? false
                    && cut.trimmedHead.isZero && cut.trimmedTail.isZero
            }
            && repeats == 1 && options.seamFade == nil && !(options.bakeVideo && iso)
            && !(iso && cuts.contains { outputClocked($0, timelines: timelines) })
    }

    /// Where every kept track starts and ends: presented by all of them (or, with --keep video, where the video
    /// is), inside --range, on the container's tick, the video's ends on its frames (tracks moved onto their packets
    /// where the output needs it, the bounds then taken again).
    static func span(
        _ facts: ClipFacts, _ mappings: inout [Mapping], shifts: inout [Int: Rational], output: Container,
        options: FixOptions, notes: inout [String]
    ) throws -> (start: Rational, end: Rational) {
        // The tracks whose ends bound the cut: all of them, or (--keep video) the video's alone.
        let ending = endingTracks(mappings, options: options)
        guard let latestStart = mappings.map(\.start).max(), let earliestEnd = ending.map(\.end).min() else {
            throw PlanError("no audio or video track to keep")
        }
        var commonStart = onVideoStart(latestStart, mappings)
        var commonEnd = earliestEnd
        // The loop's cut counts from the main video's first frame, where it is presented after the rebase.
        let origin = mappings.first { $0.track.kind == .video }?.start ?? .zero
        let range = options.range.map { (start: origin + $0.start, end: origin + $0.end) }
        if let range {
            commonStart = Rational.max(commonStart, range.start)
            commonEnd = Rational.min(commonEnd, range.end)
        }
        // Matroska places a track only to its tick (milliseconds): a start that differs from a tick by less than
        // half of one is that tick (23.22 ms of assumed AAC priming is the packet at 23 ms).
        let resolution = facts.timestampResolution
        if !resolution.isZero { commonStart = Rational((commonStart / resolution).rounded) * resolution }
        guard commonStart < commonEnd else {
            throw PlanError("the tracks do not overlap: nothing is presented by all of them")
        }
        guard let video = mappings.first(where: { $0.track.kind == .video }) else { return (commonStart, commonEnd) }
        let reencodeHead = options.reencodeHead && video.track.codec == "h264"
        var window = Window(
            start: commonStart, end: commonEnd, resolution: resolution, cap: range?.end,
            endResolution: output.isMatroska ? resolution : .zero)
        var (start, end) = try videoBounds(
            video, tracks: ending, window: window, reencodeHead: reencodeHead, notes: &notes)
        var moved = snapToPackets(&mappings, start: start, container: output, resolution: resolution, notes: &notes)
        if moved.isEmpty, resolution.isZero { moved = ontoVideoTick(&mappings, by: start - commonStart, video: video) }
        if !moved.isEmpty {
            shifts.merge(moved) { $0 + $1 }
            let ends = endingTracks(mappings, options: options).map(\.end).min() ?? commonEnd
            (window.start, window.end) = (start, Rational.min(commonEnd, ends))
            (start, end) = try videoBounds(
                video, tracks: endingTracks(mappings, options: options), window: window, reencodeHead: reencodeHead,
                notes: &notes)
        }
        return (start, end)
    }

    /// A start the video's clock cannot say (under one of its ticks after the others' start: FFmpeg's muxer held
    /// priming-not-signalled.mp4's first frame to 328 ticks of 15360 for 1024 samples, 327.68) moves the other
    /// tracks that much later, onto the video's tick: they start on their own first sample and end with the picture
    /// (cut at the tick instead, the audio lost its first sample and the last frame ended a sample past it). Returns
    /// the seconds each moved track moved earlier (negative: later), as `snapToPackets`.
    static func ontoVideoTick(_ mappings: inout [Mapping], by rounding: Rational, video: Mapping) -> [Int: Rational] {
        guard rounding > .zero, rounding < video.tb else { return [:] }
        var moved: [Int: Rational] = [:]
        for i in mappings.indices where mappings[i].track.index != video.track.index {
            mappings[i].start = mappings[i].start + rounding
            mappings[i].end = mappings[i].end + rounding
            moved[mappings[i].track.index] = -rounding
        }
        return moved
    }

    /// Each audio and video track's cut over the span (audio padded to the picture with --keep video), its end on the
    /// output's tick (an MP4 or MOV says it to the sample).
    static func trackCuts(
        _ facts: ClipFacts, _ mappings: [Mapping], shifts: [Int: Rational], span: (start: Rational, end: Rational),
        output: Container, options: FixOptions, notes: inout [String]
    ) throws -> (cuts: [TrackCut], padsAudio: Bool) {
        let (start, end) = span
        let (duration, resolution) = (end - start, output.isMatroska ? facts.timestampResolution : .zero)
        var cuts: [TrackCut] = []
        var padsAudio = false
        for m in mappings {
            // On a millisecond clock a video's end is known to a tick: audio ending within one tick after it
            // is whole (trimming it would be a guess, and the next fix would trim again).
            let reach = !resolution.isZero && m.end > end && m.end - end <= resolution ? m.end - start : duration
            var cut =
                m.track.kind == .video
                // Matroska has no edit list to hide a frame presented after the end that an earlier one refers to
                // (B-frames): as for --target web, the last GOP is encoded again.
                ? try videoCut(
                    m, start: start, end: end, bake: options.bakeVideo || output.isMatroska, notes: &notes)
                : try audioCut(m, start: start, duration: reach, preRoll: keepsPreRoll(m.track, container: output))
            if m.track.kind == .audio, options.keepVideo, let padded = padded(cut, m, to: duration, notes: &notes) {
                cut = padded
                padsAudio = true
            }
            if m.track.kind == .audio {
                try refuseHole(m.track, cut: cut)
                cut.coreRate = AudioFrames.sbrCoreRate(
                    codec: m.track.codec, sampleRate: m.track.sampleRate, timeline: m.timeline)
            }
            if facts.isISO {
                cut.compositionLead = Swift.max(0, m.timeline.samples.map { $0.dts - $0.pts }.max() ?? 0)
            }
            // A moved track lost nothing at its head: its range is said on its own timeline, and the move apart.
            if let shift = shifts[m.track.index] {
                cut.shift = shift
                cut.trimmedHead = cut.trimmedHead + shift
                cut.trimmedTail = cut.trimmedTail - shift
            }
            if let decided = m.track.decidedLastFrame, cut.trimmedTail.isZero, !cut.reencodesWhole {
                notes.append(
                    """
                    \(Figures.trackName(m.track)): the file gives its last frame no length (a recorder cannot know \
                    it): \(Figures.ms(decided)), its commonest step, written into the output so every player ends \
                    the picture there
                    """)
            }
            cuts.append(cut)
        }
        return (cuts, padsAudio)
    }

    /// The tracks that are neither audio nor video: chapter, timecode and subtitle tracks are cut to the same
    /// range when the MP4 writer copies the whole file (`copies`); subtitles written again by FFmpeg's muxer for
    /// `output` are cut to it too where it takes them (SubRip, ASS, WebVTT in Matroska; WebVTT alone in WebM);
    /// otherwise (re-encoded parts, a conversion) they are left out, each named by what it is (a GoPro's gpmd
    /// telemetry, a timecode, a chapter list), so a dropped one is never silent.
    static func otherTracks(
        _ facts: ClipFacts, timelines: [Int: TrackTimeline], copies: Bool, start: Rational, duration: Rational,
        output: Container, notes: inout [String]
    ) -> (others: [TrackCut], dropped: [Int]) {
        let iso = facts.isISO
        var others: [TrackCut] = []
        var dropped: [Int] = []
        for track in facts.tracks
        where track.kind != .video && track.kind != .audio && !(iso && track.kind == .attachment) {
            if copies, let t = timelines[track.index],
                let cut = otherCut(track, timeline: t, start: start, duration: duration)
            {
                others.append(cut)
            } else if !copies, output.isMatroska, output.takesSubtitles(track.codec), track.kind == .subtitle,
                let t = timelines[track.index],
                let cut = subtitleCut(track, timeline: t, start: start, duration: duration)
            {
                others.append(cut)
            } else {
                dropped.append(track.index)
            }
        }
        notes += otherTracksNotes(facts, others: others, dropped: dropped, copies: copies, output: output)
        return (others, dropped)
    }

    /// What `otherTracks` keeps and drops, in words: each track by its index, codec (or sample entry) and kind.
    static func otherTracksNotes(
        _ facts: ClipFacts, others: [TrackCut], dropped: [Int], copies: Bool, output: Container
    ) -> [String] {
        var notes: [String] = []
        let named = { (indices: [Int]) in
            indices.map { index in
                guard let track = facts.tracks.first(where: { $0.index == index }) else { return String(index) }
                let what = track.codecTag.map { $0.trimmingCharacters(in: .whitespaces) } ?? track.codec
                return "\(index): \(what) \(track.kind.rawValue)"
            }.joined(separator: ", ")
        }
        if !others.isEmpty {
            notes.append(
                """
                keeps \(others.count) timed metadata, chapter, timecode or text track\(others.count == 1 ? "" : "s") \
                (\(named(others.map(\.index)))), cut to the same range as the picture
                """
            )
        }
        if !dropped.isEmpty {
            let them = dropped.count == 1 ? "it" : "them"
            let tracks = dropped.compactMap { i in facts.tracks.first { $0.index == i } }
            var why = copies ? "" : "only a stream copy from the index keeps \(them); "
            // Subtitles written again by a muxer that takes none of their kind (SubRip into an MP4).
            if !copies, tracks.allSatisfy({ $0.kind == .subtitle && !output.takesSubtitles($0.codec) }) {
                let codecs = Array(Set(tracks.map(\.codec))).sorted().joined(separator: ", ")
                why = "FFmpeg's \(output.name.uppercased()) muxer takes no \(codecs) subtitles; "
            }
            notes.append(
                """
                drops \(dropped.count) track\(dropped.count == 1 ? " that is" : "s that are") neither audio nor video \
                (\(named(dropped))): \(why)the written file does not have \(them)
                """
            )
        }
        return notes
    }

    /// A note per track whose timestamp overlaps inside the range are copied as they are.
    static func keptBreakNotes(_ kept: [Int: KeptBreaks], facts: ClipFacts) -> [String] {
        kept.sorted(by: { $0.key < $1.key }).compactMap { index, kept in
            guard let track = facts.tracks.first(where: { $0.index == index }) else { return nil }
            let (them, are) =
                kept.count == 1 ? ("overlap", "is copied as it is") : ("overlaps", "are copied as they are")
            return """
                \(Figures.trackName(track)): its \(kept.count) timestamp \(them) inside the range kept \(are): \
                --reencode-audio lays every sample on its time
                """
        }
    }

    static func keptBreaks(_ facts: ClipFacts, cuts: [TrackCut], reencodesAudio: Bool) -> [Int: KeptBreaks] {
        var kept: [Int: KeptBreaks] = [:]
        for cut in cuts where cut.kind == .audio && !reencodesAudio {
            guard let track = facts.tracks.first(where: { $0.index == cut.index }), track.timingBreakCount > 0,
                track.timingBreaks.allSatisfy({ $0.length < 0 })
            else { continue }
            let inside = track.timingBreaks.filter { $0.at > cut.keepFrom && $0.at <= cut.keepThrough }
            // Past the listed ones (the facts list the first few), each is counted as inside.
            let count = inside.count + max(track.timingBreakCount - track.timingBreaks.count, 0)
            if count > 0 { kept[cut.index] = KeptBreaks(count: count, lengths: Set(inside.map(\.length))) }
        }
        return kept
    }

    /// The LCM of the tracks' timescales makes every edit exact; if that does not fit the 32-bit field, the
    /// audio rate keeps audio exact and video within one audio sample.
    /// `alsoCounting`: timescales the output will use besides the cuts' own (a converted file's audio counts in
    /// samples).
    public static func movieTimescale(_ cuts: [TrackCut], alsoCounting extra: [Int64] = []) -> Int64 {
        let scales = cuts.map { $0.timeBase.denominator / max($0.timeBase.numerator, 1) } + extra
        return MovieTimescale.common(scales, fallback: cuts.compactMap { $0.sampleRate.map(Int64.init) }.max() ?? 1000)
    }

}
