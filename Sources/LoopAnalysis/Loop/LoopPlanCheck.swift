/// The cut fix planned for a loop must be the candidate the search chose: its frames and its length. A plan that
/// moved the start (a keyframe further on, a start rebased) would write another loop than the one ranked, which
/// its own verification (against the plan) cannot see.
package enum LoopPlanCheck {
    /// nil when the plan keeps exactly the candidate's frames and length; else why not, in one sentence.
    public static func difference(_ plan: FixPlan, chosen: LoopCandidate) -> String? {
        let length = chosen.end - chosen.start
        if let video = plan.tracks.first(where: { $0.kind == .video }), let frames = video.presentedFrames,
            frames != chosen.frames
        {
            return """
                the cut would hold \(frames) frames where the loop chosen has \(chosen.frames) \
                (\(Figures.seconds(chosen.start))-\(Figures.seconds(chosen.end))); nothing was written
                """
        }
        if plan.duration != length {
            return """
                the cut would last \(Figures.ms(plan.duration)) where the loop chosen lasts \(Figures.ms(length)); \
                nothing was written
                """
        }
        return nil
    }
}
