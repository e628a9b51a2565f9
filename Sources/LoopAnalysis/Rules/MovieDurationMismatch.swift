/// `movie-duration-mismatch`: an MP4/MOV whose movie header (mvhd) gives a length other than where its tracks
/// end. AVFoundation takes the asset's duration from it, so AVPlayerLooper loops over that range: longer, and the
/// player holds the last frame in silence before each loop; shorter, and it cuts the clip. Fragmented files keep
/// their length elsewhere (mehd, the fragments) and are not checked.
public struct MovieDurationMismatch: Rule {
    public let ids = ["movie-duration-mismatch"]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        guard let header = clip.movieDuration, let timescale = clip.movieTimescale, timescale > 0, clip.fragmented != true,
              let end = clip.tracks.map(\.endSeconds).max() else { return [] }
        // Muxers round the header to whole movie ticks: a tick either way is exact enough.
        let difference = header - end, tick = Rational(1, timescale)
        guard difference > tick || difference < .zero - tick else { return [] }
        let longer = difference > .zero
        let size = longer ? difference : .zero - difference
        return [Finding(
            rule: ids[0], severity: .warning,
            message: "the movie header says \(Figures.seconds(header)) but the tracks end at \(Figures.seconds(end)): "
                + (longer ? "a looping player waits \(Figures.ms(size)) at the end of every loop" : "players cut the last \(Figures.ms(size))"),
            hint: "rewrite the header: loopprep fix",
            figures: ["ms": Figures.msValue(difference)])]
    }
}
