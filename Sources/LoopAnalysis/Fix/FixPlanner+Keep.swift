/// What a designed loop keeps: `--keep video` makes the video the loop, its audio played to
/// its end and then silent to the video's end; `--drop-audio` leaves the audio out (a muted background loop).
extension FixPlanner {
    /// The tracks whose ends bound the cut: every one (the shortest sets the end), or with --keep video the
    /// video's alone (where there is one).
    static func endingTracks(_ mappings: [Mapping], options: FixOptions) -> [Mapping] {
        guard options.keepVideo else { return mappings }
        let video = mappings.filter { $0.track.kind == .video }
        return video.isEmpty ? mappings : video
    }

    /// An audio cut that ends before the video (by half a sample or more) under --keep video: the same packets,
    /// presented to the cut's whole length, the samples it lacks silence (its encoder pads them); nil when the
    /// audio reaches the end.
    static func padded(_ cut: TrackCut, _ m: Mapping, to duration: Rational, notes: inout [String]) -> TrackCut? {
        guard let (out, wanted, has) = pad(cut, m, to: duration), let rate = cut.sampleRate else { return nil }
        notes.append(
            """
            \(Figures.trackName(m.track)): plays to its end, then \(wanted - has) samples \
            (\(Figures.ms(Rational(wanted - has, Int64(rate))))) of silence to the video's end (--keep video); \
            audio re-encoded
            """
        )
        return out
    }

    /// `cut` presented to `duration`, the samples it lacks silence: the cut, the samples wanted and had; nil when
    /// it reaches it.
    static func pad(_ cut: TrackCut, _ m: Mapping, to duration: Rational) -> (TrackCut, wanted: Int64, has: Int64)? {
        guard let rate = cut.sampleRate else { return nil }
        let wanted = (duration * Int64(rate)).rounded
        let has = (cut.duration * Int64(rate)).rounded
        guard wanted > has else { return nil }
        var out = cut
        out.duration = Rational(wanted, Int64(rate))
        out.trimmedTail = m.track.endSeconds - (cut.startBefore + cut.trimmedHead + out.duration)
        return (out, wanted, has)
    }

    /// A clip repeated (--loops, --unroll) whose sound ends within the container's tick before its picture (mkvmerge's
    /// millisecond stamps: 2.000 s of FLAC under 2.001 s of video) ends together once, but each pass would start the
    /// sound that much earlier than its picture: the sound of each pass is padded with that much silence instead,
    /// said, so every pass starts with its picture. Whether any audio was padded.
    static func padShortPasses(
        _ cuts: inout [TrackCut], _ mappings: [Mapping], duration: Rational, _ facts: ClipFacts, repeats: Int,
        notes: inout [String]
    ) -> Bool {
        guard repeats > 1 else { return false }
        var any = false
        for i in cuts.indices where cuts[i].kind == .audio && duration - cuts[i].duration <= facts.timestampResolution {
            guard let m = mappings.first(where: { $0.track.index == cuts[i].index }),
                let (out, wanted, has) = pad(cuts[i], m, to: duration), let rate = cuts[i].sampleRate
            else { continue }
            cuts[i] = out
            any = true
            let short = Figures.ms(Rational(wanted - has, Int64(rate)))
            notes.append(
                """
                \(Figures.trackName(m.track)) ends \(wanted - has) samples (\(short)) before the picture, within the \
                container's tick: each of the \(repeats) passes plays it to its end, then that much silence, so every \
                pass starts with its picture; audio re-encoded
                """)
        }
        return any
    }

    /// Audio encoded again (--seam-fade, --loops, --unroll, --keep video's padding, --reencode-audio) comes out of
    /// its encoder in whole frames after a priming: an MP4's edit list hides both, and Opus (pre-skip, discard
    /// padding), FLAC and PCM end where they are told in Matroska too; any other codec in Matroska (AAC, Vorbis,
    /// AC-3, MP3) would run past the video by part of a frame, which the written file's check refuses after the work.
    /// Refused here, as the dry run says.
    static func refuseInexactReencode(_ cuts: [TrackCut], output: Container, options: FixOptions) throws {
        guard output.isMatroska,
            let cut = cuts.first(where: {
                $0.kind == .audio && $0.codec != "opus" && $0.codec != "flac" && !$0.codec.hasPrefix("pcm_")
            })
        else { return }
        let asked = reencodeAsked(options)
        throw PlanError(
            """
            \(Figures.trackName(cut)) would be encoded again (\(asked ?? "padded with silence")), and Matroska cannot \
            end \(cut.codec.uppercased()) inside its last frame or hide its encoder's priming: \
            \(asked.map { "leave out \($0), or " } ?? "")--to mp4 writes an MP4, whose edit list can (nothing written)
            """)
    }

    /// --drop-audio's note, and its refusal where nothing would be left; --keep video's where the sound already
    /// runs to the picture's end (the cut is the usual one, said so rather than nothing).
    static func keepNotes(_ options: FixOptions, droppedAudio: [Int], mappings: [Mapping], notes: inout [String])
        throws
    {
        let audio = mappings.filter { $0.track.kind == .audio }
        if options.keepVideo, !audio.isEmpty,
            let videoEnd = mappings.filter({ $0.track.kind == .video }).map(\.track.endSeconds).max(),
            audio.allSatisfy({ $0.track.endSeconds >= videoEnd })
        {
            notes.append(
                """
                --keep video: the sound runs to the picture's end or past it, so the cut is the usual one (the \
                sound ends with the picture; nothing is padded)
                """)
        }
        guard options.dropAudio else { return }
        guard mappings.contains(where: { $0.track.kind == .video }) else {
            throw PlanError("--drop-audio leaves nothing: the file has no video")
        }
        guard !droppedAudio.isEmpty else { return }
        notes.append(
            """
            drops the audio (--drop-audio: track\(droppedAudio.count == 1 ? "" : "s") \
            \(droppedAudio.map(String.init).joined(separator: ", "))): the video loops alone, every frame kept
            """
        )
    }
}
