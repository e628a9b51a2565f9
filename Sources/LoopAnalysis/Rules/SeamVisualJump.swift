import Foundation

/// `seam-visual-jump`: the last presented frame differs from the first much more than neighbouring frames
/// differ from each other, so the loop point shows as a cut.
public struct SeamVisualJump: Rule {
    public let ids: [RuleID] = [.seamVisualJump]
    public init() {}

    /// Below this mean luma difference (of 255) a cut is not noticeable whatever the motion (a project may set
    /// its own: `.loopprep.json` thresholds).
    public static let floor = 6.0

    /// The rule itself, on figures (also how loop judges a candidate before writing it).
    public static func isCut(difference: Double, motion: Double, threshold: Double) -> Bool {
        difference > max(threshold, 3 * motion)
    }

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        guard let difference = clip.seam?.videoDifference, let track = clip.mainVideo else { return [] }
        let motion = clip.seam?.videoMotion ?? 0
        guard Self.isCut(difference: difference, motion: motion, threshold: options.threshold(ids[0])) else {
            return []
        }
        return [
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    the last frame differs from the first by \(String(format: "%.1f", difference)) (mean luma \
                    difference of 255) against \(String(format: "%.1f", motion)) between the last two frames: the \
                    loop point shows as a cut
                    """,
                hint: "cut the clip where the picture repeats, or stitch it with --loop and a crossfade",
                figures: ["difference": difference, "motion": motion])
        ]
    }
}
