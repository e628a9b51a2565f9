/// `not-playable-on-target`: a codec or container the target's player cannot play at all.
/// apple: H.264, HEVC, ProRes; AAC, ALAC, PCM; MP4/MOV. web adds VP9, AV1, Opus and WebM.
public struct NotPlayableOnTarget: Rule {
    public let ids = ["not-playable-on-target"]
    public init() {}

    static let appleVideo: Set = ["h264", "hevc", "prores"]
    static let appleAudio: Set = ["aac", "alac"]
    static let appleContainers: Set = ["mp4", "mov"]

    static func playable(codec: String, kind: TrackKind, target: Target) -> Bool {
        switch kind {
        case .video: return appleVideo.contains(codec) || (target == .web && ["vp9", "av1"].contains(codec))
        case .audio: return appleAudio.contains(codec) || codec.hasPrefix("pcm_") || (target == .web && codec == "opus")
        default: return true
        }
    }

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        var findings: [Finding] = []
        let containers = Self.appleContainers.union(options.target == .web ? ["webm"] : [])
        if !containers.contains(clip.container) {
            findings.append(Finding(
                rule: ids[0], severity: .error,
                message: "the \(clip.container) container is not playable on the \(options.target.rawValue) target",
                hint: "remux or re-encode to MP4" + (options.target == .apple ? " (or use --target web for WebM)" : "")))
        }
        for track in clip.tracks where !Self.playable(codec: track.codec, kind: track.kind, target: options.target) {
            findings.append(Finding(
                rule: ids[0], severity: .error, track: track.index,
                message: "\(Figures.trackName(track)) is not playable on the \(options.target.rawValue) target",
                hint: track.kind == .video ? "re-encode the video to H.264 or HEVC" : "re-encode the audio to AAC"))
        }
        return findings
    }
}
