import Foundation

/// `seam-visual-jump`: the last presented frame differs from the first much more than neighbouring frames
/// differ from each other, so the loop point shows as a cut.
package struct SeamVisualJump: Rule {
    /// What a user does about it: loop finds where the picture repeats.
    static let hint =
        "loopprep loop finds where the picture repeats and cuts there (or blends the wrap: --crossfade 0.4)"
    public let ids: [RuleID] = [.seamVisualJump]
    public init() {}

    /// Below this mean luma or chroma difference (SeamPicture, of 255) a cut is not noticeable whatever the
    /// motion (a project may set its own: `.loopprep.json` thresholds).
    public static let floor = 6.0

    /// The rule itself, on figures (also how loop judges a candidate before writing it): the mean luma step
    /// against the motion (a brightness jump), or the picture's structure against the changes around the seam
    /// (SeamStructure: a sparse picture's cut). `structure`: the seam's dissimilarity and its neighbours'.
    public static func isCut(
        difference: Double, motion: Double, threshold: Double, structure: (seam: Double, neighbours: [Double])? = nil,
        around: [Double] = []
    ) -> Bool {
        isBrightnessCut(difference: difference, motion: motion, threshold: threshold, around: around)
            || structure.map {
                SeamStructure.verdict(seam: $0.seam, neighbours: $0.neighbours, floor: structureFloor(threshold))
                    == .cut
            } == true
    }

    /// The picture step alone (luma or colour, SeamPicture): above the threshold and three times the motion
    /// between the last two frames. Where the clip hardly moves on either side of the seam (each side's smaller step
    /// under a twelfth of the threshold: a slow pan over a smooth picture moves a tenth or two of a level a frame),
    /// the step is judged against that motion instead: above a third of the threshold and ten times the motion, it
    /// jumps what many frames would move, and shows; grain (a still's seam about its motion, 1.5 against 0.9) does
    /// not. A picture that moves into the seam and rests after it (a crossfade between slides that ends at the loop
    /// point: 2.1 against 2.3 a frame) is not still.
    public static func isBrightnessCut(
        difference: Double, motion: Double, threshold: Double, around: [Double] = []
    ) -> Bool {
        // Each side's smaller step (`around`: the last two transitions, then the first two): a pan's encoded steps
        // alternate (0.1, 0.6, 0.1...), and one repeated frame (a 3:2 pulldown's) makes one side look still, not
        // both. Without the four, the second smallest step of those given.
        let still: Double
        if around.count == 4 {
            still = max(min(around[0], around[1], motion), min(around[2], around[3]))
        } else {
            let steps = (around + [motion]).sorted()
            still = steps[min(1, steps.count - 1)]
        }
        if still < threshold / 12 { return difference > max(threshold / 3, 10 * still) }
        return difference > max(threshold, 3 * motion)
    }

    /// The structural floor for a luma threshold: SeamStructure's at the default floor, in proportion to a
    /// project's own (`.loopprep.json` thresholds: 255 turns the rule off either way).
    public static func structureFloor(_ threshold: Double) -> Double { SeamStructure.floor * threshold / floor }

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        guard let difference = clip.seam?.videoDifference, let track = clip.mainVideo else { return [] }
        let motion = clip.seam?.videoMotion ?? 0
        let around = clip.seam?.motionAround ?? []
        let structure = clip.seam?.structure.map { (seam: $0.seam, neighbours: $0.neighbours) }
        guard
            Self.isCut(
                difference: difference, motion: motion, threshold: options.threshold(ids[0]), structure: structure,
                around: around)
        else {
            return []
        }
        if let structure,
            !Self.isBrightnessCut(
                difference: difference, motion: motion, threshold: options.threshold(ids[0]), around: around)
        {
            let around = structure.neighbours.map { String(format: "%.2f", $0) }.joined(separator: ", ")
            return [
                Finding(
                    rule: ids[0], severity: .warning, track: track.index,
                    message:
                        """
                        the picture's structure changes at the loop point by \(String(format: "%.2f", structure.seam)) \
                        (1 - SSIM) against \(around) between the frames around it: the loop point shows as a cut
                        """,
                    hint: Self.hint,
                    figures: ["dissimilarity": structure.seam, "difference": difference, "motion": motion])
            ]
        }
        return [
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    the last frame differs from the first by \(String(format: "%.1f", difference)) (mean luma or \
                    colour difference, of 255) against \(String(format: "%.1f", motion)) between the last two \
                    frames: the loop point shows as a cut
                    """,
                hint: Self.hint,
                figures: ["difference": difference, "motion": motion])
        ]
    }
}
