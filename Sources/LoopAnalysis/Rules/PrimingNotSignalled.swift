/// `priming-not-signalled`: AAC encoders prepend priming samples (1024 from FFmpeg, 2112 from Apple's), MP3 encoders
/// theirs (LAME: 576, plus the 529 every decoder adds) and say it only in a LAME header. Unless an
/// edit list (or skip-samples) hides them, every loop starts with that silence: an audible gap at the seam.
package struct PrimingNotSignalled: Rule {
    public let ids: [RuleID] = [.primingNotSignalled]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        clip.audioTracks.compactMap { track in
            guard let priming = track.priming, !priming.signalled else { return nil }
            let why = track.edits == nil ? "no edit list" : "the edit list starts at 0"
            let usual = track.codec == "mp3" ? "1105 samples (LAME's delay and the decoder's)" : "1024 or 2112 samples"
            return Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    \(Figures.trackName(track)) presents its encoder priming (\(why)): usually \(usual) of silence at \
                    every loop
                    """,
                hint: "signal the priming with an edit list: loopprep fix")
        }
    }
}
