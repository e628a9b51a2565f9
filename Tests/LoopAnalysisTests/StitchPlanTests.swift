import Testing

@testable import LoopAnalysis

@Suite struct StitchPlanTests {
    static let fps = Rational(30)
    static func clips(_ frames: [Int]) -> [StitchClip] {
        frames.enumerated().map { StitchClip(path: "c\($0.offset).mp4", frames: $0.element) }
    }
    static func cross(_ seconds: Rational) -> TransitionRequest {
        TransitionRequest(kind: .crossfade, duration: seconds)
    }

    @Test func buttJoinsAddUp() throws {
        let t = try StitchPlanner.timeline(
            Self.clips([30, 45, 60]),
            transitions: [.init(kind: .none, duration: .zero), .init(kind: .none, duration: .zero)],
            frameRate: Self.fps, sampleRate: 48000, loop: false)
        #expect(t.frames == 135)
        #expect(t.duration == Rational(135, 30))
        #expect(t.samples == 216000)
        #expect(t.clips.map(\.span.startFrame) == [0, 30, 75])
        #expect(t.joins.allSatisfy { $0.frames == 0 })
    }

    @Test func crossfadesOverlapTheirLength() throws {
        let t = try StitchPlanner.timeline(
            Self.clips([40, 40, 40]), transitions: [Self.cross(Rational(1, 2)), Self.cross(Rational(1, 2))],
            frameRate: Self.fps, sampleRate: 48000, loop: false)
        // 120 frames less two overlaps of 15.
        #expect(t.frames == 90)
        #expect(t.clips.map(\.span.startFrame) == [0, 25, 50])
        #expect(t.joins.map(\.span.startFrame) == [25, 50])
        #expect(t.joins.map(\.span.endFrame) == [40, 65])
    }

    @Test func loopConsumesTheFirstClipsOpening() throws {
        let t = try StitchPlanner.timeline(
            Self.clips([30, 30]), transitions: [Self.cross(Rational(1, 6)), Self.cross(Rational(1, 6))],
            frameRate: Self.fps, sampleRate: 48000, loop: true)
        // 60 frames less two 5-frame overlaps; the wrap is the file's last 5 frames.
        #expect(t.frames == 50)
        #expect(t.joins.last?.from == 1 && t.joins.last?.to == 0)
        #expect(t.joins.last?.span.startFrame == 45 && t.joins.last?.span.endFrame == 50)
        #expect(t.clips[0].span.startFrame == 0 && t.clips[0].span.endFrame == 25)
    }

    @Test func ntscAudioFollowsTheExactVideoTime() throws {
        let t = try StitchPlanner.timeline(
            Self.clips([30, 30]), transitions: [Self.cross(Rational(1, 2))],
            frameRate: Rational(30000, 1001), sampleRate: 44100, loop: false)
        #expect(t.frames == 45)
        #expect(t.duration == Rational(45 * 1001, 30000))
        // 1.5015 s at 44.1 kHz is 66216.15 samples: the nearest whole one, within half a sample.
        #expect(t.samples == 66216)
    }

    @Test func transitionsLongerThanAClipAreRefused() {
        #expect(throws: PlanError.self) {
            try StitchPlanner.timeline(
                Self.clips([30, 10]), transitions: [Self.cross(Rational(1, 2))], frameRate: Self.fps, sampleRate: nil,
                loop: false)
        }
        #expect(throws: PlanError.self) {
            try StitchPlanner.timeline(
                Self.clips([30, 30]), transitions: [Self.cross(Rational(1, 100))], frameRate: Self.fps, sampleRate: nil,
                loop: false)
        }
    }
}

/// The audio tracks a stitch joins when clips carry different ones.
@Suite struct SharedAudioTests {
    @Test func theLanguagesEveryClipHasAreJoined() throws {
        // English and French beside English only: English joined, French left out.
        let both = try #require(SharedAudio.choose([["eng", "fra"], ["eng"]]))
        #expect(both.kept == [[0], [0]] && both.left == [[1], []])
        // In the first clip's order, wherever each clip has them.
        let order = try #require(SharedAudio.choose([["fra", "eng", "deu"], ["eng", "fra"]]))
        #expect(order.kept == [[0, 1], [1, 0]] && order.left == [[2], []])
        // No language shared (none said): each clip's first track.
        let none = try #require(SharedAudio.choose([["eng", "fra"], [nil]]))
        #expect(none.kept == [[0], [0]] && none.left == [[1], []])
        // Clips that agree track for track, or a clip with no audio: nothing chosen here.
        #expect(SharedAudio.choose([["eng", "fra"], ["eng", "fra"]]) == nil)
        #expect(SharedAudio.choose([[nil], ["eng"]]) == nil)
        #expect(SharedAudio.choose([["eng"], []]) == nil)
    }
}
