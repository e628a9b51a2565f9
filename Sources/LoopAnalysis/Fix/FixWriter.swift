/// Which writer carries a fix plan out, decided with the plan, so "why did my MP4 go through
/// FFmpeg?" is answered by the plan itself (`fix --format json`'s `plan.writer`, the text report's "written:"
/// line), not by guards in the media layer.
public enum FixWriter: Codable, Sendable, Equatable {
    /// The input already is what fix would write: copied byte for byte.
    case copy
    /// An MP4 or MOV stream copy written from the input's own index (moov first, exact edit lists).
    case index
    /// FFmpeg's muxer for the input's own container, which says the cut itself (Matroska, Ogg, WAV, FLAC, MP3).
    case remux
    /// FFmpeg's MP4 or MOV muxer, then exact edit lists written over its index; `reason`: why not from the index.
    case remuxThenEdit(reason: String)

    /// The writer for a final plan (its conversion decided) of `facts`.
    static func choose(_ plan: FixPlan, facts: ClipFacts, timelines: [Int: TrackTimeline]) -> FixWriter {
        if plan.isNoop { return .copy }
        if let to = plan.convertsTo {
            return .remuxThenEdit(
                reason: "written as \(to == .ipod ? "M4A" : to.rawValue.uppercased()) by FFmpeg's muxer")
        }
        guard facts.isISO else { return .remux }
        if plan.repeats > 1 { return .remuxThenEdit(reason: "the clip is repeated \(plan.repeats) times") }
        if plan.reencodesAudio { return .remuxThenEdit(reason: "the audio is encoded again") }
        if let cut = plan.tracks.first(where: { FixPlanner.outputClocked($0, timelines: timelines) }) {
            return .remuxThenEdit(reason: "\(Figures.trackName(cut)) is written on its core clock")
        }
        if let cut = (plan.tracks + plan.others).first(where: { $0.head != nil || $0.tail != nil }) {
            return .remuxThenEdit(reason: "frames of \(Figures.trackName(cut)) are encoded again")
        }
        if let track = facts.tracks.first(where: { t in
            (plan.tracks + plan.others).contains { $0.index == t.index } && (t.sampleDescriptions ?? 1) != 1
        }) {
            return .remuxThenEdit(
                reason: "\(Figures.trackName(track)) has \(track.sampleDescriptions ?? 0) sample descriptions")
        }
        return .index
    }

    /// In words, for the text report.
    public var description: String {
        switch self {
        case .copy: "copied byte for byte"
        case .index: "from the input's own index (stream copy, moov first)"
        case .remux: "by FFmpeg's muxer (stream copy)"
        case .remuxThenEdit(let reason): "by FFmpeg's muxer, then exact edit lists (\(reason))"
        }
    }
}
