/// What the eye sees at a seam, judged against the clip's own changes around it. A mean luma
/// difference cannot tell a sparse picture's cut (Game of Life: 6.8 against 2.4 of motion) from its motion;
/// structural similarity (SSIM on the 64x36 luma, 8x8 windows every 4 pixels) can: across a real repeat the last
/// frame is as like the first as neighbouring frames are alike (0.01-0.05 of dissimilarity); across a cut in
/// such footage it is many times less alike (0.3). Footage whose neighbouring frames are already half unlike
/// (noise) has no structure to repeat.
public enum SeamStructure {
    public enum Verdict: String, Sendable {
        /// The seam changes the picture no more than its neighbours change it.
        case seamless
        /// The seam changes the picture's structure far more than the frames around it do: a visible cut.
        case cut
        /// Neighbouring frames are already mostly unlike (noise): nothing in the picture can repeat.
        case noStructure
    }

    /// Below this dissimilarity (1 - SSIM) a seam is never a cut, whatever the motion around it.
    public static let floor = 0.1
    /// Neighbouring frames this unlike, on average, have no structure that could repeat.
    public static let unstructured = 0.3

    /// Above this dissimilarity, and three times the step beside it on the same side of the seam, a step between
    /// neighbouring frames is a cut in the footage itself (unrelated pictures: 0.7-1; a new shot on the loop's
    /// last frame), not how it moves: motion lasts (a slide's steps, 0.67 then 0.81), a cut is one step.
    public static let footageCut = 0.6

    /// The four steps around a seam (the loop's last two transitions, its first two) without those that are cuts
    /// in the footage (`footageCut`); fewer than four are kept as they are.
    static func withoutFootageCuts(_ steps: [Double]) -> [Double] {
        guard steps.count == 4 else { return steps }
        let partner = [1, 0, 3, 2]
        return steps.indices.filter { k in !(steps[k] > footageCut && steps[k] > 3 * steps[partner[k]]) }
            .map { steps[$0] }
    }

    /// The seam's dissimilarity against those of the frame pairs around it (the loop's last two transitions and
    /// its first two): a cut where it exceeds the floor and twice their mean, and stands out from them: by four
    /// spreads above their mean, or by half again above the largest of them (fast motion: a car passing close
    /// makes one or two neighbouring steps 0.3-0.5 unlike, and their spread alone would hide a seam of 0.9).
    /// Steps that are cuts in the footage itself (`footageCut`) are left out.
    /// Neighbours mostly unlike (noise) are no structure, unless the seam is such a cut beyond them.
    /// `floor`: a project's seam-visual-jump threshold scales it (SeamVisualJump.structureFloor).
    public static func verdict(seam: Double, neighbours: [Double], floor: Double = floor) -> Verdict {
        guard !neighbours.isEmpty else { return seam > Swift.max(floor, 0.3) ? .cut : .seamless }
        let steps = withoutFootageCuts(neighbours)
        let mean = steps.reduce(0, +) / Double(steps.count)
        let spread = (steps.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(steps.count)).squareRoot()
        let standsOut = min(mean + 4 * max(spread, 0.01), 1.5 * (steps.max() ?? 0))
        if seam > max(floor, 2 * mean, standsOut) { return .cut }
        return mean > unstructured ? .noStructure : .seamless
    }

    /// 1 - the mean SSIM of two grey pictures of `width` x `height` (row by row), over 8x8 windows every 4 pixels:
    /// 0 for the same picture, about 0.5 for unrelated noise, up to 1 for opposite structure.
    public static func dissimilarity(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double {
        guard a.count >= width * height, b.count >= width * height, width >= 8, height >= 8 else { return 0 }
        let c1 = (0.01 * 255) * (0.01 * 255)
        let c2 = (0.03 * 255) * (0.03 * 255)
        var total = 0.0
        var windows = 0
        for y in stride(from: 0, through: height - 8, by: 4) {
            for x in stride(from: 0, through: width - 8, by: 4) {
                var (sa, sb, saa, sbb, sab) = (0, 0, 0, 0, 0)
                for row in y..<(y + 8) {
                    for k in (row * width + x)..<(row * width + x + 8) {
                        let (p, q) = (Int(a[k]), Int(b[k]))
                        sa += p
                        sb += q
                        saa += p * p
                        sbb += q * q
                        sab += p * q
                    }
                }
                let n = 64.0
                let (ma, mb) = (Double(sa) / n, Double(sb) / n)
                let va = Double(saa) / n - ma * ma
                let vb = Double(sbb) / n - mb * mb
                let cov = Double(sab) / n - ma * mb
                total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
                windows += 1
            }
        }
        return windows == 0 ? 0 : 1 - total / Double(windows)
    }
}
