/// How a loop's Opus audio is encoded again for its web copy so that it decodes without a seam at every wrap.
///
/// A browser does not reset its Opus decoder between two appends, so packets encoded from a cold start (the
/// loop-ready file's first packets) are decoded right after the loop's last ones and ring for about 15 ms. The web
/// copy is instead one period of an encoder that ran over the loop repeated: its first packet was encoded right
/// after the loop's end, so decoding the period again and again is decoding one endless stream. That needs the
/// period to be a whole number of Opus frames, and each frame a whole number of milliseconds (Matroska's clock):
/// a loop of `samples` that is not a multiple of any such frame is appended `loops` loops at a time.
public struct ContinuousOpus: Sendable, Equatable {
    /// Samples (48 kHz) per Opus frame: 20, 10 or 5 ms.
    public var frameSize: Int64
    /// Loops one append holds (one unless the loop's samples are not a whole number of frames).
    public var loops: Int
    /// Samples presented per loop.
    public var samples: Int64

    /// Samples one append holds, a whole number of frames.
    public var period: Int64 { samples * Int64(loops) }
    /// Packets one append holds.
    public var packets: Int64 { period / frameSize }

    /// Frame sizes a Matroska block time can place exactly (whole milliseconds at 48 kHz), longest first.
    public static let frameSizes: [Int64] = [960, 480, 240]

    /// The longest frame whose appends hold at most `longest` samples (one loop an append is always taken), the
    /// fewest loops an append among those; nil when no frame size fits (the loop's own encoding is then appended
    /// as it is) or the loop is empty. Longer frames code better at the same rate.
    public static func plan(samples: Int64, longest: Int64 = 30 * 48_000) -> ContinuousOpus? {
        guard samples > 0 else { return nil }
        return frameSizes.lazy.map { size in
            ContinuousOpus(frameSize: size, loops: Int(size / gcd(samples, size)), samples: samples)
        }.first { $0.loops == 1 || $0.period <= longest }
    }

    /// Whole frames of pre-skip the first append carries: the encoder's own delay rounded up to a frame, so its
    /// packets fall on the same grid as the period's.
    public func preSkipPackets(delay: Int64) -> Int64 { (delay + frameSize - 1) / frameSize }

    /// The sample of the loop an encoder is fed at input position `n`: the loop's tail first (the encoder's
    /// delay made up to whole frames), then the loop from its start, again and again. An encoder that delays its
    /// output by `delay` samples then gives packet `j` decoding to the loop from `(j - preSkipPackets) *
    /// frameSize`.
    public func source(_ n: Int64, delay: Int64) -> Int64 {
        let lead = preSkipPackets(delay: delay) * frameSize - delay
        return ((n - lead) % samples + samples) % samples
    }

    /// The first append's packets (counted from the encoder's first): a cold start, its pre-skip in whole frames,
    /// then the first period.
    public func first(delay: Int64) -> Range<Int64> { 0..<(preSkipPackets(delay: delay) + packets) }

    /// Every later append's packets: the period after the first, encoded right after the loop's end.
    public func kept(delay: Int64) -> Range<Int64> {
        let from = preSkipPackets(delay: delay) + packets
        return from..<(from + packets)
    }

    /// Samples to feed the encoder: up to the end of the later appends' packets and one frame more.
    public func inputLength(delay: Int64) -> Int64 { (kept(delay: delay).upperBound + 1) * frameSize }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
}
