@testable import LoopAnalysis

/// Clip facts built in code, for rule tests: a clean 1 s 30 fps H.264 + 48 kHz AAC clip, and edits of it.
enum Clips {
    // swift-format-ignore: NeverForceUnwrap
    // (Timelines built in code always present a range: TrackFacts is never nil here.)
    static func video(
        frames: Int = 30, step: Int64 = 512, timescale: Int64 = 15360,
        edits: [Edit]? = [Edit(mediaTime: 0, duration: .one)],
        basics: TrackBasics = TrackBasics(index: 0, kind: .video, codec: "h264", width: 160, height: 90)
    ) -> TrackFacts {
        let samples = Make.video(frames: frames, step: step, timescale: timescale)
        let e = edits.map {
            $0.map {
                Edit(mediaTime: $0.mediaTime, duration: min($0.duration, Rational(Int64(frames) * step, timescale)))
            }
        }
        return TrackFacts(
            basics: basics, timeline: TrackTimeline(timeBase: Rational(1, timescale), samples: samples, edits: e))!
    }

    // swift-format-ignore: NeverForceUnwrap
    // (Timelines built in code always present a range: TrackFacts is never nil here.)
    static func audio(
        seconds: Rational = .one, rate: Int64 = 48000, priming: Int64? = 1024, codec: String = "aac", index: Int = 1
    ) -> TrackFacts {
        let total = (seconds * rate).floor + (priming ?? 0)
        let packets = Int((total + 1023) / 1024)
        let samples = Make.aac(packets: packets, lastDuration: total - Int64(packets - 1) * 1024)
        let edits = priming.map { [Edit(mediaTime: $0, duration: seconds)] }
        let basics = TrackBasics(index: index, kind: .audio, codec: codec, sampleRate: Int(rate), channels: 2)
        return TrackFacts(
            basics: basics, timeline: TrackTimeline(timeBase: Rational(1, rate), samples: samples, edits: edits))!
    }

    static func clip(_ tracks: [TrackFacts], container: String = "mp4", moovFirst: Bool? = true, seam: SeamFacts? = nil)
        -> ClipFacts
    {
        ClipFacts(
            path: "test.mp4", container: Container(name: container), formatName: "mov,mp4", fileSize: 1000,
            moovBeforeMdat: moovFirst,
            movieTimescale: 1000, tracks: tracks, seam: seam)
    }

    /// A 160x90 video track 0 and a mono audio track 1 on the timelines given, with the timelines by index.
    static func pair(
        video: TrackTimeline, audio: TrackTimeline, videoCodec: String = "h264", audioCodec: String = "aac",
        rate: Int = 48000
    ) -> (ClipFacts, [Int: TrackTimeline]) {
        let tracks = [
            TrackFacts(
                basics: TrackBasics(index: 0, kind: .video, codec: videoCodec, width: 160, height: 90),
                timeline: video),
            TrackFacts(
                basics: TrackBasics(index: 1, kind: .audio, codec: audioCodec, sampleRate: rate, channels: 1),
                timeline: audio),
        ]
        return (clip(tracks.compactMap { $0 }), [0: video, 1: audio])
    }

    static let clean = clip([video(), audio()])

    static func rules(_ clip: ClipFacts, options: AnalysisOptions = .init()) -> [String] {
        Analyzer.findings(in: clip, options: options).filter { $0.severity != .info }.map(\.rule)
    }
}
