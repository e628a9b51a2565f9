/// `not-playable-on-target`: a codec or container the target's player cannot play at all. The tables and their
/// sources (Apple's AVFoundation formats, MDN's guides to web containers, video and audio codecs) are in
/// docs/playability.md; where a browser plays a codec only with some hardware (HEVC in Chrome, AV1 in Safari),
/// it counts as not playable.
public struct NotPlayableOnTarget: Rule {
    public let ids: [RuleID] = [.notPlayableOnTarget]
    public init() {}

    struct Table {
        var containers: Set<String>
        var video: Set<String>
        var audio: Set<String>
    }

    /// FFmpeg's names: containers as loopprep reports them ("mp4", "mov", "webm", or FFmpeg's demuxer).
    static let tables: [Target: Table] = [
        .apple: Table(
            containers: ["mp4", "mov", "wav", "mp3", "aac", "aiff", "caf", "flac"],
            video: ["h264", "hevc", "prores", "mjpeg"],
            audio: ["aac", "alac", "mp3", "ac3", "eac3", "flac"]),
        .chrome: Table(
            containers: ["mp4", "webm", "ogg", "wav", "mp3", "aac", "flac"],
            video: ["h264", "vp8", "vp9", "av1"],
            audio: ["aac", "mp3", "opus", "vorbis", "flac"]),
        .firefox: Table(
            containers: ["mp4", "webm", "ogg", "wav", "mp3", "aac", "flac"],
            video: ["h264", "vp8", "vp9", "av1"],
            audio: ["aac", "mp3", "opus", "vorbis", "flac"]),
        .safari: Table(
            containers: ["mp4", "mov", "webm", "wav", "mp3", "aac", "flac"],
            video: ["h264", "hevc", "vp8", "vp9"],
            audio: ["aac", "alac", "mp3", "opus", "ac3", "eac3", "flac"]),
    ]

    /// `web`: what Chrome, Firefox and Safari all play.
    static func table(_ target: Target) -> Table {
        if let table = tables[target] { return table }
        let browsers = [Target.chrome, .firefox, .safari].compactMap { tables[$0] }
        return browsers.dropFirst().reduce(browsers[0]) { a, b in
            Table(
                containers: a.containers.intersection(b.containers), video: a.video.intersection(b.video),
                audio: a.audio.intersection(b.audio))
        }
    }

    static func playable(codec: String, kind: TrackKind, target: Target) -> Bool {
        let t = table(target)
        switch kind {
        // Uncompressed PCM plays everywhere it can be stored (MOV, WAV); MP4 cannot store it.
        case .video: return t.video.contains(codec)
        case .audio: return t.audio.contains(codec) || codec.hasPrefix("pcm_")
        default: return true
        }
    }

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        var findings: [Finding] = []
        let t = Self.table(options.target)
        if !t.containers.contains(clip.container) {
            findings.append(
                Finding(
                    rule: ids[0], severity: .error,
                    message: "the \(clip.container) container is not playable on the \(options.target.rawValue) target",
                    hint: ["mp4", "mov", "matroska", "webm"].contains(clip.container)
                        ? "remux or re-encode to MP4"
                            + (clip.container == "webm" ? " (or use --target web for WebM)" : "")
                        : "loopprep fix writes an MP4 beside it"))
        }
        // Apple's players (and Safari) want HEVC as hvc1, parameter sets in the sample entry, and H.264 no
        // further than High (8-bit 4:2:0).
        if [.apple, .safari].contains(options.target) {
            for track in clip.videoTracks where track.codec == "hevc" && track.codecTag == "hev1" {
                findings.append(
                    Finding(
                        rule: ids[0], severity: .error, track: track.index,
                        message:
                            """
                            \(Figures.trackName(track)) is tagged hev1, which AVFoundation and Safari do not play \
                            (they want hvc1)
                            """,
                        hint: "retag it hvc1: loopprep fix"))
            }
            for track in clip.videoTracks
            where track.codec == "h264"
                && ["High 10", "High 4:2:2", "High 4:4:4 Predictive", "High 10 Intra", "High 4:4:4"].contains(
                    track.profile ?? "")
            {
                findings.append(
                    Finding(
                        rule: ids[0], severity: .error, track: track.index,
                        message:
                            """
                            \(Figures.trackName(track)) is H.264 \(track.profile ?? ""), which iOS and Safari do \
                            not play (High, 8-bit 4:2:0, at most)
                            """,
                        hint: "re-encode the video to H.264 High or HEVC Main 10"))
            }
        }
        for track in clip.tracks where !Self.playable(codec: track.codec, kind: track.kind, target: options.target) {
            findings.append(
                Finding(
                    rule: ids[0], severity: .error, track: track.index,
                    message: "\(Figures.trackName(track)) is not playable on the \(options.target.rawValue) target",
                    hint: track.kind == .video
                        ? "re-encode the video to H.264" + (options.target == .apple ? " or HEVC" : "")
                        : "re-encode the audio to AAC"))
        }
        return findings
    }
}
