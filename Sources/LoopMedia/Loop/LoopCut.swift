import LoopAnalysis

/// Writes a loop the finder chose: frames [in, out) cut with fix's machinery (stream copy from the in point,
/// exact edit lists, verified against the plan; frames before the first keyframe re-encoded where the codec
/// allows), or with a crossfade, the clip's last D seconds blended into its first D by stitch's wrap-around.
/// The output is then analyzed with its seam measured, so the report says whether the loop is seamless.
public enum LoopCut {
    /// `reencodeHead`: the in point may be inside a GOP (H.264: the frames up to the next keyframe re-encoded).
    public static func write(
        _ path: String, loop: LoopCandidate, to destination: String, crossfade: Rational?, reencodeHead: Bool,
        temporaries: TemporaryFiles
    ) -> FileReport {
        if let crossfade {
            do {
                let clip = try Stitcher.prepare(path, in: loop.start, out: loop.end)
                let timeline = try Stitcher.timeline(
                    [clip], transitions: [TransitionRequest(kind: .crossfade, duration: crossfade)], loop: true)
                let plan = try Stitcher.plan([clip], timeline: timeline)
                _ = try Stitcher.write(
                    [clip], timeline: timeline, plan: plan, to: destination, temporaries: temporaries)
            } catch {
                return FileReport(
                    path: path, facts: nil,
                    findings: [
                        Finding(
                            rule: "loop-failed", severity: .error,
                            message: "the crossfaded loop could not be written: \(MediaError.describe(error))",
                            hint: "try without --crossfade")
                    ],
                    error: MediaError.describe(error))
            }
        } else {
            var options = FixOptions(reencodeHead: reencodeHead)
            options.range = (loop.start, loop.end)
            let source: String
            do { source = try RemoteFile.localCopy(of: path, beside: destination, temporaries: temporaries) } catch {
                return ClipAnalysis.unreadable(path: path, error: error)
            }
            defer { if source != path { temporaries.remove(source) } }
            let fixed = ClipFix.fix(
                source, to: destination, options: options, analysis: .init(seamChecks: false), dryRun: false,
                temporaries: temporaries)
            guard fixed.fix?.status == .fixed || fixed.fix?.status == .unchanged else { return fixed }
        }
        return ClipAnalysis.report(path: destination, options: .init())
    }
}
