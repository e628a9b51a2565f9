import LoopAnalysis

extension LoopCut {
    /// A loop dry run's record carried out later (`loopprep apply`), never searched or planned again: a cut with
    /// fix's machinery (ClipFix.apply), a crossfaded loop with stitch's (Stitcher.apply), each refused in one sentence
    /// where its input changed since. The record keeps the search's candidates and choice; one not planned is
    /// returned as it is.
    public static func apply(
        _ file: FileReport, analysis: AnalysisOptions, force: Bool, temporaries: TemporaryFiles
    ) -> FileReport {
        guard let fix = file.fix, fix.status == .planned, let output = fix.output else { return file }
        var written: FileReport
        if let blend = file.loop?.blend {
            guard let value = file.loop?.blendPlan else {
                let refusal = Refusal.inputChanged(path: file.path, .blendUnrecorded, command: "loop")
                return kept(refused(file.path, refusal), as: file)
            }
            do {
                let stitched = try Stitcher.apply(
                    value, timeline: blend, to: output, force: force, temporaries: temporaries, command: "loop")
                written = blendOutcome(file.path, stitched: stitched, refusal: stitched.refusal, output: output)
            } catch {
                written = blendOutcome(file.path, stitched: nil, refusal: error, output: output)
            }
        } else if let plan = fix.plan {
            var request = FixRequest(to: output, analysis: analysis, temporaries: temporaries)
            request.force = force
            written = ClipFix.apply(file.path, plan: plan, input: fix.input, request, command: "loop")
            // The written loop, named as written (fix's report names its input).
            if let named = written.fix?.output, written.fix?.status != .failed { written.path = named }
        } else {
            return file
        }
        return kept(record(written, of: file.path, planned: nil), as: file)
    }

    /// `record` with what the dry run's search found: its candidates, choice and blend, and its notes.
    static func kept(_ record: FileReport, as planned: FileReport) -> FileReport {
        var file = record
        (file.loop, file.notes) = (planned.loop, planned.notes)
        return file
    }
}
