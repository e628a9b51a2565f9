/// `timestamp-gap`: holes (missing frames, pts jumps) or overlaps inside a track, a last frame whose odd
/// duration moves where the track ends, and decode times a muxer bumped a tick apart (a reader that takes a frame's
/// length from its decode step ends the track early). Players freeze or skip at a hole; an odd last frame shifts the
/// seam.
package struct TimestampGap: Rule {
    public let ids: [RuleID] = [.timestampGap]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        clip.tracks.flatMap { track in breaks(track, clip) + lastFrame(track) + bumped(track) + captured(track) }
    }

    /// Audio packets a capture clock stamped apart from their samples (a browser's recording): every decoder plays
    /// them back to back, and a player that places them by their stamps leaves slivers of silence or overlaps.
    func captured(_ track: TrackFacts) -> [Finding] {
        guard let count = track.relaidStamps else { return [] }
        return [
            Finding(
                rule: ids[0], severity: .info, track: track.index,
                message:
                    """
                    \(Figures.trackName(track)): \(count) packet\(count == 1 ? "" : "s") stamped apart from where the \
                    decoder plays \(count == 1 ? "it" : "them") (back to back; a capture clock's or a joined stream's \
                    stamps): read as played
                    """,
                hint: "write the stamps end to end: loopprep fix",
                figures: ["count": Double(count)])
        ]
    }

    /// Decode times a muxer bumped a tick after a repeated one: the frames are where their presentation times say,
    /// but their decode steps (1 tick, then 6005) are no frame's length.
    func bumped(_ track: TrackFacts) -> [Finding] {
        guard let count = track.relaidDecodeTimes else { return [] }
        return [
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    \(Figures.trackName(track)): \(count) decode time\(count == 1 ? "" : "s") a tick after the one \
                    before (a muxer's bump of a repeated time, as the ffmpeg CLI's "Non-monotonous DTS" makes): a \
                    player that ends a frame at its decode step ends the track early
                    """,
                hint: "lay the decode times a frame apart: loopprep fix",
                figures: ["count": Double(count)])
        ]
    }

    func breaks(_ track: TrackFacts, _ clip: ClipFacts) -> [Finding] {
        guard track.timingBreakCount > 0,
            let worst = track.timingBreaks.max(by: { $0.length.magnitude < $1.length.magnitude })
        else { return [] }
        let holes = track.timingBreaks.filter { $0.length > 0 }.count
        let size = Rational(Int64(clamping: worst.length.magnitude)) * track.timeBase
        var parts = [Figures.ms(size)]
        if let fps = track.frameRate { parts.append(Figures.frames(size, frameRate: fps)) }
        if let rate = track.sampleRate { parts.append(Figures.samples(size, rate: rate)) }
        let at = Figures.seconds(Rational(worst.at) * track.timeBase)
        let kinds = holes == track.timingBreaks.count ? "hole" : (holes == 0 ? "overlap" : "hole or overlap")
        let count = track.timingBreakCount
        return [
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    \(Figures.trackName(track)): \(count) timestamp \(kinds)\(count == 1 ? "" : "s"); the largest \
                    is \(parts.joined(separator: " = ")) at \(at)
                    """,
                hint: "re-encode with constant timestamps, or cut the clip before the break",
                figures: ["ms": Figures.msValue(size), "count": Double(count)])
        ]
    }

    /// A last frame lasting more than 1.5 or less than 0.5 nominal frames ends the track somewhere else than
    /// the frame count says. Where the rate varies, a last frame as long as the longest step (or as short as the
    /// shortest) is one of its frames.
    func lastFrame(_ track: TrackFacts) -> [Finding] {
        guard let last = track.lastFrameDuration, let nominal = track.nominalFrameDuration, nominal > 0 else {
            return []
        }
        let steps = track.variableFrameRate.map { ($0.shortest.ticks, $0.longest.ticks) }
        let (shortest, longest) = steps ?? (Rational(nominal), Rational(nominal))
        guard Rational(2 * last) > longest * 3 || Rational(2 * last) < shortest else { return [] }
        let shift = Rational(last - nominal) * track.timeBase
        let direction = shift.isNegative ? "earlier" : "later"
        return [
            Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    \(Figures.trackName(track)): the last frame lasts \
                    \(Figures.ms(Rational(last) * track.timeBase)) instead of \
                    \(Figures.ms(Rational(nominal) * track.timeBase)); the track ends \
                    \(Figures.ms(shift.magnitude)) \(direction) than its frame count says
                    """,
                hint: "set the last frame's duration to one frame: loopprep fix",
                figures: ["ms": Figures.msValue(shift)])
        ]
    }
}
