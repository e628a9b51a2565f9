/// `too-short-to-loop`: a queue-based looper (AVPlayerLooper, AVQueuePlayer) must preload the next item before
/// the current one ends; below about a second it needs several copies queued, or it stalls.
package struct TooShortToLoop: Rule {
    public let ids: [RuleID] = [.tooShortToLoop]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        let tracks = clip.tracks.filter { $0.kind == .video || $0.kind == .audio }
        guard let length = tracks.map(\.endSeconds).max(), length.numerator > 0,
            length < options.minimumLoopSeconds
        else { return [] }
        let repeats = ceilDiv(options.minimumLoopSeconds, length)
        return [
            Finding(
                rule: ids[0], severity: .warning,
                message:
                    """
                    the clip lasts \(Figures.ms(length)), under \(Figures.seconds(options.minimumLoopSeconds)): a \
                    queue looper needs \(repeats) copies to reach it
                    """,
                hint: "unroll it: loopprep fix --unroll \(Figures.decimal(options.minimumLoopSeconds, places: 1))",
                figures: ["ms": Figures.msValue(length), "repeats": Double(repeats)])
        ]
    }

    func ceilDiv(_ a: Rational, _ b: Rational) -> Int64 {
        let q = a / b
        return q.denominator == 1 ? q.numerator : q.floor + 1
    }
}
