import Foundation

/// --seam-fade: the audio faded out before every loop point and in after it, so the seam is silent for an
/// instant instead of clicking.
package enum SeamFade {
    /// Gain of sample `n` of `count`: a half-Hann fade-in over the first `length` samples and fade-out over
    /// the last `length`.
    public static func gain(_ n: Int64, _ count: Int64, _ length: Int64) -> Float {
        func ramp(_ k: Int64) -> Float {
            k >= length ? 1 : Float(0.5 - 0.5 * cos(Double.pi * Double(k) / Double(length)))
        }
        return ramp(n) * ramp(count - 1 - n)
    }
}
