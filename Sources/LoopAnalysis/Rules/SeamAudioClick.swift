import Foundation

/// `seam-audio-click`: where the last presented sample jumps to the first, the speaker clicks. Measured per
/// channel as how far the first sample lands from where the last samples were heading.
package struct SeamAudioClick: Rule {
    public let ids: [RuleID] = [.seamAudioClick]
    public init() {}

    /// About -26 dBFS: a step that size is an audible click on any material (a project may set its own).
    public static let threshold = 0.05

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        guard let jumps = clip.seam?.audioJump, let track = clip.mainAudio,
            let (channel, jump) = jumps.enumerated().max(by: { $0.element < $1.element }),
            jump > options.threshold(ids[0])
        else { return [] }
        let db = 20 * log10(jump)
        return [
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    the audio jumps by \(String(format: "%.3f", jump)) of full scale \
                    (\(String(format: "%.1f", db)) dBFS) at the loop point on channel \(channel + 1)
                    """,
                hint: "fade the seam: loopprep fix --seam-fade 10ms",
                figures: ["jump": jump, "channel": Double(channel + 1)])
        ]
    }
}
