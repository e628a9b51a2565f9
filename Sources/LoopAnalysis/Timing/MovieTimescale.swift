/// An MP4 movie timescale every track's clock divides, so each edit list duration is exact.
package enum MovieTimescale {
    /// The least common multiple of `scales` (ticks a second), or `fallback` where it passes 2^31 - 1 (mvhd
    /// and elst hold 32-bit timescales).
    public static func common(_ scales: [Int64], fallback: Int64) -> Int64 {
        var l: Int64 = 1
        for s in scales where s > 0 {
            let g = gcd(l, s)
            let (next, overflow) = (l / g).multipliedReportingOverflow(by: s)
            if overflow || next > Int64(Int32.max) { return fallback }
            l = next
        }
        return Swift.max(l, 1)
    }

    public static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
}
