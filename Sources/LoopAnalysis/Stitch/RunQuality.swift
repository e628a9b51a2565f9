/// The quality a re-encoded run is made at (x264's constant rate factor), from the quantizers of the source
/// pictures it was drawn from. A fixed fine quality spent on a coarsely coded source reproduces the source's own
/// coding noise at great cost: joins of 5 Mb/s fractal footage came out at 40 Mb/s and took most of a stitch's
/// time. Six quantizer steps halve the quantizer's step, so re-coding at the source's mean quantizer less six adds
/// a quarter of the noise (in power) the source already has, about 1 dB; never finer than `finest`, which keeps
/// a join transparent on any source.
package enum RunQuality {
    /// What every run was made at before its source was measured, and the finest one is made at.
    public static let finest = 17
    /// The coarsest (x264 goes to 51): a source coded coarser than this plus six is still re-coded finer.
    public static let coarsest = 40
    /// Quantizer steps finer than the source's.
    public static let margin = 6

    /// `quantizers`: the mean quantizer of each source picture (H.264: base plus macroblock deltas); none (a
    /// codec whose decoder does not say) gives `finest`.
    public static func rateFactor(sourceQuantizers quantizers: [Int]) -> Int {
        guard !quantizers.isEmpty else { return finest }
        let mean = (quantizers.reduce(0, +) + quantizers.count / 2) / quantizers.count
        return min(max(mean - margin, finest), coarsest)
    }

    /// x264's preset for a run: superfast's search, or ultrafast's (no sub-pixel refinement, partition choice
    /// or deblocking) where every picture it is drawn from was coded with no more than that: x264's subme=0, as
    /// the settings text x264 writes into its streams says (`x264Subme`, one per source clip; nil: not x264, or
    /// it did not say). A run is then searched no harder than the pictures it sits among were, coded with their
    /// tools, in about two thirds of the time.
    public static func preset(x264Subme subme: [Int?]) -> String {
        !subme.isEmpty && subme.allSatisfy { $0 == 0 } ? "ultrafast" : "superfast"
    }
}
