/// fix's plan in named steps (FixPlanner.plan reads them in order): the tracks it keeps and how each maps onto
/// the presented timeline (with the refusals no plan gets past), and the notes that say what the written file will
/// be.
extension FixPlanner {
    /// Each audio and video track's presented range (--drop-audio: the audio left out, returned apart), with
    /// unsignalled priming hidden; a shape no lossless plan can write is refused here, in words.
    static func mappings(
        _ facts: ClipFacts, timelines: [Int: TrackTimeline], options: FixOptions, notes: inout [String]
    ) throws -> (mappings: [Mapping], droppedAudio: [Int]) {
        var mappings: [Mapping] = []
        var droppedAudio: [Int] = []
        for track in facts.tracks where track.kind == .video || track.kind == .audio {
            guard let timeline = timelines[track.index], let range = timeline.presentedRange() else { continue }
            if options.dropAudio, track.kind == .audio {
                droppedAudio.append(track.index)
                continue
            }
            if let swapped = OpusHeaderByteOrder.swappedPreSkip(track, in: facts.container) {
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
            if track.codec == "vorbis", facts.isISO {
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
        return (mappings, droppedAudio)
    }

    /// The common start where audio starts within half a sample after the main video's first frame: that frame's
    /// start (the audio's cut rounds to the nearest sample, which is there). A muxer without edit lists stretches
    /// the first AAC packet so the next one starts on the video's first frame, to the whole sample after it
    /// (29.97 fps: 2002/30000 s is 2942.94 samples at 44.1 kHz, the audio starts at 2943); a frame is never cut
    /// for that fraction of a sample, at the start as at the end.
    static func onVideoStart(_ latest: Rational, _ mappings: [Mapping]) -> Rational {
        guard let video = mappings.first(where: { $0.track.kind == .video }), latest > video.start else {
            return latest
        }
        let within = mappings.allSatisfy { m in
            guard m.start > video.start else { return true }
            guard m.track.kind == .audio, let rate = m.track.sampleRate, rate > 0 else { return false }
            return (m.start - video.start) * Int64(2 * rate) <= .one
        }
        return within ? video.start : latest
    }

    /// What an MP4's or MOV's plan keeps and rewrites whole: its cover art (in the user data the writer copies) and
    /// its fragments (as one plain file, where the index writer copies it).
    static func isoNotes(_ facts: ClipFacts, copies: Bool) -> [String] {
        var notes: [String] = []
        if facts.isISO, facts.coverArt == true { notes.append("keeps the cover art") }
        if facts.fragmented == true, copies {
            notes.append("writes the fragments as one plain MP4 with moov first (no moof boxes)")
        }
        return notes
    }

    /// What the written file will be, said after the cuts: its clocks, edits past the last sample, rewritten
    /// durations, hvc1, repeats, the web's baked video, fades and Matroska's milliseconds.
    static func outcomeNotes(
        _ facts: ClipFacts, timelines: [Int: TrackTimeline], options: FixOptions, mappings: [Mapping], plan: FixPlan,
        copies: Bool
    ) -> [String] {
        let (cuts, noop, repeats, duration) = (plan.tracks, plan.isNoop, plan.repeats, plan.duration)
        let (iso, resolution, clock) = (facts.isISO, facts.timestampResolution, plan.movieTimescale)
        var notes: [String] = []
        let output = facts.container(convertedTo: options.convertTo)
        for cut in cuts where iso && outputClocked(cut, timelines: timelines) {
            notes.append(
                """
                \(Figures.trackName(cut)): HE-AAC is written on its core clock (\(cut.coreRate ?? 0) Hz): on its \
                \(cut.sampleRate ?? 0) Hz clock FFmpeg-based players hide twice the priming its edit list says
                """
            )
        }
        for m in mappings where iso && !noop {
            guard let past = editOverrun(m), let was = facts.movieTimescale else { continue }
            notes.append(
                """
                \(Figures.trackName(m.track)): its edit runs \(Figures.ms(past)) past its last sample (the movie clock \
                of \(was) cannot say its length), which FFmpeg plays: written on a movie clock of \(clock)
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
        notes += rewrittenTimingNotes(facts)
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
        if !resolution.isZero, output.isMatroska, !noop {
            notes.append(
                """
                Matroska keeps times in whole milliseconds: each track starts and ends within 1 ms of the plan \
                (Opus to the sample, by its pre-skip and end discard)
                """
            )
        }
        if options.reencodeAudio, !noop { notes.append("--reencode-audio: the audio is encoded again with its codec") }
        return notes
    }

    /// What a file carries beside its tracks, kept or left out: a Matroska output keeps its attached files, each
    /// container with a place for them its cover picture and chapters (cut to the output); what has none is named
    /// before writing.
    static func carriedNote(_ facts: ClipFacts, output: Container) -> String? {
        let files = facts.attachedFiles ?? []
        let pictures = facts.attachedPictures ?? []
        let chapters = facts.chapterCount ?? 0
        var kept: [String] = []
        var left: [String] = []
        if !files.isEmpty {
            let named = "the attached file\(files.count == 1 ? "" : "s") \(files.joined(separator: ", "))"
            if output.keepsAttachedFiles { kept.append(named) } else { left.append(named) }
        }
        if chapters > 0 {
            let named = "\(chapters) chapter\(chapters == 1 ? "" : "s")"
            if output.keepsChapters { kept.append(named + " (cut to the output)") } else { left.append(named) }
        }
        let tags = (facts.tags ?? []).filter { !Container.writtenAnew($0) && !output.keepsTag($0) }
        if !tags.isEmpty {
            let names = tags.joined(separator: ", ")
            let one = tags.count == 1
            let place = "\(output.name.uppercased()) has no place for \(one ? "it" : "them")"
            left.append("the tag\(one ? "" : "s") \(names) (\(place))")
        }
        // No muxer of FFmpeg's writes an Ogg skeleton or a DVD's navigation packets, nor data it has no timing of.
        left += facts.otherStreams ?? []
        if !pictures.isEmpty {
            let named = "the attached picture\(pictures.count == 1 ? "" : "s") \(pictures.joined(separator: ", "))"
            if output.keepsAttachedPictures { kept.append(named) } else { left.append(named) }
        }
        func list(_ items: [String]) -> String {
            items.count < 2
                ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
        }
        let keeps = kept.isEmpty ? nil : "keeps " + list(kept)
        let leaves = left.isEmpty ? nil : "leaves out " + list(left)
        let said = [keeps, leaves].compactMap { $0 }
        return said.isEmpty ? nil : said.joined(separator: "; ")
    }

    /// A hole in the audio inside the cut (a recording paused, or packets lost; an MP4 muxer's stretched frame): a
    /// player fills it with silence where FFmpeg's decoder plays on, so no output holds both; refused in words by
    /// the plan, whatever the writer (a copy kept it, and the check refused the output after the work).
    static func refuseHole(_ track: TrackFacts, cut: TrackCut) throws {
        let end = Rational(cut.mediaStart) + cut.duration / cut.timeBase
        guard
            let hole = track.timingBreaks.first(where: {
                $0.length > 0 && $0.at > cut.mediaStart && Rational($0.at) < end
            })
        else { return }
        throw PlanError(
            """
            \(Figures.trackName(track)) has a hole of \(Figures.ms(Rational(hole.length) * track.timeBase)) at \
            \(Figures.seconds(Rational(hole.at) * track.timeBase)) (the recording was paused there, or packets were \
            lost): a player fills it with silence where FFmpeg plays on, so no cut holds for both; cut the clip before \
            or after it, or record it again without the pause
            """)
    }

    /// What fix writes anew of a track's stored timing: audio durations that are not the codec's frame, decode
    /// times a muxer bumped.
    static func rewrittenTimingNotes(_ facts: ClipFacts) -> [String] {
        var out: [String] = []
        for track in facts.tracks {
            guard let odd = track.rewrittenDurations, let frame = odd.frameTicks, let rate = track.sampleRate else {
                continue
            }
            out.append(
                """
                \(Figures.trackName(track)): rewrites \(odd.count) stored duration\(odd.count == 1 ? "" : "s") to \
                the codec's frame of \((Rational(frame) * track.timeBase * Int64(rate)).rounded) samples
                """
            )
        }
        for track in facts.tracks {
            guard let count = track.relaidStamps else { continue }
            out.append(
                """
                \(Figures.trackName(track)): lays the \(count) packet\(count == 1 ? "" : "s") stamped apart from its \
                samples (a capture clock's or a joined stream's stamps) end to end, as the decoder plays them
                """)
        }
        for track in facts.tracks {
            guard let count = track.relaidDecodeTimes else { continue }
            out.append(
                """
                \(Figures.trackName(track)): lays the \(count) decode time\(count == 1 ? "" : "s") a muxer bumped a \
                tick after a repeated one a frame apart (every frame where it was presented)
                """)
        }
        return out
    }
}
