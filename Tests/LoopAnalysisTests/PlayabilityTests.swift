import Testing

@testable import LoopAnalysis

/// A row per codec and container and target (docs/playability.md): whether `not-playable-on-target` fires, as an
/// error or only as a warning (a caveat: MOV in Chrome plays from src, not advertised; HEVC needs the machine's
/// decoder in Chrome and Firefox).
@Suite struct PlayabilityTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var container: String, video: String?, audio: String?
        /// The targets that play it, with nothing to say.
        var plays: Set<Target>
        /// The targets that play it with a caveat (warnings only).
        var warns: Set<Target> = []
        var testDescription: String { "\(container) \(video ?? "-") \(audio ?? "-")" }
    }

    static let rows: [Row] = [
        Row(container: "mp4", video: "h264", audio: "aac", plays: Set(Target.allCases)),
        // HandBrake's .m4v with an AC-3 track.
        Row(container: "mp4", video: "h264", audio: "ac3", plays: [.apple, .safari]),
        Row(container: "mp4", video: "h264", audio: "eac3", plays: [.apple, .safari]),
        Row(container: "mp4", video: "h264", audio: "mp3", plays: Set(Target.allCases)),
        // An iPhone's HEVC: Chrome and Firefox play it only with the machine's HEVC decoder.
        Row(container: "mov", video: "hevc", audio: "aac", plays: [.apple, .safari], warns: [.chrome, .firefox]),
        Row(container: "mp4", video: "hevc", audio: "aac", plays: [.apple, .safari], warns: [.chrome, .firefox]),
        // Chromium plays H.264 with AAC or PCM in a MOV from src (canPlayType says no); Firefox drops the PCM.
        Row(container: "mov", video: "h264", audio: "aac", plays: [.apple, .safari, .firefox], warns: [.chrome]),
        Row(container: "mov", video: "h264", audio: "pcm_s16le", plays: [.apple, .safari], warns: [.chrome]),
        Row(container: "mov", video: "prores", audio: "pcm_s16le", plays: [.apple]),
        Row(container: "webm", video: "vp9", audio: "opus", plays: [.web, .chrome, .firefox, .safari]),
        Row(container: "webm", video: "av1", audio: "opus", plays: [.chrome, .firefox]),
        // AVFoundation plays AV1 only with the device's AV1 decoder (A17 Pro, M3), and MPEG-4 Part 2 in Simple
        // Profile: warnings on apple, not errors.
        Row(container: "mp4", video: "av1", audio: "aac", plays: [.chrome, .firefox], warns: [.apple]),
        Row(container: "mp4", video: "mpeg4", audio: "aac", plays: [], warns: [.apple]),
        // Chromium and Firefox play and advertise Matroska; Safari does not, so `web` flags it.
        Row(container: "matroska", video: "h264", audio: "aac", plays: [.chrome, .firefox]),
        Row(container: "matroska", video: "vp9", audio: "opus", plays: [.chrome, .firefox]),
        // Firefox shows no video for VP8 in Ogg.
        Row(container: "ogg", video: "vp8", audio: "vorbis", plays: [.chrome]),
        Row(container: "mpegts", video: "h264", audio: "aac", plays: []),
        Row(container: "wav", video: nil, audio: "pcm_s16le", plays: Set(Target.allCases)),
        Row(container: "mp3", video: nil, audio: "mp3", plays: Set(Target.allCases)),
        Row(container: "aac", video: nil, audio: "aac", plays: Set(Target.allCases)),
        Row(container: "ogg", video: nil, audio: "vorbis", plays: [.chrome, .firefox]),
        Row(container: "flac", video: nil, audio: "flac", plays: Set(Target.allCases)),
    ]

    @Test(arguments: rows)
    func playableWhereTheTablesSay(row: Row) {
        var tracks: [TrackFacts] = []
        if let v = row.video {
            tracks.append(Clips.video(basics: TrackBasics(index: 0, kind: .video, codec: v, width: 160, height: 90)))
        }
        if let a = row.audio { tracks.append(Clips.audio(codec: a, index: tracks.count)) }
        let clip = Clips.clip(tracks, container: row.container)
        for target in Target.allCases {
            let findings = NotPlayableOnTarget().check(clip, AnalysisOptions(target: target))
            let errors = findings.filter { $0.severity == .error }.count
            let warnings = findings.filter { $0.severity == .warning }.count
            if row.plays.contains(target) {
                #expect(findings.isEmpty, "\(row.testDescription) on \(target): \(findings.map(\.message))")
            } else if row.warns.contains(target) {
                #expect(errors == 0 && warnings > 0, "\(row.testDescription) on \(target): \(findings.map(\.message))")
            } else {
                #expect(errors > 0, "\(row.testDescription) on \(target)")
            }
        }
    }
}
