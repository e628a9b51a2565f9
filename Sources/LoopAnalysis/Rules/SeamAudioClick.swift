import Foundation

/// `seam-audio-click`: where the last presented sample jumps to the first, the speaker clicks. Measured per
/// channel as how far the first sample lands from where the last samples were heading.
package struct SeamAudioClick: Rule {
    public let ids: [RuleID] = [.seamAudioClick]
    public init() {}

    /// About -26 dBFS: a step that size is an audible click on any material (a project may set its own).
    public static let threshold = 0.05
    /// How much farther than the wave jumps on its own the wrap must jump to be heard as a click.
    public static let beyondInside = 2.0

    /// The largest jump anywhere in `tail` or in `head` (each on its own, the wrap left out), by `audioJump`'s
    /// measure: where a sample lands from where the wave was heading, the mean of the slopes on either side of it.
    public static func insideJump(tail: [Float], head: [Float]) -> Double {
        func largest(_ s: [Float]) -> Double {
            guard s.count >= 4 else { return 0 }
            var most = 0.0
            for n in 2..<(s.count - 1) {
                let slopes = Double(s[n - 1] - s[n - 2]) + Double(s[n + 1] - s[n])
                most = max(most, abs(Double(s[n]) - (Double(s[n - 1]) + slopes / 2)))
            }
            return most
        }
        return max(largest(tail), largest(head))
    }

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        guard let seam = clip.seam, let track = clip.mainAudio else { return [] }
        // A jump counts where the wave does not jump as far on its own (noise, dense music: a wrap no rougher than
        // the inside is no click).
        let rough = seam.audioRoughness ?? []
        let heard = (seam.audioJump ?? []).enumerated().map { c, jump in
            jump > Self.beyondInside * (c < rough.count ? rough[c] : 0) ? jump : 0
        }
        guard let (channel, jump) = heard.enumerated().max(by: { $0.element < $1.element }) else { return [] }
        let wraps = clip.seam?.audioWrap ?? []
        let (wrapChannel, wrap) = wraps.enumerated().max(by: { $0.element < $1.element }) ?? (0, 0)
        let limit = options.threshold(ids[0])
        guard max(jump, wrap) > limit else { return [] }
        // The larger of the two says it: a step at the wrap, or a wave broken across a few samples of it.
        let (figure, at) = jump >= wrap ? (jump, channel) : (wrap, wrapChannel)
        let db = 20 * log10(figure)
        let size = String(format: "%.3f", figure)
        let what =
            jump >= wrap
            ? "the audio jumps by \(size) of full scale"
            : "the audio's wave breaks by \(size) of full scale within a few samples of the wrap"
        return [
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message: "\(what) (\(String(format: "%.1f", db)) dBFS) at the loop point on channel \(at + 1)",
                // (A fade encodes the audio again: where FFmpeg cannot, the sound must be cut where it repeats.)
                hint: track.noEncoder == true
                    ? "cut where the sound repeats, in an editor (FFmpeg here cannot encode \(track.codec) to fade it)"
                    : "fade the seam: loopprep fix --seam-fade 10ms",
                figures: ["jump": figure, "channel": Double(at + 1)])
        ]
    }

    /// Samples either side of the wrap in which a break counts as the wrap's.
    public static let wrapSpan = 8

    /// How much sharper the wave turns across the wrap than around it: the largest second difference
    /// |x[n+1] - 2x[n] + x[n-1]| within `wrapSpan` samples of the wrap, less the largest farther out (the signal's
    /// own sharpest change: a 440 Hz tone's is 0.003 of its amplitude, music's more). `tail`: the loop's last
    /// samples, `head`: its first. 0 where the wrap is as smooth as the rest.
    public static func wrapExcess(tail: [Float], head: [Float]) -> Double {
        let s = (tail + head).map(Double.init)
        let wrap = tail.count
        guard s.count >= 3, !tail.isEmpty, !head.isEmpty else { return 0 }
        var near = 0.0
        var far = 0.0
        for n in 1..<(s.count - 1) {
            let d2 = abs(s[n + 1] - 2 * s[n] + s[n - 1])
            let distance = n < wrap ? wrap - n : n - wrap + 1
            if distance <= wrapSpan { near = max(near, d2) } else if distance > 2 * wrapSpan { far = max(far, d2) }
        }
        return max(0, near - far)
    }
}
