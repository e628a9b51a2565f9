/// `first-frame-not-keyframe`: the first presented frame must be a sync sample, or the player has to decode
/// from an earlier keyframe (or shows garbage) at every loop restart. Also catches an edit list starting mid-GOP.
package struct FirstFrameNotKeyframe: Rule {
    public let ids: [RuleID] = [.firstFrameNotKeyframe]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        clip.videoTracks.compactMap { track in
            guard track.firstFrameIsKeyframe == false else { return nil }
            let viaEdit =
                (track.edits?.contains { ($0.mediaTime ?? 0) > 0 } ?? false) ? " (the edit list starts mid-GOP)" : ""
            return Finding(
                rule: ids[0], severity: .error, track: track.index,
                message: "\(Figures.trackName(track)): the first presented frame is not a keyframe\(viaEdit)",
                hint: "start on a keyframe: loopprep fix (or --reencode-head to keep the leading frames)")
        }
    }
}
