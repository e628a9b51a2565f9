import Foundation
import LoopAnalysis
import Testing

@testable import loopprep

/// Refusals are cases with data, each with its cause (the library's) and its one sentence (naming the cause and the
/// remedy), worded by the command line alone; a report read back says the same refusal.
@Suite struct RefusalWordsTests {
    static let claimants = (
        a: Refusal.Claimant(input: "a.mov", what: "output"), b: Refusal.Claimant(input: "b.mov", what: "output")
    )

    /// Every case, its cause and its words.
    @Test func eachCaseHasItsCauseAndWords() {
        let (a, b) = Self.claimants
        let page = Refusal.Claimant(input: "a.mov", what: "web page")
        let cases: [(Refusal, Refusal.Cause, String)] = [
            (.plan("too short to loop"), .plan, "too short to loop"),
            (
                .stalePlan(.clipCount(planned: 2, read: 3), command: "stitch"), .plan,
                "the plan is for 2 clips, not 3: plan it again with stitch --dry-run"
            ),
            (
                .stalePlan(.cutOtherwise("a.mkv"), command: "loop"), .plan,
                "a.mkv is cut otherwise than when it was planned: plan it again with loop --dry-run"
            ),
            (.noLoop("no loop between 1 and 2 fits in the clip"), .noLoop, "no loop between 1 and 2 fits in the clip"),
            (.outputExists("o.mp4"), .outputExists, "o.mp4 exists: --force (or -y) replaces it (nothing written)"),
            (
                .outputExists("o.mp4", differs: true), .outputExists,
                "write output: o.mp4 exists and differs from what this run writes: --force (or -y) replaces it "
                    + "(nothing written)"
            ),
            (
                .outputIsInput(output: "a.mp4", input: "a.mp4", .named), .outputIsInput,
                "the output a.mp4 is the input a.mp4 (nothing written)"
            ),
            (
                .outputIsInput(output: "a.mov", input: "a.mov", .converted(.mov)), .outputIsInput,
                "write output: the MOV would overwrite the input a.mov"
            ),
            (
                .outputIsInput(output: "a.mp4", input: "a.mp4", .notInPlace), .outputIsInput,
                "write output: the output would overwrite the input (use --in-place)"
            ),
            (
                .outputIsInput(output: "a.mp4", input: "a.mp4", .planned), .outputIsInput,
                "write output: the plan's output a.mp4 is its input (apply never writes over one)"
            ),
            (
                .outputClaimed(file: "o/a.mp4", first: a, second: b), .outputClaimed,
                "a.mov and b.mov would both be written to o/a.mp4, one replacing the other: rename one of them, or "
                    + "write each folder with its own -o"
            ),
            (
                .outputClaimed(file: "o/a.html", first: a, second: page), .outputClaimed,
                "a.mov's output and its web page would both be written to o/a.html, one replacing the other: name one "
                    + "of them otherwise"
            ),
            (
                .inputChanged(path: "a.mp4", .changed, command: "fix"), .inputChanged,
                "a.mp4 changed since it was planned (its size, modification time or bytes): plan it again with fix "
                    + "--dry-run"
            ),
            (
                .inputChanged(path: "a.mp4", .gone, command: "fix"), .inputChanged,
                "a.mp4 is gone since it was planned: plan it again with fix --dry-run"
            ),
            (
                .inputChanged(path: "https://x/a.mp4", .remote, command: "stitch"), .inputChanged,
                "https://x/a.mp4 is a URL, which apply cannot tell unchanged: write it with stitch -o"
            ),
            (
                .inputChanged(path: nil, .unrecorded, command: "stitch"), .inputChanged,
                "the plan does not say what it read of its clips: plan it again with stitch --dry-run"
            ),
            (
                .inputChanged(path: "a.mp4", .blendUnrecorded, command: "loop"), .inputChanged,
                "the plan does not say how its blend is made: plan it again with loop --dry-run"
            ),
            (.write("write output: no space left on the disk"), .write, "write output: no space left on the disk"),
            (
                .check("the output does not match its plan: 44 frames"), .check,
                "the output does not match its plan: 44 frames"
            ),
            (
                .webPlayer(.notPackaged(output: "o.mp4", why: "no frame")), .webPlayer,
                "o.mp4 is written and verified, but not its web player: no frame"
            ),
            (
                .webPlayer(.codec(kind: .audio, index: 1, codec: "flac", container: .mp4, takes: "browsers take aac")),
                .webPlayer,
                "browsers take aac; audio track 1 (flac) in MP4 is not one of them; nothing written (without "
                    + "--web-player it is written as it is)"
            ),
            (.unreadable("a.mp4: empty file (0 bytes)"), .unreadable, "a.mp4: empty file (0 bytes)"),
            (
                .crossfadedLoop(.outputExists("o.mp4")), .outputExists,
                "the crossfaded loop could not be written: o.mp4 exists: --force (or -y) replaces it (nothing written)"
            ),
            (.worded(.unrecorded, "why"), .unrecorded, "why"),
        ]
        for (refusal, cause, words) in cases {
            #expect(refusal.cause == cause, "\(refusal)")
            #expect(refusal.sentence == words)
        }
        // Every cause is some case's.
        #expect(Set(cases.map(\.1)) == Set(Refusal.Cause.allCases))
    }

    /// The web player's container no-go names the file and the command's remedy.
    @Test func aContainerNoGoNamesItsRemedy() {
        let refusal = Refusal.webPlayer(.container(file: "reel.mkv", remedy: "name the reel .mp4"))
        #expect(refusal.cause == .webPlayer)
        #expect(refusal.sentence.contains("and reel.mkv is not one; nothing written (name the reel .mp4 for a web"))
    }

    /// A refusal's details are lines after its sentence; a blend's refusal says them in its one sentence.
    @Test func detailsFollowTheSentence() {
        let differ = Refusal.plan("the clips differ (nothing written):", details: ["  size", "  rate"])
        #expect(differ.lines == ["the clips differ (nothing written):", "  size", "  rate"])
        #expect(
            Refusal.crossfadedLoop(differ).lines == [
                "the crossfaded loop could not be written: the clips differ (nothing written):   size   rate"
            ])
        #expect(Refusal.unreadable("a.mp4: no such file", details: ["b.mp4: no such file"]).details.count == 1)
    }

    /// Read back from a report the command line wrote, a refusal is its words with its cause.
    @Test func aRefusalReadBackIsItsWords() throws {
        let (a, b) = Self.claimants
        let refusal = Refusal.outputClaimed(file: "o.mp4", first: a, second: b)
        let outcome = Outcome.refused(refusal, output: "o.mp4")
        let back = try JSONDecoder().decode(Outcome.self, from: try JSONFormat.encoder().encode(outcome))
        #expect(back == .refused(.worded(.outputClaimed, refusal.sentence), output: "o.mp4"))
        #expect(back.reason == outcome.reason)
    }
}
