/// `start-offset`: a track whose presented range does not start at 0 (an empty edit, a B-frame delay with no
/// edit list, a first timestamp above zero) starts later than the others, and the loop restarts early for it.
package struct StartOffset: Rule {
    public let ids: [RuleID] = [.startOffset]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        let halfFrame = (clip.mainVideo?.frameSeconds ?? .zero) * Rational(1, 2)
        let halfSample = clip.audioTracks.compactMap(\.sampleRate).max().map { Rational(1, 2 * Int64($0)) } ?? .zero
        return clip.tracks.filter { $0.kind == .video || $0.kind == .audio }.compactMap { track in
            let offset = track.startSeconds
            // Below one tick of a container without edit lists (Matroska: 1 ms) nothing finer can be stored.
            let resolution = clip.timestampResolution
            guard !offset.isZero, offset.magnitude > resolution,
                offset.magnitude > halfSample || (track.kind == .video && resolution.isZero)
            else { return nil }
            let severity: Severity = offset.magnitude > halfFrame ? .error : .warning
            var parts = [Figures.ms(offset.magnitude)]
            if let rate = track.sampleRate { parts.append(Figures.samples(offset.magnitude, rate: rate)) }
            if let fps = clip.mainVideo?.frameRate { parts.append(Figures.frames(offset.magnitude, frameRate: fps)) }
            let direction = offset.isNegative ? "before" : "after"
            return Finding(
                rule: ids[0], severity: severity, track: track.index,
                message: "\(Figures.trackName(track)) starts \(parts.joined(separator: " = ")) \(direction) 0",
                hint: "rebase every track to start at 0 on a keyframe: loopprep fix",
                figures: ["ms": Figures.msValue(offset)])
        }
    }
}
