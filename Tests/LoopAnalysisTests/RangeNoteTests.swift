import Foundation
import LoopRangeValues
import Testing

@testable import LoopAnalysis

/// A loop range never hides what it cuts: the note names what a viewer could miss and the rewrite that keeps it,
/// and the advice follows which track is the longer (--keep video for a picture longer than its sound; for a sound
/// longer than its picture the fade, never --keep video, which keeps the jump).
@Suite struct RangeNoteTests {
    /// `frames` frames of 512 ticks at 15360 Hz (30 fps) over `samples` samples of 48 kHz PCM (no priming) in
    /// 1024-sample packets.
    static func clip(frames: Int, samples: Int) -> (ClipFacts, [Int: TrackTimeline]) {
        let video = (0..<frames).map { i in
            SampleTiming(dts: Int64(i) * 512, pts: Int64(i) * 512, duration: 512, isSync: i % 30 == 0)
        }
        let packets = (samples + 1023) / 1024
        let audio = (0..<packets).map { i in
            SampleTiming(
                dts: Int64(i) * 1024, pts: Int64(i) * 1024, duration: Int64(min(1024, samples - i * 1024)),
                isSync: true)
        }
        return Clips.pair(
            video: TrackTimeline(timeBase: Rational(1, 15360), samples: video),
            audio: TrackTimeline(timeBase: Rational(1, 48000), samples: audio), audioCodec: "pcm_s16le")
    }

    static func range(frames: Int, samples: Int) throws -> LoopRange {
        let (facts, timelines) = clip(frames: frames, samples: samples)
        let (range, reason) = LoopRanges.range(facts, timelines: timelines, findings: Analyzer.findings(in: facts))
        return try #require(range, "\(reason ?? "")")
    }

    /// A designed loop: 90 frames (3 s) over 2.48 s of sound (119040 samples). The range keeps the 74 frames the
    /// sound covers whole (74 x 1/30 = 2.4667 s), so it leaves out 16 of 90, and says so with --keep video.
    @Test func aPictureLongerThanItsSoundIsSaidWithKeepVideo() throws {
        let range = try Self.range(frames: 90, samples: 119_040)
        #expect(range.duration == "37/15")
        let note = try #require(range.note)
        #expect(note.contains("leaves out the picture's last 16 of 90 frames"), "\(note)")
        #expect(note.contains("loopprep fix --keep video"))
    }

    /// A sound 0.5 s (24000 samples) past 30 frames: the range cuts it, and the advice is the fade, not --keep video.
    @Test func aSoundLongerThanItsPictureIsSaidWithTheFade() throws {
        let range = try Self.range(frames: 30, samples: 72_000)
        let note = try #require(range.note)
        #expect(note.contains("leaves out the sound's last 0.500 s"), "\(note)")
        #expect(note.contains("--seam-fade") && !note.contains("--keep video"))
        // And where the range's own wrap clicks (measured by the CLI), the advice stays the fade.
        let click = Finding(rule: .seamAudioClick, severity: .warning, message: "a click", hint: "")
        let measured = LoopRanges.measured(range, clip: [], span: [click])
        #expect(measured.remains.contains("seam-audio-click"))
        #expect(measured.note?.hasPrefix("looping this range adds seam-audio-click at its wrap") == true)
        #expect(measured.note?.contains("--keep video") == false && measured.note?.contains("--seam-fade") == true)
    }

    /// An encoder's padding is not content: one frame of picture past the sound, or a sound ending inside the
    /// picture's last frame, is cut without a note.
    @Test func lessThanAFrameIsNotSaid() throws {
        #expect(try Self.range(frames: 31, samples: 48_000).note == nil)
        #expect(try Self.range(frames: 30, samples: 49_000).note == nil)
        #expect(try Self.range(frames: 30, samples: 48_000).note == nil)
    }

    /// A phone's room tone (50 ms, 2400 samples, past 30 frames) is what the range exists to cut: no note, so an app
    /// takes the range; a sting of 0.3 s (14400 samples) is said, with what the whole item does instead.
    @Test func roomToneIsCutWithoutANote() throws {
        let tone = try Self.range(frames: 30, samples: 50_400)
        #expect(tone.note == nil && tone.duration == "1")
        let sting = try #require(try Self.range(frames: 30, samples: 62_400).note)
        #expect(sting.contains("leaves out the sound's last 0.300 s"), "\(sting)")
        #expect(sting.contains("loop the whole item instead, which holds the last frame for those 0.300 s"))
    }
}

/// A clip looked up in a report made elsewhere: CI's relative paths, another machine's absolute ones, a bundle's URL.
@Suite struct ReportLookupTests {
    static let report = [
        ClipLoopRange(path: "media/intro.mp4", loopRange: nil, loopRangeReason: "intro"),
        ClipLoopRange(path: "media/a/hero.mp4", loopRange: nil, loopRangeReason: "a"),
        ClipLoopRange(path: "media/b/hero.mp4", loopRange: nil, loopRangeReason: "b"),
        ClipLoopRange(path: "https://cdn.example/v/wave.mp4", loopRange: nil, loopRangeReason: "wave"),
    ]

    @Test func aClipIsFoundWhateverPathTheReportWasMadeWith() {
        let r = Self.report
        #expect(r.clip(for: "media/intro.mp4")?.loopRangeReason == "intro")
        #expect(r.clip(for: URL(fileURLWithPath: "/var/app/Bundle.app/intro.mp4"))?.loopRangeReason == "intro")
        #expect(r.clip(for: "/Users/dev/site/media/a/hero.mp4")?.loopRangeReason == "a")
        #expect(r.clip(for: "b/hero.mp4")?.loopRangeReason == "b")
        #expect(r.clip(for: URL(string: "https://cdn.example/v/wave.mp4")!)?.loopRangeReason == "wave")
        // Two of that name and nothing to tell them apart; none of that name.
        #expect(r.clip(for: "/Bundle.app/hero.mp4") == nil)
        #expect(r.clip(for: "outro.mp4") == nil)
    }
}
