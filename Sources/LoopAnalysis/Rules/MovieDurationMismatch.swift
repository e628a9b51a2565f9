/// `movie-duration-mismatch`: an MP4/MOV whose movie header (mvhd), or a Matroska/WebM whose Segment Duration,
/// gives a length other than where its tracks end. AVFoundation takes the asset's duration from the one, browsers
/// and FFmpeg from the other, so a looping player loops over that range: longer, and it holds the last frame in
/// silence before each loop; shorter, and it cuts the clip. Fragmented files keep their length elsewhere (mehd,
/// the fragments) and are not checked. A Matroska file with no Duration or no Cues (a recording written as it went)
/// is said too: players show no length and cannot seek in it.
package struct MovieDurationMismatch: Rule {
    /// A Matroska file's missing Duration and Cues, and what players then cannot do, in words; nil where it has both
    /// (or is another container). Cues matter where there is a picture to seek in (FFmpeg writes none for a short
    /// audio-only file, whose blocks a player bisects).
    static func missing(_ clip: ClipFacts) -> (what: String, effect: String)? {
        guard clip.isMatroska, let cues = clip.cues else { return nil }
        let noDuration = clip.movieDuration == nil
        let noCues = !cues && clip.tracks.contains { $0.kind == .video }
        switch (noDuration, noCues) {
        case (true, true): return ("no Duration and no Cues", "players show no length and cannot seek in it")
        case (true, false): return ("no Duration", "players show no length")
        case (false, true): return ("no Cues", "players cannot seek in it")
        case (false, false): return nil
        }
    }

    /// The finding for a Matroska file with no Duration or no Cues.
    func recorded(_ clip: ClipFacts) -> Finding? {
        guard let missing = Self.missing(clip) else { return nil }
        return Finding(
            rule: ids[0], severity: .info,
            message:
                """
                the file has \(missing.what) (a recorder writing as it goes, MediaRecorder with a timeslice, cannot go \
                back to write them): \(missing.effect)
                """,
            hint: "write them: loopprep fix")
    }

    public let ids: [RuleID] = [.movieDurationMismatch]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        if let recorded = recorded(clip) { return [recorded] }
        guard let header = clip.movieDuration, let timescale = clip.movieTimescale, timescale > 0,
            clip.fragmented != true,
            let end = clip.tracks.map(\.endSeconds).max()
        else { return [] }
        // Muxers round the header to whole movie ticks, and a track's end is known to one tick of its own clock
        // (MP4 gives the last frame shown the step to the next decode time, a tick off its own length where a
        // 90 kHz stream jitters): a tick either way is exact enough.
        let difference = header - end
        let tick = Rational.max(
            Rational(1, timescale),
            clip.tracks.filter { $0.kind == .video || $0.kind == .audio }.map(\.timeBase).max() ?? .zero)
        guard difference > tick || difference < .zero - tick else { return [] }
        let longer = difference > .zero
        let size = longer ? difference : .zero - difference
        // Matroska: ffprobe and the players that read the Duration see the wrong length; whether a browser waits
        // on it while looping varies, so it is said, not failed on.
        if clip.isMatroska {
            return [
                Finding(
                    rule: ids[0], severity: .info,
                    message:
                        """
                        the Segment Duration says \(Figures.seconds(header)) but the tracks end at \
                        \(Figures.seconds(end)): 
                        """
                            + """
                            tools and players that take the file's length from it see \(Figures.ms(size)) \
                            \(longer ? "more" : "less")
                            """,
                    hint: "rewrite the Duration: loopprep fix", figures: ["ms": Figures.msValue(difference)])
            ]
        }
        return [
            Finding(
                rule: ids[0], severity: .warning,
                message:
                    "the movie header says \(Figures.seconds(header)) but the tracks end at \(Figures.seconds(end)): "
                    + (longer
                        ? "a looping player waits \(Figures.ms(size)) at the end of every loop"
                        : "players cut the last \(Figures.ms(size))"),
                hint: "rewrite the header: loopprep fix",
                figures: ["ms": Figures.msValue(difference)])
        ]
    }
}
