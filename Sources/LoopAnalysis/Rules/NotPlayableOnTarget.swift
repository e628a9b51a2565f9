/// `not-playable-on-target`: a codec or container the target's player cannot play at all (an error), or plays only
/// in part (a warning: Chrome plays MOV from `src` without advertising it; a browser plays HEVC only with the
/// machine's decoder). The tables and their sources (Apple's AVFoundation formats, MDN's guides, and what Chromium
/// did with each clip in scripts/test-browser.sh) are in docs/playability.md.
package struct NotPlayableOnTarget: Rule {
    public let ids: [RuleID] = [.notPlayableOnTarget]
    public init() {}

    struct Table {
        var containers: Set<Container>
        var video: Set<String>
        var audio: Set<String>
        /// Containers played with a caveat (a warning with these words, for MOV in Chrome).
        var containerCaveats: [Container: String] = [:]
        /// Video codecs played only by some machines (a warning with these words, not a flat "not playable").
        var videoCaveats: [String: String] = [:]
        /// (container, codec) pairs the browser does not play though it plays each alone (VP8 video in Ogg in
        /// Firefox; PCM audio in MOV in Firefox), with why.
        var pairs: [String: String] = [:]
    }

    static let hevcByHardware =
        "plays only where the machine has a hardware HEVC decoder (Chrome 107 and later; Firefox through the system's)"

    /// FFmpeg's names: containers as loopprep reports them ("mp4", "mov", "webm", "matroska", or FFmpeg's demuxer).
    static let tables: [Target: Table] = [
        .apple: Table(
            containers: [.mp4, .mov, .wav, .mp3, .adts, .aiff, .caf, .flac],
            video: ["h264", "hevc", "prores", "mjpeg"],
            audio: ["aac", "alac", "mp3", "ac3", "eac3", "flac"],
            videoCaveats: [
                "av1": "plays only where the device decodes AV1 in hardware (iPhone 15 Pro and later, Macs with M3 "
                    + "and later: iOS 17, macOS 14)",
                "mpeg4": "plays only as MPEG-4 Part 2 Simple Profile (no B-frames), the profile AVFoundation lists",
            ]),
        .chrome: Table(
            containers: [.mp4, .mov, .webm, .matroska, .ogg, .wav, .mp3, .adts, .flac],
            video: ["h264", "vp8", "vp9", "av1"],
            audio: ["aac", "mp3", "opus", "vorbis", "flac"],
            containerCaveats: [
                .mov:
                    """
                plays from src, not advertised: Chrome plays it from a <video src>, but canPlayType('video/quicktime') \
                is empty and Media Source Extensions does not take it
                """
            ],
            videoCaveats: ["hevc": hevcByHardware]),
        .firefox: Table(
            containers: [.mp4, .mov, .webm, .matroska, .ogg, .wav, .mp3, .adts, .flac],
            video: ["h264", "vp8", "vp9", "av1"],
            audio: ["aac", "mp3", "opus", "vorbis", "flac"],
            videoCaveats: ["hevc": hevcByHardware],
            pairs: [
                "ogg/vp8": "Firefox shows no video for VP8 in Ogg",
                "mov/pcm": "Firefox drops PCM audio in a MOV",
            ]),
        .safari: Table(
            containers: [.mp4, .mov, .webm, .wav, .mp3, .adts, .flac],
            video: ["h264", "hevc", "vp8", "vp9"],
            audio: ["aac", "alac", "mp3", "opus", "ac3", "eac3", "flac"]),
    ]

    /// `web`: what Chrome, Firefox and Safari all play without a caveat.
    static func table(_ target: Target) -> Table {
        if let table = tables[target] { return table }
        let browsers = [Target.chrome, .firefox, .safari].compactMap { tables[$0] }
        let plain = browsers.map { t in
            Table(
                containers: t.containers.subtracting(t.containerCaveats.keys), video: t.video, audio: t.audio,
                pairs: t.pairs)
        }
        return plain.dropFirst().reduce(plain[0]) { a, b in
            Table(
                containers: a.containers.intersection(b.containers), video: a.video.intersection(b.video),
                audio: a.audio.intersection(b.audio), pairs: a.pairs.merging(b.pairs) { x, _ in x })
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

    /// Why the target does not play this codec in this container, though it plays each alone.
    static func pairRefusal(container: Container, codec: String, table: Table) -> String? {
        table.pairs["\(container)/\(codec.hasPrefix("pcm_") ? "pcm" : codec)"]
    }

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        var findings: [Finding] = []
        let t = Self.table(options.target)
        if let caveat = t.containerCaveats[clip.container] {
            findings.append(
                Finding(
                    rule: ids[0], severity: .warning,
                    message: "the \(clip.container) container \(caveat) (\(options.target.rawValue) target)",
                    hint: "remux to MP4 for pages that check canPlayType or loop through MSE: loopprep fix --to mp4"))
        } else if !t.containers.contains(clip.container) {
            findings.append(
                Finding(
                    rule: ids[0], severity: .error,
                    message: "the \(clip.container) container is not playable on the \(options.target.rawValue) target",
                    hint: clip.isISO || clip.isMatroska
                        ? "remux to MP4: loopprep fix --to mp4"
                            + (clip.container == .webm ? " (or use --target web for WebM)" : "")
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
        for track in clip.tracks {
            if let why = Self.pairRefusal(container: clip.container, codec: track.codec, table: t) {
                findings.append(
                    Finding(
                        rule: ids[0], severity: .error, track: track.index,
                        message: """
                            \(Figures.trackName(track)) is not playable on the \(options.target.rawValue) target: \
                            \(why)
                            """,
                        hint: track.kind == .video
                            ? "remux the video into WebM" : "re-encode the audio to AAC in an MP4"))
            } else if track.kind == .video, let caveat = t.videoCaveats[track.codec] {
                findings.append(
                    Finding(
                        rule: ids[0], severity: .warning, track: track.index,
                        message: "\(Figures.trackName(track)) \(caveat) (\(options.target.rawValue) target)",
                        hint: "re-encode the video to H.264 to play on every machine"))
            }
        }
        for track in clip.tracks
        where !Self.playable(codec: track.codec, kind: track.kind, target: options.target)
            && !(track.kind == .video && t.videoCaveats[track.codec] != nil)
        {
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
