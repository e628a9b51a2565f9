import Testing

@testable import LoopAnalysis

/// A copy keeps the timing breaks it cannot cure as the input has them, and the check holds the output to those:
/// two clips joined by FFmpeg's concat demuxer with -c copy, the second's AAC starting before the first's ends, the
/// muxer squeezing two 1024-sample frames into 1 and 223 ticks (concat-overlaps.mp4's shape, built here).
@Suite struct KeptBreaksTests {
    /// 2 s of 30 fps picture; 2.05 s of AAC whose packets 47 and 48 last 1 and 223 ticks.
    static func joined() -> (ClipFacts, [Int: TrackTimeline]) {
        let video = TrackTimeline(
            timeBase: Rational(1, 15360), samples: Make.video(frames: 60, step: 512, gop: 30, timescale: 15360),
            edits: [Edit(mediaTime: 0, duration: Rational(2))])
        var samples: [SampleTiming] = []
        var dts: Int64 = 0
        for i in 0..<100 {
            let duration: Int64 = i == 47 ? 1 : i == 48 ? 223 : 1024
            samples.append(SampleTiming(dts: dts, pts: dts, duration: duration, isSync: true))
            dts += duration
        }
        let audio = TrackTimeline(
            timeBase: Rational(1, 48000), samples: samples, edits: [Edit(mediaTime: 1024, duration: Rational(41, 20))])
        return Clips.pair(video: video, audio: audio)
    }

    @Test func theCopyKeepsTheOverlapsItCannotCureAndSaysSo() throws {
        let (clip, timelines) = Self.joined()
        let audio = try #require(clip.tracks.first { $0.kind == .audio })
        #expect(audio.timingBreakCount == 2)
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let kept = try #require(plan.keptBreaks[1])
        #expect(kept.count == 2)
        #expect(kept.lengths == Set(audio.timingBreaks.map(\.length)))
        #expect(plan.notes.contains { $0.hasPrefix("audio track 1 (aac): its 2 timestamp overlaps") })
        // The output may have these, never another.
        #expect(kept.admits(audio))
        var more = audio
        more.timingBreakCount = 3
        #expect(!kept.admits(more))
        var other = audio
        other.timingBreaks[0].length += 1
        #expect(!kept.admits(other))
        // Encoded again, the audio keeps none.
        var options = FixOptions()
        options.reencodeAudio = true
        #expect(try FixPlanner.plan(clip, timelines: timelines, options: options).keptBreaks.isEmpty)
    }
}
