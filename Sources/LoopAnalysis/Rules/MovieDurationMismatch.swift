/// `movie-duration-mismatch`: an MP4/MOV whose movie header (mvhd), or a Matroska/WebM whose Segment Duration,
/// gives a length other than where its tracks end. AVFoundation takes the asset's duration from the one, browsers
/// and FFmpeg from the other, so a looping player loops over that range: longer, and it holds the last frame in
/// silence before each loop; shorter, and it cuts the clip. Fragmented files keep their length elsewhere (mehd,
/// the fragments) and are not checked.
package struct MovieDurationMismatch: Rule {
    public let ids: [RuleID] = [.movieDurationMismatch]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
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
