/// Plans a lossless repair: every audio and video track cut to the same presented range, the intersection of
/// theirs; starting on a keyframe; ending on a video frame boundary with audio within half a sample of it.
/// Works on the container's own timelines (ticks in each track's time base); no floating point.
public enum FixPlanner {
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

    public static func plan(_ facts: ClipFacts, timelines: [Int: TrackTimeline], options: FixOptions = .init()) throws
        -> FixPlan
    {
        var notes: [String] = []
        var mappings: [Mapping] = []
        var droppedAudio: [Int] = []
        for track in facts.tracks where track.kind == .video || track.kind == .audio {
            guard let timeline = timelines[track.index], let range = timeline.presentedRange() else { continue }
            if options.dropAudio, track.kind == .audio {
                droppedAudio.append(track.index)
                continue
            }
            if let swapped = OpusHeaderByteOrder.swappedPreSkip(track) {
                let stored = track.priming?.samples ?? 0
                throw PlanError(
                    """
                    \(Figures.trackName(track)): its Opus header says a pre-skip of \(stored) samples \
                    (\(Figures.ms(Rational(stored, 48000)))) where the same bytes read the other way round say \
                    \(swapped): the muxer wrote it little-endian (GStreamer 1.22's mp4mux does), and players skip \
                    that much of its start; mux the Opus stream again with another muxer
                    """
                )
            }
            // Vorbis in MP4 (FFmpeg writes it only with -strict experimental): its first packet decodes to
            // nothing, and no specification says whether its time is presented (the Ogg and Matroska mappings
            // each say it their own way); an edit list cannot be placed so that every reader agrees.
            if track.codec == "vorbis", facts.moovBeforeMdat != nil {
                throw PlanError(
                    """
                    \(Figures.trackName(track)) is Vorbis in an MP4, which FFmpeg writes only as an experiment and \
                    whose start readers place differently (its first packet decodes to nothing); mux the audio \
                    into Ogg or WebM, which define where Vorbis starts, and fix that
                    """
                )
            }
            if let edits = timeline.edits, edits.filter({ $0.mediaTime != nil }).count > 1 {
                throw PlanError(
                    """
                    \(Figures.trackName(track)) has \(edits.count) edits (a montage); loopprep cannot flatten it \
                    losslessly
                    """
                )
            }
            var m = Mapping(
                track: track, timeline: timeline, start: range.start, end: range.end, mediaStart: range.mediaStart)
            // Unsignalled AAC priming is not content: the encoder meant its content to start where the track
            // does (as the edit list it did not write would have said), so the content is moved there and the
            // priming hidden before it.
            // Unless the muxer moved the video with it: FFmpeg without edit lists stretches the first video frame
            // back to 0 by the priming, and the video's content starts after it too.
            if let priming = track.priming, !priming.signalled, let rate = track.sampleRate {
                let samples = options.priming(codec: track.codec)
                let seconds = Rational(samples, Int64(rate))
                m.mediaStart = m.mediaStart + seconds / timeline.timeBase
                let held = stretchedFirstFrame(facts, timelines: timelines).map {
                    ($0 - seconds).magnitude <= Rational(1, 1000)
                }
                // The content moves to the track's start only where the video starts there too (a packager that
                // aligned the tracks, CMAF's); a track started apart keeps its stored timing, priming cut.
                let together = videoStart(facts, timelines: timelines).map { video, frame in
                    (video - range.start).magnitude * 2 < frame
                }
                let moved = held != true && together == true
                if moved { m.end = m.end - seconds } else { m.start = m.start + seconds }
                notes.append(
                    """
                    \(Figures.trackName(track)): hides \(samples) samples of unsignalled \
                    \(track.codec == "mp3" ? "MP3" : "AAC") priming (assumed; --priming to change)\
                    \(moved ? "; its content starts with the video, where the track does" : "")
                    """
                )
            }
            mappings.append(m)
        }
        try keepNotes(options, droppedAudio: droppedAudio, mappings: mappings, notes: &notes)
        var shifts = rebase(&mappings, notes: &notes)
        // The tracks whose ends bound the cut: all of them, or (--keep video) the video's alone.
        let ending = endingTracks(mappings, options: options)
        guard let latestStart = mappings.map(\.start).max(), let earliestEnd = ending.map(\.end).min() else {
            throw PlanError("no audio or video track to keep")
        }
        let empty = (facts.emptyTracks ?? []).map(\.index)
        if !empty.isEmpty {
            notes.append(
                """
                leaves out \(empty.count) empty track\(empty.count == 1 ? "" : "s") \
                (\(empty.map(String.init).joined(separator: ", ")))
                """
            )
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

        // The container written: --to turns Matroska into MP4 or MOV, whose edit lists hide a pre-roll.
        let output = facts.isMatroska ? (options.convertTo ?? facts.container) : facts.container
        var start = commonStart
        var end = commonEnd
        if let video = mappings.first(where: { $0.track.kind == .video }) {
            let reencodeHead = options.reencodeHead && video.track.codec == "h264"
            (start, end) = try videoBounds(
                video, tracks: ending, from: commonStart, to: commonEnd, reencodeHead: reencodeHead,
                resolution: resolution, cap: range?.end, notes: &notes)
            let moved = snapToPackets(&mappings, start: start, container: output, resolution: resolution, notes: &notes)
            if !moved.isEmpty {
                shifts.merge(moved) { $0 + $1 }
                let ends = endingTracks(mappings, options: options).map(\.end).min() ?? commonEnd
                (start, end) = try videoBounds(
                    video, tracks: endingTracks(mappings, options: options), from: start,
                    to: Rational.min(commonEnd, ends), reencodeHead: reencodeHead,
                    resolution: resolution, cap: range?.end, notes: &notes)
            }
        }
        let duration = end - start

        var cuts: [TrackCut] = []
        var padsAudio = false
        for m in mappings {
            // On a millisecond clock a video's end is known to a tick: audio ending within one tick after it
            // is whole (trimming it would be a guess, and the next fix would trim again).
            let reach = !resolution.isZero && m.end > end && m.end - end <= resolution ? m.end - start : duration
            var cut =
                m.track.kind == .video
                ? try videoCut(m, start: start, end: end, bake: options.bakeVideo, notes: &notes)
                : try audioCut(m, start: start, duration: reach, preRoll: keepsPreRoll(m.track, container: output))
            if m.track.kind == .audio, options.keepVideo, let padded = padded(cut, m, to: duration, notes: &notes) {
                cut = padded
                padsAudio = true
            }
            if m.track.kind == .audio {
                cut.coreRate = AudioFrames.sbrCoreRate(
                    codec: m.track.codec, sampleRate: m.track.sampleRate, timeline: m.timeline)
            }
            if facts.moovBeforeMdat != nil {
                cut.compositionLead = Swift.max(0, m.timeline.samples.map { $0.dts - $0.pts }.max() ?? 0)
            }
            // A moved track lost nothing at its head: its range is said on its own timeline, and the move apart.
            if let shift = shifts[m.track.index] {
                cut.shift = shift
                cut.trimmedHead = cut.trimmedHead + shift
                cut.trimmedTail = cut.trimmedTail - shift
            }
            cuts.append(cut)
        }
        let timescale = movieTimescale(cuts)
        let repeats = try repeatCount(duration: duration, options: options, cuts: cuts, mappings: mappings)
        if let fade = options.seamFade, fade * 2 > duration {
            throw PlanError("--seam-fade \(Figures.ms(fade)) is more than half the clip (\(Figures.ms(duration)))")
        }
        // Cover art in an MP4/MOV lives in the movie's user data, which the writer copies. Chapter, timecode
        // and subtitle tracks are cut to the same range when the MP4 writer copies the whole file; otherwise
        // (Matroska, re-encoded parts) they are left out.
        let iso = facts.moovBeforeMdat != nil
        if iso, facts.coverArt == true { notes.append("keeps the cover art") }
        let copies =
            iso && repeats == 1 && options.seamFade == nil && cuts.allSatisfy { $0.head == nil && $0.tail == nil }
        if facts.fragmented == true, copies {
            notes.append("writes the fragments as one plain MP4 with moov first (no moof boxes)")
        }
        var others: [TrackCut] = []
        var dropped: [Int] = []
        for track in facts.tracks
        where track.kind != .video && track.kind != .audio && !(iso && track.kind == .attachment) {
            if copies, let t = timelines[track.index],
                let cut = otherCut(track, timeline: t, start: start, duration: duration)
            {
                others.append(cut)
            } else {
                dropped.append(track.index)
            }
        }
        if !others.isEmpty {
            notes.append(
                """
                keeps \(others.count) chapter, timecode or text track\(others.count == 1 ? "" : "s") \
                (\(others.map { String($0.index) }.joined(separator: ", "))), cut to the same range
                """
            )
        }
        if !dropped.isEmpty {
            notes.append(
                """
                drops \(dropped.count) track\(dropped.count == 1 ? "" : "s") that are neither audio nor video \
                (\(dropped.map(String.init).joined(separator: ", ")))
                """
            )
        }
        let noop =
            isByteCopy(facts, cuts: cuts, mappings: mappings, dropped: dropped + empty + droppedAudio) && !padsAudio
            && cuts.allSatisfy { $0.shift == nil }
            && others.allSatisfy { cut in
                timelines[cut.index].map { cut.first == 0 && cut.last == $0.samples.count - 1 } ?? false
                    && cut.trimmedHead.isZero && cut.trimmedTail.isZero
            }
            && repeats == 1 && options.seamFade == nil && !(options.bakeVideo && iso)
            && !(iso && cuts.contains { outputClocked($0, timelines: timelines) })
        for cut in cuts where iso && outputClocked(cut, timelines: timelines) {
            notes.append(
                """
                \(Figures.trackName(cut)): HE-AAC is written on its core clock (\(cut.coreRate ?? 0) Hz): on its \
                \(cut.sampleRate ?? 0) Hz clock FFmpeg-based players hide twice the priming its edit list says
                """
            )
        }
        for m in mappings where iso && !noop {
            guard let past = editOverrun(m), let clock = facts.movieTimescale else { continue }
            notes.append(
                """
                \(Figures.trackName(m.track)): its edit runs \(Figures.ms(past)) past its last sample (the movie clock \
                of \(clock) cannot say its length), which FFmpeg plays: written on a movie clock of \(timescale)
                """
            )
        }
        for m in mappings where m.timeline.primingMethod == "iTunSMPB" {
            notes.append(
                """
                \(Figures.trackName(m.track)): writes the priming iTunSMPB signals \
                (\(m.track.priming?.samples ?? 0) samples) as an edit list too, for players that read only that
                """
            )
        }
        for track in facts.tracks {
            guard let odd = track.irregularDurations, let frame = odd.frameTicks, let rate = track.sampleRate else {
                continue
            }
            notes.append(
                """
                \(Figures.trackName(track)): rewrites \(odd.count) stored duration\(odd.count == 1 ? "" : "s") to \
                the codec's frame of \((Rational(frame) * track.timeBase * Int64(rate)).rounded) samples
                """
            )
        }
        if iso, facts.videoTracks.contains(where: { $0.codec == "hevc" && $0.codecTag == "hev1" }), copies {
            notes.append(
                """
                writes the HEVC track as hvc1 (Apple's players want it), its parameter sets in the sample entry, \
                where they are the same throughout
                """
            )
        }
        if repeats > 1 {
            notes.append(
                """
                repeats the clip \(repeats) times (\(Figures.seconds(duration * Int64(repeats)))); audio \
                re-encoded as one stream
                """
            )
        }
        if options.bakeVideo, cuts.contains(where: { $0.kind == .audio && $0.codec == "aac" }) {
            notes.append(
                """
                --target web: the video needs no edit list; AAC priming still does (no container can say it \
                otherwise), so a player that ignores edit lists plays it first
                """
            )
        }
        if let fade = options.seamFade {
            notes.append("fades the audio out and in over \(Figures.ms(fade)) at the loop point; audio re-encoded")
        }
        if !resolution.isZero, ClipFacts.isMatroska(output), !noop {
            notes.append(
                """
                Matroska keeps times in whole milliseconds: each track starts and ends within 1 ms of the plan \
                (Opus to the sample, by its pre-skip and end discard)
                """
            )
        }
        if options.reencodeAudio, !noop { notes.append("--reencode-audio: the audio is encoded again with its codec") }
        var plan = FixPlan(
            tracks: cuts, others: others, dropped: dropped + empty + droppedAudio, start: start, duration: duration,
            movieTimescale: timescale,
            notes: notes, isNoop: noop, repeats: repeats, seamFade: options.seamFade, bakeVideo: options.bakeVideo)
        plan.reencodeAudio = options.reencodeAudio && !noop
        plan.padsAudio = padsAudio
        return plan
    }

    /// A track that is neither audio nor video (chapters, timecode, subtitles) over the planned range: the
    /// samples shown in it, from the one on at the start. nil when the track does not cover the start (it would
    /// need an empty edit) or shows nothing in the range.
    static func otherCut(_ track: TrackFacts, timeline t: TrackTimeline, start: Rational, duration: Rational)
        -> TrackCut?
    {
        guard let range = t.presentedRange(), range.start <= start, range.end > start, !t.samples.isEmpty else {
            return nil
        }
        let tb = t.timeBase
        let mediaStart = (range.mediaStart + (start - range.start) / tb).floor
        let kept = Rational.min(duration, range.end - start)
        let mediaEnd = Rational(mediaStart) + kept / tb
        let first =
            t.samples.indices.filter { t.samples[$0].pts <= mediaStart }.max { t.samples[$0].pts < t.samples[$1].pts }
            ?? 0
        guard let last = t.samples.indices.filter({ Rational(t.samples[$0].pts) < mediaEnd }).max(), last >= first
        else { return nil }
        return TrackCut(
            index: track.index, kind: track.kind, codec: track.codec, timeBase: tb, first: first, last: last,
            keepFrom: t.samples[first].dts, keepThrough: t.samples[last].dts, origin: t.samples[0].dts,
            mediaStart: mediaStart, retimedFirstPts: nil, head: nil, tail: nil, duration: kept, mediaEnd: nil,
            startBefore: track.startSeconds, endBefore: track.endSeconds, trimmedHead: start - track.startSeconds,
            trimmedTail: track.endSeconds - (start + kept), sampleRate: nil, frameRate: nil)
    }

    /// The input already is what fix would write: every track whole, starting at 0 where it starts, nothing
    /// dropped, and (MP4/MOV) moov first with exact headers and codec-length audio frames. Matroska has no
    /// edit list: there its own skip (codec delay) is the start.
    static func isByteCopy(_ facts: ClipFacts, cuts: [TrackCut], mappings: [Mapping], dropped: [Int]) -> Bool {
        let iso = facts.moovBeforeMdat != nil
        let whole = cuts.allSatisfy { cut in
            guard let m = mappings.first(where: { $0.track.index == cut.index }) else { return false }
            // (Outside MP4 an "edit" is the file's own signal, such as an MP3's LAME delay.)
            let start =
                m.timeline.edits != nil
                ? Rational(m.timeline.edits?.first?.mediaTime ?? -1) == Rational(cut.mediaStart)
                : !iso && m.mediaStart == Rational(cut.mediaStart)
            // Matroska cannot say less than a tick: a trim of one or less is nothing to do (a video's end is
            // known to a tick either way, and doing it again and again would not be idempotent).
            let slack = facts.timestampResolution
            // A last sample stored longer than the edit shows (mediaEnd) is not presented: nothing to fix.
            let untrimmed =
                slack.isZero
                ? cut.trimmedHead.isZero && cut.trimmedTail.isZero
                : cut.trimmedHead.magnitude <= slack && cut.trimmedTail.magnitude <= slack
            // Packets after the last presented one that the LAME tag's padding hides (a whole frame of it) are
            // kept by a copy, presenting the same: players read the tag. (Nothing else that FFmpeg would play.)
            let samples = m.timeline.samples
            let end = m.timeline.primingMethod == "LAME header" ? m.timeline.presentedRange()?.mediaEnd : nil
            let all =
                cut.last == samples.count - 1
                || end.map { end in samples[(cut.last + 1)...].allSatisfy { Rational($0.pts) >= end } } == true
            return cut.first == 0 && all && cut.head == nil && cut.tail == nil && untrimmed && m.start.isZero && start
        }
        // Priming said only by iTunSMPB is written as an edit list too, which every player honours.
        let edited = !iso || mappings.allSatisfy { $0.timeline.primingMethod == nil }
        let exact = mappings.allSatisfy { editOverrun($0) == nil }
        // HEVC tagged hev1 is written again as hvc1, which Apple's players want.
        let tagged = !iso || facts.tracks.allSatisfy { !($0.codec == "hevc" && $0.codecTag == "hev1") }
        return whole && edited && exact && tagged && dropped.isEmpty
            && facts.tracks.allSatisfy { $0.irregularDurations == nil }
            && (!iso || facts.moovBeforeMdat == true && MovieDurationMismatch().check(facts, .init()).isEmpty)
    }

    /// How far (seconds) a track's edit runs past its last sample: a movie clock of milliseconds cannot say
    /// 2068.729 ms and says 2069, which FFmpeg reads to its end, playing the codec's padding there. Such a file is
    /// written again, its edits on an exact clock. nil: the edit ends inside the media, or there is none.
    static func editOverrun(_ m: Mapping) -> Rational? {
        guard let edit = m.timeline.edits?.first, let media = edit.mediaTime, let span = m.timeline.mediaSpan else {
            return nil
        }
        let past = (Rational(media) + edit.duration / m.tb - Rational(span.end)) * m.tb
        return past > .zero ? past : nil
    }

    /// A video track's frame length (seconds): its frame rate's, else its first frame's; nil when neither says.
    static func frameLength(_ video: TrackFacts, _ t: TrackTimeline) -> Rational? {
        let frame = video.frameSeconds ?? t.samples.first.map { Rational($0.duration) * t.timeBase }
        return frame.flatMap { $0 > .zero ? $0 : nil }
    }

    /// The main video's first presented time and its frame length (seconds), for placing other tracks by it.
    static func videoStart(_ facts: ClipFacts, timelines: [Int: TrackTimeline]) -> (Rational, Rational)? {
        guard let video = facts.mainVideo, let t = timelines[video.index], let range = t.presentedRange(),
            let frame = frameLength(video, t)
        else { return nil }
        return (range.start, frame)
    }

    /// How much longer the main video's first presented frame lasts than the next one (seconds): a muxer that
    /// could not delay the video held its first frame instead. nil: no video, or too few frames to tell.
    static func stretchedFirstFrame(_ facts: ClipFacts, timelines: [Int: TrackTimeline]) -> Rational? {
        guard let video = facts.mainVideo, let t = timelines[video.index] else { return nil }
        let times = t.samples.filter { !$0.isDiscarded }.map(\.pts).sorted()
        guard times.count >= 3 else { return nil }
        let stretch = (times[1] - times[0]) - (times[2] - times[1])
        return stretch > 0 ? Rational(stretch) * t.timeBase : nil
    }

    /// A track that starts after the earliest one by less than half a video frame (a muxer's rounding, the 7 ms
    /// WebM's video is moved for the Opus pre-skip) is moved earlier to start with it, so no frame is lost for a
    /// sliver: A/V sync shifts by that much, far below what anyone perceives, and the plan says so. Half a frame
    /// or more is a real offset, cut on the frame grid. Returns the seconds each moved track moved.
    static func rebase(_ mappings: inout [Mapping], notes: inout [String]) -> [Int: Rational] {
        guard let video = mappings.first(where: { $0.track.kind == .video }),
            let frame = frameLength(video.track, video.timeline), let earliest = mappings.map(\.start).min()
        else { return [:] }
        var shifts: [Int: Rational] = [:]
        for i in mappings.indices {
            // Under one tick of the track's own clock is rounding, not an offset (90 kHz video after 44.1 kHz AAC).
            let offset = mappings[i].start - earliest
            guard offset >= mappings[i].tb, offset * 2 < frame else { continue }
            mappings[i].start = mappings[i].start - offset
            mappings[i].end = mappings[i].end - offset
            shifts[mappings[i].track.index] = offset
            notes.append(
                """
                \(Figures.trackName(mappings[i].track)) started \(Figures.ms(offset)) after the others, under half a \
                frame: moved to start with them, every frame kept (A/V sync shifts by \(Figures.ms(offset)))
                """
            )
        }
        return shifts
    }

    /// Matroska cannot hide part of a frame of AAC, MP3 or AC-3 (no edit list; only Opus has a skip in every
    /// player): an audio track whose cut would start inside a packet (a stream-copied cut, `-ss 1.3 -c copy`)
    /// starts on its packet nearest the start instead, moved by under half a packet to start with the video,
    /// every sample kept (A/V sync shifts by that much, as a rebase does). Returns the seconds each moved track
    /// moved earlier (later: negative).
    static func snapToPackets(
        _ mappings: inout [Mapping], start: Rational, container: String, resolution: Rational, notes: inout [String]
    ) -> [Int: Rational] {
        guard ClipFacts.isMatroska(container), !resolution.isZero else { return [:] }
        let frame = mappings.first { $0.track.kind == .video }.flatMap { frameLength($0.track, $0.timeline) }
        var moved: [Int: Rational] = [:]
        for i in mappings.indices where mappings[i].track.kind == .audio {
            let m = mappings[i]
            guard !keepsPreRoll(m.track, container: container), m.track.codec != "vorbis" else { continue }
            let at = m.ticks(start)
            let content = m.timeline.samples.filter { !$0.isDiscarded && Rational($0.pts) >= m.mediaStart }
            func distance(_ s: SampleTiming) -> Rational { (Rational(s.pts) - at).magnitude }
            guard let nearest = content.min(by: { distance($0) < distance($1) }),
                distance(nearest) * 2 <= Rational(nearest.duration)
            else { continue }
            let delta = (Rational(nearest.pts) - at) * m.tb
            // (Under half a video frame, as any rebase.)
            guard delta.magnitude > resolution, frame.map({ delta.magnitude * 2 < $0 }) ?? true else { continue }
            mappings[i].start = m.start - delta
            mappings[i].end = m.end - delta
            moved[m.track.index] = delta
            notes.append(
                """
                \(Figures.trackName(m.track)): Matroska cannot start \(m.track.codec.uppercased()) inside a frame: \
                starts on the frame nearest the video's start, moved \(Figures.ms(delta.magnitude)) \
                \(delta.isNegative ? "later" : "earlier"), every sample kept (A/V sync shifts by as much)
                """
            )
        }
        return moved
    }

    /// Start: the common start if the frame on screen there is a keyframe, else the next keyframe. End: the last
    /// frame boundary at or before the common end.
    static func videoBounds(
        _ v: Mapping, tracks: [Mapping], from commonStart: Rational, to commonEnd: Rational, reencodeHead: Bool,
        resolution: Rational = .zero, cap: Rational? = nil,
        notes: inout [String]
    ) throws -> (Rational, Rational) {
        let frames = v.timeline.samples.filter { !$0.isDiscarded }.sorted { $0.pts < $1.pts }
        let times = frames.map { v.time(Rational($0.pts)) }
        guard var onScreen = times.lastIndex(where: { $0 <= commonStart }) ?? times.firstIndex(where: { _ in true })
        else {
            throw PlanError("the video track has no frames")
        }
        var start = times[onScreen]
        // Cuts stay on the video frame grid: a start inside a frame (the other tracks start half a frame or more
        // later; less was rebased) moves to the next frame, so no frame is shown for a sliver of its time, and
        // every player (FFmpeg's too) presents the same frames. Within a tick of the video's clock (or Matroska's
        // millisecond) is on it: rounding, not an offset.
        // A first frame the muxer held for the priming starts, as content, where the next frame's length before
        // that one says: the start may be there (on the content's grid).
        let heldStart = times.count >= 3 && onScreen == 0 ? times[1] - (times[2] - times[1]) : nil
        let onHeldStart = heldStart.map { held in
            (commonStart - held).magnitude <= Rational.max(v.tb, Rational(1, 1000)) && commonStart > times[0]
        }
        if onHeldStart != true, commonStart - times[onScreen] > Rational.max(resolution, v.tb) {
            guard onScreen + 1 < times.count, times[onScreen + 1] < commonEnd else {
                throw PlanError("the common range is shorter than one video frame")
            }
            onScreen += 1
            start = times[onScreen]
        } else if onHeldStart == true || resolution.isZero, commonStart > times[onScreen] {
            // The held frame's content start, or within a tick of a frame's: the start is the other tracks', on
            // the video's next whole tick (no sample of theirs is before it).
            start = Rational.max(v.time(Rational(v.ticks(commonStart).ceiling)), times[onScreen])
        }
        if !frames[onScreen].isSync && !reencodeHead {
            guard
                let next = times.indices.first(where: {
                    times[$0] > commonStart && frames[$0].isSync && times[$0] < commonEnd
                })
            else {
                throw PlanError("no keyframe inside the range every track presents, so the start cannot be a keyframe")
            }
            notes.append(
                """
                the first presented frame is not a keyframe: starts at the next keyframe, \
                \(Figures.ms(times[next] - commonStart)) later \
                \(v.track.codec == "h264"
                    ? "(--reencode-head keeps them)"
                    : "(loopprep re-encodes only H.264, and copies \(v.track.codec) from a keyframe)")
                """
            )
            start = times[next]
        }
        // Frame boundaries after the start: each frame's start, and the end of the last one. A boundary within
        // half an audio sample after an audio track's end still matches it (30000/1001 fps at 48 kHz is 1601.6
        // samples a frame: the nearest whole sample may end before the frame does); the audio cut rounds to it.
        var boundaries = times.filter { $0 > start }
        if let last = frames.last { boundaries.append(Rational.min(v.time(Rational(last.pts + last.duration)), v.end)) }
        // (Matroska's milliseconds: within one tick.)
        let reach =
            tracks.map { m in
                m.end
                    + (m.track.kind == .audio
                        ? Rational.max(Rational(1, 2 * Int64(max(m.track.sampleRate ?? 0, 1))), resolution) : .zero)
            }.min() ?? v.end
        let ceiling = Rational.max(commonEnd, Rational.min(reach, v.end))
        guard let end = boundaries.filter({ $0 <= cap.map { Rational.min(ceiling, $0) } ?? ceiling }).max() else {
            throw PlanError("the common range is shorter than one video frame")
        }
        return (start, end)
    }

    static func videoCut(_ m: Mapping, start: Rational, end: Rational, bake: Bool, notes: inout [String]) throws
        -> TrackCut
    {
        let samples = m.timeline.samples
        let mediaStart = m.ticks(start).rounded
        // Decoding starts at the keyframe shown at the start (the latest sync sample at or before it).
        var first =
            samples.indices.filter { samples[$0].isSync && !samples[$0].isDiscarded && samples[$0].pts <= mediaStart }
            .max { samples[$0].pts < samples[$1].pts } ?? 0
        let mediaEnd = m.ticks(end)
        let last =
            samples.indices.filter { Rational(samples[$0].pts) < mediaEnd && !samples[$0].isDiscarded }.max() ?? first
        var head: SegmentRender?
        let onScreen = samples.indices.filter { !samples[$0].isDiscarded && samples[$0].pts <= mediaStart }.max {
            samples[$0].pts < samples[$1].pts
        }
        if let onScreen, !samples[onScreen].isSync {
            // Only H.264 is encoded again (the start was planned on a keyframe for any other codec).
            guard m.track.codec == "h264" else {
                throw PlanError(
                    """
                    the first frame to show is not a keyframe and loopprep re-encodes only H.264, not \
                    \(m.track.codec); nothing can start there without re-encoding
                    """
                )
            }
            // --reencode-head: the frames up to the next keyframe are encoded again; copying starts there.
            guard
                let next = samples.indices.filter({
                    samples[$0].isSync && samples[$0].pts > mediaStart && Rational(samples[$0].pts) < mediaEnd
                })
                .min(by: { samples[$0].pts < samples[$1].pts })
            else {
                throw PlanError(
                    """
                    the start is inside a GOP and no keyframe follows it inside the clip: keeping its first frames \
                    would re-encode all of it (start at a keyframe, or re-encode the clip)
                    """)
            }
            let frames = samples.filter {
                !$0.isDiscarded && $0.pts >= samples[onScreen].pts && $0.pts < samples[next].pts
            }.count
            head = SegmentRender(
                decodeFromDts: samples[first].dts, firstPts: mediaStart, untilPts: samples[next].pts,
                reorderDelay: samples[next].pts - samples[next].dts, frames: frames)
            notes.append(
                """
                re-encodes the \(frames) frame\(frames == 1 ? "" : "s") before the first keyframe \
                (\(Figures.ms(Rational(samples[next].pts - mediaStart) * m.tb)))
                """
            )
            first = next
        }
        var lastCopied = max(first, last)
        var tail: SegmentRender?
        let kept = samples.indices.filter { $0 >= first && $0 <= lastCopied && !samples[$0].isDiscarded }
        if bake, kept.contains(where: { Rational(samples[$0].pts) >= mediaEnd }) {
            // Frames needed as references are presented after the cut: re-encode the last GOP instead.
            guard
                let lastKey = kept.filter({ samples[$0].isSync && Rational(samples[$0].pts) < mediaEnd }).max(by: {
                    samples[$0].pts < samples[$1].pts
                })
            else {
                throw PlanError("--target web: no keyframe inside the cut to re-encode the last GOP from")
            }
            let untilPts = mediaEnd.floor
            let frames = samples.filter {
                !$0.isDiscarded && $0.pts >= samples[lastKey].pts && Rational($0.pts) < mediaEnd
            }.count
            tail = SegmentRender(
                decodeFromDts: samples[lastKey].dts, firstPts: samples[lastKey].pts, untilPts: untilPts,
                reorderDelay: samples[lastKey].pts - samples[lastKey].dts, frames: frames)
            notes.append("re-encodes the last GOP (\(frames) frames) so no frame is presented after the cut")
            lastCopied = samples.indices.filter { samples[$0].dts < samples[lastKey].dts && $0 >= first }.max() ?? -1
        }
        let retimed: Int64? = head == nil && samples[first].pts < mediaStart ? mediaStart : nil
        let (firstPresented, presentedFrames) = m.timeline.presentedSamples(from: Rational(mediaStart), to: mediaEnd)
        return TrackCut(
            index: m.track.index, kind: .video, codec: m.track.codec, timeBase: m.tb, first: first,
            last: max(first, lastCopied),
            // The whole cut re-encoded (its last GOP is its only one): nothing to copy.
            keepFrom: samples[first].dts,
            keepThrough: lastCopied >= 0 ? samples[lastCopied].dts : samples[first].dts - 1,
            origin: samples.first?.dts ?? 0,
            mediaStart: mediaStart, retimedFirstPts: retimed, head: head, tail: tail, duration: end - start,
            mediaEnd: nil,
            startBefore: m.track.startSeconds,
            endBefore: m.track.endSeconds, trimmedHead: start - m.track.startSeconds,
            trimmedTail: m.track.endSeconds - end,
            sampleRate: nil, frameRate: m.track.frameRate, presentedFrames: presentedFrames,
            firstPresented: firstPresented)
    }

    /// Whether a cut keeps packets before its start for the decoder to warm up on. Matroska has no edit list to
    /// hide them, except Opus's pre-skip, which hides any number of samples (written by the remuxer).
    static func keepsPreRoll(_ track: TrackFacts, container: String) -> Bool {
        !ClipFacts.isMatroska(container) || track.codec == "opus"
    }

    /// `preRoll`: keep packets before the start for the decoder to warm up on. Matroska cannot hide them (no
    /// edit list): there the cut starts on the packet that holds the start.
    static func audioCut(_ m: Mapping, start: Rational, duration: Rational, preRoll keepsPreRoll: Bool = true) throws
        -> TrackCut
    {
        guard let rate = m.track.sampleRate, rate > 0 else {
            throw PlanError("\(Figures.trackName(m.track)) has no sample rate")
        }
        let samples = m.timeline.samples
        let perSample = Rational(1, Int64(rate)) / m.tb  // ticks per sample (1 when the time base is 1/rate)
        // Whole samples: the start rounded to the nearest sample, the length to the nearest sample.
        let startSample = (m.ticks(start) / perSample).rounded
        // The nearest whole number of samples, never more than the track holds from the start (a video end
        // half a sample past the audio's rounds down to it).
        let count = Swift.min((duration * Int64(rate)).rounded, ((m.end - start) * Int64(rate)).floor)
        let mediaStart = (Rational(startSample) * perSample).rounded
        let mediaEnd = (Rational(startSample + count) * perSample).rounded
        guard
            let holding = samples.lastIndex(where: { $0.pts <= mediaStart && !$0.isDiscarded }) ?? samples.indices.first
        else {
            throw PlanError("\(Figures.trackName(m.track)) has no packets")
        }
        var first = holding
        let preRoll = (Rational(preRoll(codec: m.track.codec, sampleRate: rate)) * perSample).rounded
        while keepsPreRoll && first > 0 && samples[first].pts > mediaStart - preRoll { first -= 1 }
        // Nothing of the content is cut at the head: keep the whole priming, as the encoder wrote it.
        if keepsPreRoll && Rational(mediaStart) <= m.mediaStart { first = 0 }
        // Vorbis: every decoder puts out nothing for the first packet it is given (the spec's warm-up), in any
        // container; without the packet before the start, the first kept one would be lost instead.
        if m.track.codec == "vorbis", first == holding, holding > 0 { first = holding - 1 }
        let last = samples.lastIndex { $0.pts < mediaEnd } ?? holding
        let endOfLast = samples[last].pts + samples[last].duration
        let presentedDuration = Rational(count, Int64(rate))
        let (firstPresented, _) = m.timeline.presentedSamples(from: Rational(mediaStart), to: Rational(mediaEnd))
        let endAfter = start + presentedDuration
        return TrackCut(
            index: m.track.index, kind: .audio, codec: m.track.codec, timeBase: m.tb, first: first, last: last,
            keepFrom: samples[first].dts, keepThrough: samples[last].dts, origin: samples.first?.dts ?? 0,
            mediaStart: mediaStart, retimedFirstPts: nil, head: nil, tail: nil, duration: presentedDuration,
            mediaEnd: endOfLast != mediaEnd ? mediaEnd : nil,
            startBefore: m.track.startSeconds, endBefore: m.track.endSeconds,
            trimmedHead: start - m.track.startSeconds, trimmedTail: m.track.endSeconds - endAfter,
            sampleRate: rate, frameRate: nil, presentedFrames: nil, firstPresented: firstPresented)
    }

    /// --loops N, or for --unroll S the smallest N with N x duration >= S. Copies of the video are laid end to
    /// end without edits between them, so every kept frame must be presented inside the cut.
    static func repeatCount(duration: Rational, options: FixOptions, cuts: [TrackCut], mappings: [Mapping]) throws
        -> Int
    {
        var n = options.loops ?? 1
        if let target = options.unrollTo, duration < target {
            let q = target / duration
            n = Int(q.denominator == 1 ? q.numerator : q.floor + 1)
        }
        guard n > 1 else { return 1 }
        guard n <= 10_000 else { throw PlanError("\(n) repeats is too many") }
        for cut in cuts where cut.kind == .video {
            let samples = mappings.first { $0.track.index == cut.index }?.timeline.samples ?? []
            let end = Rational(cut.retimedFirstPts ?? cut.mediaStart) + cut.duration / cut.timeBase
            let stray = samples.filter { $0.dts >= cut.keepFrom && $0.dts <= cut.keepThrough && !$0.isDiscarded }
                .contains { Rational($0.pts) >= end || $0.pts < cut.mediaStart && $0.dts != cut.keepFrom }
            if stray {
                // Cut short to shorter audio inside a group of B-frames: keeping every frame would do.
                let remedy =
                    cut.trimmedTail > .zero
                    ? " (its end was cut to the audio's: --keep video keeps every frame and pads the audio instead)"
                    : ""
                throw PlanError(
                    """
                    cannot repeat \(cut.codec) video losslessly: frames needed to decode the cut are presented \
                    outside it\(remedy)
                    """
                )
            }
        }
        return n
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
