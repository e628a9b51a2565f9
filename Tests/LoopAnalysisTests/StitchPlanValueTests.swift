import Foundation
import Testing

@testable import LoopAnalysis

/// stitch's plan as the value its report carries and `loopprep apply` reads back: equal after a round trip, its
/// frames and decode times written as runs, and a plan that does not fit the clips it is applied to said so.
@Suite struct StitchPlanValueTests {
    /// Two clips of 30 frames on a 1/15360 clock (512 ticks a frame): the first copied up to frame 14, frames 14-34 of
    /// the reel encoded (one of clip 0, the 15 blended by join 0, five of clip 1), clip 1 copied from frame 20.
    static func plan() -> StitchRenderPlan {
        let items: [StitchRenderPlan.Item] =
            [.frame(clip: 0, index: 14)]
            + (0..<15).map { .blend(from: .init(clip: 0, index: 15 + $0), into: .init(clip: 1, index: $0), join: 0) }
            + (15..<20).map { .frame(clip: 1, index: $0) }
        // One tick apart where a copied body decoded further, then a frame apart (the plan's rule).
        let times: [Int64] = [6144, 6145, 6146] + (0..<18).map { 6656 + 512 * Int64($0) }
        let render = StitchRenderPlan.Render(
            firstOutput: 14, items: items, leadClip: 0, sets: .h264(id: 1), decodeTimes: times)
        return StitchRenderPlan(
            clock: .init(timeBase: Rational(1, 15360), frameTicks: 512), movieTimescale: 384000,
            bodies: [
                .init(start: 0, end: 14, fromDts: 0, throughDts: 7167, lastDts: 5632),
                .init(start: 20, end: 30, fromDts: 10240, throughDts: 14848, lastDts: 21504),
            ],
            runs: [.copy(clip: 0), .render(render), .copy(clip: 1)], reencodedWhole: [],
            addedParameterSets: [ParameterSet(kind: .sequence, id: 1, bytes: [0x67, 0x64, 0x00, 0x0d])],
            hevcGroups: [HEVCSetIDs(video: 1, sequence: 1, picture: 2)], hevcGroupClips: [0])
    }

    static func value(_ render: StitchRenderPlan) -> StitchPlanValue {
        var request = StitchRequest(
            clips: [.init(path: "a.mp4"), .init(path: "b.mp4", inPoint: Rational(1, 2), outPoint: Rational(3, 2))],
            transitions: [TransitionRequest(kind: .crossfade, duration: Rational(1, 2))], loop: false, output: nil)
        request.normalize = true
        request.codec = "hevc"
        return StitchPlanValue(
            request: .init(request),
            inputs: [InputFingerprint(size: 19899, modified: 1.5, digest: "faf262b4f9534fc4"), nil],
            keptAudio: [[0], [1, 0]], cuts: [[30, 0, 14848, 0, 14848], [30, 0, 14848, 0, 14848]], render: render)
    }

    @Test func aPlanReadsBackEqualAndItsRunsStayShort() throws {
        let value = Self.value(Self.plan())
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(StitchPlanValue.self, from: data) == value)
        // The 21 encoded frames are three runs (clip 0's one, the blend's 15, clip 1's five); their 21 decode times
        // two (three a tick apart, then 18 a frame apart); the sequence set's bytes base64.
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let render = try #require(json["render"] as? [String: Any])
        let runs = try #require(render["runs"] as? [[String: Any]])
        let encoded = try #require(runs[1]["render"] as? [String: Any])
        #expect((encoded["items"] as? [Any])?.count == 3)
        let times = try #require(encoded["decodeTimes"] as? [[String: Int]])
        #expect(times == [["first": 6144, "step": 1, "count": 3], ["first": 6656, "step": 512, "count": 18]])
        let sets = try #require(render["addedParameterSets"] as? [[String: Any]])
        #expect(sets.first?["bytes"] as? String == "Z2QADQ==" && sets.first?["kind"] as? String == "sequence")
        // The request comes back as asked, writing where apply says.
        let again = value.request.request(output: "reel.mp4", force: true)
        #expect(again.clips.map(\.path) == ["a.mp4", "b.mp4"] && again.clips[1].outPoint == Rational(3, 2))
        #expect(again.output == "reel.mp4" && again.force && again.normalize && again.codec == "hevc")
    }

    @Test func aPlanThatDoesNotFitItsClipsIsSaid() {
        let value = Self.value(Self.plan())
        #expect(value.misfit(frameCounts: [30, 30], joins: 0..<1) == nil)
        #expect(value.misfit(frameCounts: [30], joins: 0..<1) == "the plan is for 2 clips, not 1")
        // Clip 1 read as 20 frames: its copied body (20-30) is not in it.
        #expect(value.misfit(frameCounts: [30, 20], joins: 0..<1) == "clip 2's copied frames 20-30 are not all in it")
        // Clip 1 read as 29 frames: the blend's last frame from it (29) is not in it.
        #expect(
            value.misfit(frameCounts: [29, 30], joins: 0..<1) == "it encodes frame 29 of clip 1, which is not in it")
        // A blend at a join the timeline does not have.
        #expect(value.misfit(frameCounts: [30, 30], joins: 0..<0) == "it blends at a join the timeline does not have")
    }
}
