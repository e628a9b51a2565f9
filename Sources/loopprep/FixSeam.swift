import Foundation
import LoopAnalysis
import LoopMedia

/// A designed loop fix made worse (issue 32, item 5): where fix left out video frames (the picture cut to
/// shorter audio), the written file's seam is measured beside the input's; a seam finding the output has and the
/// input had not is reported on the output (a warning: exit 0 unless --fail-on) with a note naming the flags that
/// keep the loop whole.
enum FixSeam {
    static func check(_ result: inout FileReport, source: String, analysis: AnalysisOptions) {
        guard let fix = result.fix, fix.status == .fixed, let output = fix.output, let plan = fix.plan,
            let before = fix.before, cutsFrames(plan, before)
        else { return }
        var seams = analysis
        seams.seamChecks = true
        let seamRules: Set<RuleID> = [.seamVisualJump, .seamAudioClick]
        let input = ClipAnalysis.report(path: source, options: seams)
        let written = ClipAnalysis.report(path: output, options: seams)
        let had = Set(input.findings.compactMap(\.ruleID).filter(seamRules.contains))
        let worse = written.findings.filter { $0.ruleID.map { seamRules.contains($0) && !had.contains($0) } ?? false }
        guard !worse.isEmpty else { return }
        result.findings += worse
        let video = plan.tracks.first { $0.kind == .video }
        let frames = video?.presentedFrames.map { "\($0) frames" } ?? Figures.seconds(plan.duration)
        result.notes =
            (result.notes ?? []) + [
                """
                fix's cut made the loop worse: the input's loop point was seamless, the output's (\(frames)) is not; \
                --keep video pads the audio with silence to the video's end instead, --drop-audio leaves it out
                """
            ]
    }

    /// The plan presents fewer video frames than the input has.
    static func cutsFrames(_ plan: FixPlan, _ before: ClipFacts) -> Bool {
        plan.tracks.contains { cut in
            guard cut.kind == .video, let kept = cut.presentedFrames,
                let had = before.tracks.first(where: { $0.index == cut.index })?.frameCount
            else { return false }
            return kept < had
        }
    }
}
