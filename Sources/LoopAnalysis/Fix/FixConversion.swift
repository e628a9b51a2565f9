/// Where an input's own container cannot say the plan (no edit list: MPEG-TS and -PS, FLV, AVI, ADTS), or `--to`
/// asks, fix writes an MP4 or MOV beside it: decided here, in the planner's terms, the plan adjusted to the
/// container it will be (the plan is final when planned). What the muxers accept is the caller's
/// capability (FFmpeg's), passed in.
package enum FixConversion {
    /// The muxer written with ("mp4", "mov", "ipod") and the output's path.
    public struct Output: Sendable, Equatable {
        public var format: Muxer
        public var path: String
    }

    /// Decides the conversion and adjusts `plan` to it: not a byte copy, written by that muxer, on a movie clock
    /// that counts the audio in samples, said in a note. nil: the container is kept, the plan unchanged.
    public static func convert(
        _ plan: inout FixPlan, facts: ClipFacts, destination: String, to asked: Muxer?,
        accepts: (_ format: Muxer, _ codec: String) -> Bool
    ) throws -> Output? {
        let to = try asked ?? named(destination, facts: facts)
        guard
            let output = try decide(
                facts, destination: destination, noop: plan.isNoop, reencodesAudio: plan.reencodesAudio, to: to,
                accepts: accepts)
        else {
            try refuseMisnamed(facts, destination: destination, to: asked)
            return nil
        }
        plan.isNoop = false
        plan.convertsTo = output.format
        // The MP4 counts audio in samples (FLV and MPEG-TS do not): its edits need the rates' common multiple.
        plan.movieTimescale = FixPlanner.movieTimescale(
            plan.tracks, alsoCounting: plan.tracks.compactMap { $0.sampleRate.map(Int64.init) })
        let name = output.path.split(separator: "/").last.map(String.init) ?? output.path
        let writes = "writes \(name) (\(output.format.rawValue.uppercased())) beside it"
        plan.notes.append(
            facts.container.keptByFix
                ? "--to \(output.format.rawValue): \(writes)"
                : "\(facts.container) cannot carry an edit list: \(writes)")
        return output
    }

    /// The output's path before its input is read, by the rules `decide` and `asked` apply once it is, from the
    /// container the name says (`Container(extension:)`): one that cannot say a cut becomes an MP4 (or `--to`'s
    /// container), ADTS an M4A, and `--to` renames Matroska and crosses the ISO family. What only the streams decide
    /// (PCM into a MOV, a QuickTime-brand .m4v) is claimed again under the plan's path when it is planned.
    public static func expectedPath(_ destination: String, to: Muxer?) -> String {
        guard let ext = fileExtension(destination), let container = Container(extension: ext) else {
            return destination
        }
        if container == .adts { return stem(destination) + ".m4a" }
        if container.convertedByFix { return stem(destination) + "." + (to ?? .mp4).rawValue }
        guard let to else { return destination }
        if container.isMatroska || (container.isISO && container != to.container) {
            return stem(destination) + "." + to.rawValue
        }
        return destination
    }

    /// The last component's extension, lowercased (nil without one).
    static func fileExtension(_ path: String) -> String? {
        (path.split(separator: "/").last.map(String.init) ?? path)
            .split(separator: ".", omittingEmptySubsequences: false).dropFirst().last.map { $0.lowercased() }
    }

    /// The container the output's own name asks for where it is not the input's (`loop phone.mkv -o loop.mp4`):
    /// an MP4 or a MOV, as `--to` would; nil where the name is the input's kind. A name of a
    /// container loopprep does not write the input as (an MP4 named .mkv) is refused, never written under it.
    static func named(_ destination: String, facts: ClipFacts) throws -> Muxer? {
        let ext = fileExtension(destination)
        switch ext {
        case "mp4", "m4v": return facts.container == .mp4 ? nil : .mp4
        case "mov", "qt": return facts.container == .mov ? nil : .mov
        case "mkv", "webm", "mka":
            guard facts.isISO else { return nil }
            throw PlanError(
                """
                write output: the output is named .\(ext ?? "") but this \(facts.container.name.uppercased()) is \
                written as an MP4 or MOV (loopprep does not write it as Matroska): name it .mp4 or .mov
                """)
        default: return nil
        }
    }

    /// A file written in its own container must be named as one: `fix take.ogg -o take.mp4` (or `--to mp4` of an
    /// Ogg, WAV, FLAC or MP3, which keep theirs) was an Ogg under an MP4's name. The input's own extension is never
    /// refused, nor a Matroska name for a Matroska file (WebM is Matroska: browsers' recordings name theirs .webm
    /// whatever their codecs); a name loopprep does not know is the user's.
    static func refuseMisnamed(_ facts: ClipFacts, destination: String, to: Muxer?) throws {
        let kind = facts.container.name.uppercased()
        if let to, !facts.isISO, !facts.isMatroska {
            throw PlanError(
                """
                convert: --to \(to.rawValue): loopprep writes this \(kind) in its own container (--to converts video \
                containers); fix it without --to; nothing written
                """)
        }
        guard let ext = fileExtension(destination), let named = Container(extension: ext), named != facts.container,
            !(facts.isMatroska && named.isMatroska), ext != fileExtension(facts.path)
        else { return }
        let own = facts.container.fileExtension.map { ": name it .\($0)" } ?? ""
        throw PlanError(
            """
            write output: the output is named .\(ext) but this \(kind) is written as \(kind) (loopprep does not \
            turn it into \(named.name.uppercased()))\(own); nothing written
            """)
    }

    /// The MP4 or MOV muxer that takes every kept track's codec, and the name of the output beside
    /// `destination`; a sentence naming the codec when neither does. nil: the container is kept.
    public static func decide(
        _ facts: ClipFacts, destination: String, noop: Bool, reencodesAudio: Bool = false, to: Muxer? = nil,
        accepts: (_ format: Muxer, _ codec: String) -> Bool
    ) throws -> Output? {
        let codecs = facts.tracks.filter { $0.kind == .video || $0.kind == .audio }.map(\.codec)
        if let to, let asked = try asked(facts, to: to, codecs: codecs, destination: destination, accepts: accepts) {
            return asked
        }
        guard try !keeps(facts, codecs: codecs, noop: noop, reencodesAudio: reencodesAudio) else { return nil }
        // ADTS AAC cannot say its priming; an M4A's edit list can, around the same frames.
        if facts.container == .adts { return Output(format: .ipod, path: stem(destination) + ".m4a") }
        try refuseReordered(facts)
        // PCM goes into a MOV, as QuickTime has always carried it (FFmpeg 6.1 and later also put PCM in MP4, as
        // ISO 23003-5, which players read far less widely); the rest into an MP4 where it fits.
        let order: [Muxer] =
            to.map { [$0] } ?? (codecs.contains { $0.hasPrefix("pcm_") } ? [.mov, .mp4] : [.mp4, .mov])
        for format in order where codecs.allSatisfy({ accepts(format, $0) }) {
            return Output(format: format, path: stem(destination) + "." + format.rawValue)
        }
        let refused = codecs.first { !accepts(.mov, $0) } ?? codecs.joined(separator: ", ")
        throw PlanError(
            """
            convert: \(facts.container) cannot carry an edit list, and its \(refused) cannot go into MP4 or MOV, so \
            loopprep cannot fix it losslessly; re-encode that track (H.264 or AAC in an MP4) and fix the result
            """
        )
    }

    /// --to: Matroska and WebM as asked, and across the ISO family (MP4 and MOV otherwise keep theirs: they already
    /// say any trim); nil where --to asks for nothing of this file.
    static func asked(
        _ facts: ClipFacts, to: Muxer, codecs: [String], destination: String,
        accepts: (_ format: Muxer, _ codec: String) -> Bool
    ) throws -> Output? {
        if facts.isMatroska {
            // A codec the muxer does not take (VP8 in MP4, Opus in MOV), then one it takes but loopprep does not
            // write exactly there (Vorbis's priming and FLAC in MP4 are not among it yet). Opus is: its pre-skip is
            // the edit list's media time, as in the MP4s browsers record, every presented sample the WebM's.
            if let refused = codecs.first(where: { !accepts(to, $0) }) {
                throw PlanError(
                    """
                    convert: --to \(to.rawValue): FFmpeg's \(to.rawValue.uppercased()) muxer does not take this file's \
                    \(refused); nothing written (without --to it stays a \(facts.container.name.uppercased()))
                    """)
            }
            let exact: Set = [
                "h264", "hevc", "av1", "vp9", "mpeg4", "mjpeg", "prores", "aac", "mp3", "ac3", "eac3", "alac", "opus",
            ]
            if let refused = codecs.first(where: { !(exact.contains($0) || $0.hasPrefix("pcm_")) }) {
                throw PlanError(
                    """
                    convert: --to \(to.rawValue): loopprep cannot write this file's \(refused) into \
                    \(to.rawValue.uppercased()) exactly; nothing written
                    """
                )
            }
            return Output(format: to, path: stem(destination) + "." + to.rawValue)
        }
        // A QuickTime-brand .mov or .m4v asked for as an MP4 (or an MP4 as a MOV) is written by that muxer, every
        // codec checked as for any conversion, never ignored.
        guard facts.isISO, facts.container != to.container else { return nil }
        if let refused = codecs.first(where: { !accepts(to, $0) }) {
            throw PlanError(
                """
                convert: --to \(to.rawValue): FFmpeg's \(to.rawValue.uppercased()) muxer does not take this file's \
                \(refused); \
                nothing written (without --to it stays a \(facts.container.name.uppercased()))
                """)
        }
        return Output(format: to, path: stem(destination) + "." + to.rawValue)
    }

    /// Whether the file keeps its own container (one that says any trim, or an audio-only format that is right or
    /// encoded again with its own header); a format loopprep neither keeps nor converts is refused.
    static func keeps(_ facts: ClipFacts, codecs: [String], noop: Bool, reencodesAudio: Bool) throws -> Bool {
        // An Ogg carries other codecs (MPEG-4, H.264, MP3) only in OGM's old headers, which no Ogg muxer of
        // FFmpeg's writes: such a file that needs a change is said so, never written as something else unasked.
        if facts.container == .ogg, !noop,
            let other = codecs.first(where: { !["theora", "vorbis", "opus", "flac", "speex", "vp8"].contains($0) })
        {
            throw PlanError(
                """
                write output: this Ogg carries \(other) in OGM headers, which FFmpeg reads but cannot write back; \
                remux it into Matroska (mkvmerge -o clip.mkv clip.ogm) and fix that; nothing written
                """)
        }
        if facts.container.keptByFix { return true }
        if facts.container == .adts || facts.container.convertedByFix { return false }
        // Other audio-only files (MP3) keep their format: one that is already right is copied; one encoded
        // again gets a LAME header that says its delay and padding.
        if noop || (facts.container == .mp3 && reencodesAudio) { return true }
        if facts.container == .mp3 {
            throw PlanError(
                """
                write output: an MP3 says its priming and padding only in a LAME header, which loopprep cannot \
                write around copied frames; --reencode-audio encodes it again with one; nothing written
                """
            )
        }
        throw PlanError(
            """
            write output: loopprep cannot write \(facts.container) files yet, and would not change this one's \
            format behind your back; nothing written
            """
        )
    }

    /// AVI stores decode order only: a video codec that may show frames in another order (B-frames) has no
    /// presentation times to copy. Codecs with no B-frames at all (intra-only, and MS-MPEG4, H.263 and their kin)
    /// never do; another is looked at: FFmpeg's analysis of the stream (an SPS's reorder depth of 0, an MPEG-4
    /// VOL's low-delay flag) says it shows its frames as it stores them.
    static func refuseReordered(_ facts: ClipFacts) throws {
        let neverReorders: Set = [
            "mjpeg", "prores", "dnxhd", "rawvideo", "png", "ffv1", "huffyuv", "utvideo", "dvvideo", "msmpeg4v1",
            "msmpeg4v2", "msmpeg4v3", "wmv1", "wmv2", "h263", "h263p", "h261", "flv1", "vp8", "cinepak", "mjpegb",
        ]
        guard facts.container == .avi,
            let video = facts.videoTracks.first(where: { v in
                !neverReorders.contains(v.codec) && !(v.codec == "h264" && (v.profile ?? "").contains("Baseline"))
                    && v.reorderDepth != 0
            })
        else { return }
        throw PlanError(
            """
            convert: AVI keeps no presentation times and this \
            \(video.codec)\(video.profile.map { " (\($0))" } ?? "") may show its frames in another order than \
            it stores them, so loopprep cannot copy it exactly; re-encode it first
            """
        )
    }

    /// A path without its extension (the last component's last dot), in plain string terms.
    static func stem(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path }
        return String(path[..<dot])
    }
}
