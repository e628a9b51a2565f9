/// `moov-at-end`: an MP4/MOV whose movie box follows the media data cannot start playing until it is all
/// downloaded (or the player issues a range request to the end): a slow start for play-while-download.
package struct MoovAtEnd: Rule {
    public let ids: [RuleID] = [.moovAtEnd]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        guard clip.moovBeforeMdat == false else { return [] }
        return [
            Finding(
                rule: ids[0], severity: .warning,
                message: "the moov box follows mdat: playback cannot start until the end of the file is fetched",
                hint: "move moov first (faststart): loopprep fix")
        ]
    }
}
