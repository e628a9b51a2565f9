/// `empty-track`: an audio or video track with no samples, or whose edit list presents none. Players differ: some
/// wait on it, some give the movie a zero or wrong length, some refuse the file. fix leaves it out.
package struct EmptyTrackRule: Rule {
    public let ids: [RuleID] = [.emptyTrack]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        (clip.emptyTracks ?? []).map { track in
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    \(track.kind.rawValue) track \(track.index) (\(track.codec)) is declared but presents nothing \
                    (no samples, or an edit list that shows none)
                    """,
                hint: "drop the track: loopprep fix leaves it out",
                figures: [:])
        }
    }
}
