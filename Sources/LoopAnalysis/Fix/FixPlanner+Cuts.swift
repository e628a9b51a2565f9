/// fix's cuts per track (FixPlanner.plan's middle): the video's bounds on its frame grid, the video and audio cuts,
/// other tracks over the same range, whether the input is already what fix would write, and repeats.
extension FixPlanner {
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

    /// A subtitle track cut where the picture is: every cue shown inside [start, start + duration), a cue that
    /// straddles the end shortened to it (`mediaEnd`) and one that straddles the start shown from it (the writer
    /// moves it there). nil: no cue falls inside.
    static func subtitleCut(_ track: TrackFacts, timeline t: TrackTimeline, start: Rational, duration: Rational)
        -> TrackCut?
    {
        guard let range = t.presentedRange() else { return nil }
        let tb = t.timeBase
        let mediaStart = (range.mediaStart + (start - range.start) / tb).floor
        let mediaEnd = (Rational(mediaStart) + duration / tb).floor
        let shown = t.samples.indices.filter { t.samples[$0].pts + t.samples[$0].duration > mediaStart }
            .filter { t.samples[$0].pts < mediaEnd }
        guard let first = shown.min(by: { t.samples[$0].dts < t.samples[$1].dts }),
            let last = shown.max(by: { t.samples[$0].dts < t.samples[$1].dts })
        else { return nil }
        return TrackCut(
            index: track.index, kind: track.kind, codec: track.codec, timeBase: tb, first: first, last: last,
            keepFrom: t.samples[first].dts, keepThrough: t.samples[last].dts, origin: t.samples[0].dts,
            mediaStart: mediaStart, retimedFirstPts: nil, head: nil, tail: nil, duration: duration,
            mediaEnd: mediaEnd, startBefore: track.startSeconds, endBefore: track.endSeconds,
            trimmedHead: .zero, trimmedTail: .zero, sampleRate: nil, frameRate: nil)
    }

    /// The input already is what fix would write: every track whole, starting at 0 where it starts, nothing
    /// dropped, and (MP4/MOV) moov first with exact headers and codec-length audio frames. Matroska has no
    /// edit list: there its own skip (codec delay) is the start.
    static func isByteCopy(_ facts: ClipFacts, cuts: [TrackCut], mappings: [Mapping], dropped: [Int]) -> Bool {
        let iso = facts.isISO
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
            && facts.tracks.allSatisfy {
                $0.irregularDurations == nil && $0.relaidDecodeTimes == nil && $0.relaidStamps == nil
            }
            && (!iso || facts.moovBeforeMdat == true && MovieDurationMismatch().check(facts, .init()).isEmpty)
            // A Matroska file whose Duration is missing or wrong, or that has no Cues, is written again (FFmpeg's
            // muxer writes both).
            && (!facts.isMatroska || MovieDurationMismatch().check(facts, .init()).isEmpty)
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

    /// A Matroska cut of MP3, MP2, AC-3 or E-AC-3 that ends inside a frame is refused before writing: its
    /// DiscardPadding is written on the last block, but FFmpeg's demuxer parses these codecs and hands the padding
    /// on with the frame before (mpv and ffmpeg would drop the wrong samples and click a frame before the end).
    static func refuseParsedEnd(_ cuts: [TrackCut], _ mappings: [Mapping]) throws {
        for cut in cuts where cut.kind == .audio && ["mp3", "mp2", "ac3", "eac3"].contains(cut.codec) {
            guard let end = cut.mediaEnd, let m = mappings.first(where: { $0.track.index == cut.index }),
                let last = m.timeline.samples.filter({ !$0.isDiscarded && $0.pts < end }).max(by: { $0.pts < $1.pts }),
                last.pts + last.duration > end
            else { continue }
            let codec = cut.codec == "eac3" ? "E-AC-3" : cut.codec == "ac3" ? "AC-3" : cut.codec.uppercased()
            throw PlanError(
                """
                \(Figures.trackName(m.track)) would end inside an \(codec) frame, which Matroska says with a \
                DiscardPadding that FFmpeg's players take a frame early: --to mp4 writes an MP4, whose edit list \
                ends it exactly
                """)
        }
    }

    /// Matroska cannot hide part of a frame of AAC, MP3 or AC-3 (no edit list; only Opus has a skip in every
    /// player): an audio track whose cut would start inside a packet (a stream-copied cut, `-ss 1.3 -c copy`)
    /// starts on its packet nearest the start instead, moved by under half a packet to start with the video,
    /// every sample kept (A/V sync shifts by that much, as a rebase does). Returns the seconds each moved track
    /// moved earlier (later: negative).
    static func snapToPackets(
        _ mappings: inout [Mapping], start: Rational, container: Container, resolution: Rational, notes: inout [String]
    ) -> [Int: Rational] {
        guard container.isMatroska, !resolution.isZero else { return [:] }
        let frame = mappings.first { $0.track.kind == .video }.flatMap { frameLength($0.track, $0.timeline) }
        var moved: [Int: Rational] = [:]
        for i in mappings.indices where mappings[i].track.kind == .audio {
            let m = mappings[i]
            guard !keepsPreRoll(m.track, container: container) else { continue }
            let at = m.ticks(start)
            let content = m.timeline.samples.filter { !$0.isDiscarded && Rational($0.pts) >= m.mediaStart }
            func distance(_ s: SampleTiming) -> Rational { (Rational(s.pts) - at).magnitude }
            guard let nearest = content.min(by: { distance($0) < distance($1) }),
                distance(nearest) * 2 <= Rational(nearest.duration)
            else { continue }
            let delta = (Rational(nearest.pts) - at) * m.tb
            // (Under half a video frame, as any rebase.) Within the clock's tick it is the same instant: the cut
            // starts on that packet (a loop starting mid-stream lands a few samples from one), said in no note.
            guard !delta.isZero, frame.map({ delta.magnitude * 2 < $0 }) ?? true else { continue }
            mappings[i].start = m.start - delta
            mappings[i].end = m.end - delta
            moved[m.track.index] = delta
            guard delta.magnitude > resolution else { continue }
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

    /// The range every ending track presents, on the container's tick (`resolution`: Matroska's millisecond, zero
    /// where exact), the video's end held at or before `cap` (--range's end).
    struct Window {
        var start: Rational
        var end: Rational
        /// The input's tick (Matroska's millisecond; zero for a finer clock): a start within it is on it.
        var resolution: Rational = .zero
        var cap: Rational? = nil
        /// How far past an audio track's end a frame boundary may fall and still match it: the output's tick. A
        /// Matroska output says times to the millisecond; an MP4 or MOV (`--to`) says them to the sample, so a frame
        /// a millisecond past the sound is a millisecond of picture without it (a Chromium recording's AV1 over its
        /// Opus: the check refused the output).
        var endResolution: Rational = .zero
    }

    /// Start: the common start if the frame on screen there is a keyframe, else the next keyframe. End: the last
    /// frame boundary at or before the common end.
    static func videoBounds(
        _ v: Mapping, tracks: [Mapping], window: Window, reencodeHead: Bool, notes: inout [String]
    ) throws -> (Rational, Rational) {
        let (commonStart, commonEnd, resolution) = (window.start, window.end, window.resolution)
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
            if let next = times.indices.first(where: {
                times[$0] > commonStart && frames[$0].isSync && times[$0] < commonEnd
            }) {
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
            } else {
                let key = times[frames.lastIndex { $0.isSync && $0.pts <= frames[onScreen].pts } ?? 0]
                notes.append(try noKeyframeInRange(v.track.codec, keyframeBefore: commonStart - key))
            }
        }
        let end = try videoEnd(v, frames: frames, times: times, start: start, tracks: tracks, window: window)
        return (start, end)
    }

    /// The video's last frame boundary after `start` that every ending track reaches: each frame's start, and the
    /// end of the last one. A boundary less than a sample after an audio track's end still matches it (30000/1001
    /// fps at 48 kHz is 1601.6 samples a frame: the whole samples may end before the frame does): no frame is dropped
    /// for a fraction of a sample. Written on Matroska's milliseconds: within one tick.
    static func videoEnd(
        _ v: Mapping, frames: [SampleTiming], times: [Rational], start: Rational, tracks: [Mapping], window: Window
    ) throws -> Rational {
        let (commonEnd, resolution, cap) = (window.end, window.endResolution, window.cap)
        var boundaries = times.filter { $0 > start }
        if let last = frames.last { boundaries.append(Rational.min(v.time(Rational(last.pts + last.duration)), v.end)) }
        let reaches = { (b: Rational) in
            b <= v.end
                && tracks.allSatisfy { m in
                    guard m.track.kind == .audio else { return b <= m.end }
                    let over = b - m.end
                    return over <= resolution || over < Rational(1, Int64(max(m.track.sampleRate ?? 0, 1)))
                }
        }
        guard let end = boundaries.filter({ b in (b <= commonEnd || reaches(b)) && cap.map { b <= $0 } != false }).max()
        else {
            throw PlanError("the common range is shorter than one video frame")
        }
        return end
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
            let next = samples.indices.filter({
                samples[$0].isSync && samples[$0].pts > mediaStart && Rational(samples[$0].pts) < mediaEnd
            })
            .min(by: { samples[$0].pts < samples[$1].pts })
            // No keyframe after the start: the whole picture is the encoder's, in any codec it encodes. Only H.264
            // is encoded again among copied frames (--reencode-head: the frames up to the next keyframe; the
            // start was planned on a keyframe for any other codec).
            guard let next, m.track.codec == "h264" else {
                guard next == nil, reencodesWhole(m.track.codec) else {
                    throw PlanError(
                        """
                        the first frame to show is not a keyframe and loopprep re-encodes only H.264, not \
                        \(m.track.codec); nothing can start there without re-encoding
                        """)
                }
                return try wholeReencode(m, start: start, end: end, first: first, onScreen: onScreen, notes: &notes)
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

    /// A cut inside one GOP, no keyframe after its start (loops of real footage, a keyframe
    /// every 250 frames): every frame it presents is encoded again, decoded from the keyframe before it; nothing is
    /// copied. The encoded frames keep the source's decode delay of that keyframe (the encoder writes no B-frames,
    /// so any constant keeps decode times in order).
    /// A recording's one keyframe is its first frame, and its sound starts a frame or two later: the picture is
    /// encoded again whole from the first frame the sound covers (videoCut), in a codec fix encodes.
    static func noKeyframeInRange(_ codec: String, keyframeBefore: Rational) throws -> String {
        guard reencodesWhole(codec) else {
            throw PlanError(
                """
                no keyframe inside the range every track presents, so the start cannot be a keyframe, and loopprep \
                cannot encode \(codec) again
                """)
        }
        return """
            no keyframe inside the range every track presents (the picture's last one before it is \
            \(Figures.ms(keyframeBefore)) before every track has started): the picture is encoded again from the first \
            frame every track covers
            """
    }

    /// The codecs whose whole picture fix can encode again (the encoder's stream replaces the source's).
    static func reencodesWhole(_ codec: String) -> Bool {
        ["h264", "hevc", "vp8", "vp9", "av1"].contains(codec)
    }

    static func wholeReencode(
        _ m: Mapping, start: Rational, end: Rational, first: Int, onScreen: Int, notes: inout [String]
    ) throws -> TrackCut {
        let samples = m.timeline.samples
        let mediaStart = m.ticks(start).rounded
        let mediaEnd = m.ticks(end)
        let shown = samples.indices.filter {
            !samples[$0].isDiscarded && samples[$0].pts >= samples[onScreen].pts && Rational(samples[$0].pts) < mediaEnd
        }
        // The last packet decoding needs: every presented frame's, and (earlier in decode order) their references.
        guard let through = shown.map({ samples[$0].dts }).max() else {
            throw PlanError("the cut presents no frame")
        }
        let head = SegmentRender(
            decodeFromDts: samples[first].dts, firstPts: mediaStart, untilPts: mediaEnd.rounded,
            reorderDelay: samples[first].pts - samples[first].dts, frames: shown.count)
        notes.append(
            """
            re-encodes all \(shown.count) frames: no keyframe follows the start inside the cut, so nothing of the \
            video is copied
            """)
        let (firstPresented, presentedFrames) = m.timeline.presentedSamples(from: Rational(mediaStart), to: mediaEnd)
        return TrackCut(
            index: m.track.index, kind: .video, codec: m.track.codec, timeBase: m.tb, first: first, last: first,
            keepFrom: through + 1, keepThrough: through, origin: samples.first?.dts ?? 0, mediaStart: mediaStart,
            retimedFirstPts: nil, head: head, tail: nil, duration: end - start, mediaEnd: nil,
            startBefore: m.track.startSeconds, endBefore: m.track.endSeconds,
            trimmedHead: start - m.track.startSeconds, trimmedTail: m.track.endSeconds - end, sampleRate: nil,
            frameRate: m.track.frameRate, presentedFrames: presentedFrames, firstPresented: firstPresented)
    }

    /// Whether a cut keeps packets before its start for the decoder to warm up on. Matroska has no edit list to
    /// hide them, except Opus's pre-skip, which hides any number of samples (written by the remuxer).
    static func keepsPreRoll(_ track: TrackFacts, container: Container) -> Bool {
        !container.isMatroska || track.codec == "opus"
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
        var cut = TrackCut(
            index: m.track.index, kind: .audio, codec: m.track.codec, timeBase: m.tb, first: first, last: last,
            keepFrom: samples[first].dts, keepThrough: samples[last].dts, origin: samples.first?.dts ?? 0,
            mediaStart: mediaStart, retimedFirstPts: nil, head: nil, tail: nil, duration: presentedDuration,
            mediaEnd: endOfLast != mediaEnd ? mediaEnd : nil,
            startBefore: m.track.startSeconds, endBefore: m.track.endSeconds,
            trimmedHead: start - m.track.startSeconds, trimmedTail: m.track.endSeconds - endAfter,
            sampleRate: rate, frameRate: nil, presentedFrames: nil, firstPresented: firstPresented)
        cut.channels = m.track.channels
        return cut
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
}
