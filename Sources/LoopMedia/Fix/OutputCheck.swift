import Foundation
import LoopAnalysis

/// fix's one check of a written output before it is kept: four comparisons, in order, the first that fails
/// refusing the file (nothing is written).
///
/// 1. The rules on the output's own facts: none of those fix exists to clear (`mustBeClean`) may remain, whatever
///    --disable says for the report.
/// 2. The output's facts against the plan (`PlanComparison`): frames and samples presented, where each track
///    starts and ends.
/// 3. The first presented frame against the planned source frame (`firstFrameDifference`): the same picture
///    bytes.
/// 4. The second reading (`SecondReading`): FFmpeg's own demuxer and decoders, sharing no timing code with the
///    planner, present what the plan says.
///
/// 1 to 3 read the output as loopprep reads files; only 4 is independent of it, and it runs last because it is the
/// dearest (it decodes).
enum OutputCheck {
    /// Rules an output must not trip, or it is discarded.
    static let mustBeClean = Set(
        [
            RuleID.audioLongerThanVideo, .videoLongerThanAudio, .startOffset, .primingNotSignalled,
            .firstFrameNotKeyframe, .timestampGap, .moovAtEnd, .emptyTrack, .movieDurationMismatch,
            .irregularAudioDurations,
        ].map(\.rawValue))

    /// The refusal of the output at `path` (its probe `written`), in a sentence; nil when all four agree.
    /// `firstFrames`: `plannedFirstFrames`, read from the source before writing.
    static func refusal(
        _ plan: FixPlan, written: Probe.Result, at path: String, analysis: AnalysisOptions,
        firstFrames: [Int: [[UInt8]]]
    ) throws -> String? {
        let after = written.facts
        var strict = analysis
        strict.disabled = nil
        // (An info-level finding is a remark, not a fault: it never blocks a write.)
        if let bad = Analyzer.findings(in: after, options: strict).first(where: {
            mustBeClean.contains($0.rule) && $0.severity != .info
        }) {
            // What a user can do: Matroska cannot hide part of an AAC frame, an MP4's edit list can.
            let primed = after.tracks.first { $0.index == bad.track && ["aac", "mp3"].contains($0.codec) }
            let hint =
                after.isMatroska && primed != nil
                ? """
                 (Matroska cannot hide part of an \(primed?.codec.uppercased() ?? "") frame; --to mp4 writes an \
                MP4, whose edit list can)
                """ : ""
            return "the output still has [\(bad.rule)] \(bad.message)\(hint)"
        }
        if let difference = try PlanComparison.difference(plan, output: after)
            ?? firstFrameDifference(plan, expected: firstFrames, output: written)
        {
            return "the output does not match its plan: \(difference)"
        }
        return secondReadingRefusal(plan, output: path)
    }

    /// The second reading every output passes before it is kept: FFmpeg's own demuxer and decoders must present
    /// what the plan says (frames exactly, audio to half a sample), sharing none of the planner's timing code.
    static func secondReadingRefusal(_ plan: FixPlan, output: String) -> String? {
        let expected = plan.tracks.map { cut in
            ExpectedTrack(
                kind: cut.kind, duration: plan.presented(cut),
                frames: cut.presentedFrames.map { $0 * plan.repeats })
        }
        let outcome = SecondReading.check(expected, output: output)
        // A file fix would copy as it is: what disagrees is loopprep's reading of the input, not anything fix did.
        if plan.isNoop, case .disagrees(let what) = outcome {
            return
                """
                nothing written: fix would copy it unchanged, but FFmpeg reads it otherwise than loopprep does \
                (\(what)); check its length in the player it is for, and please report the file
                """
        }
        return SecondReading.refusal(outcome)
    }

    /// What the source frame each copied video cut must show first holds (by cut index), read before writing.
    static func plannedFirstFrames(_ plan: FixPlan, source: Probe.Result) throws -> [Int: [[UInt8]]] {
        var out: [Int: [[UInt8]]] = [:]
        for cut in plan.tracks where cut.kind == .video && cut.head == nil {
            guard let planned = cut.firstPresented, let timeline = source.timelines[cut.index],
                planned < timeline.samples.count,
                // Copied, not re-encoded (--target web's last GOP may be the whole cut).
                timeline.samples[planned].dts >= cut.keepFrom, timeline.samples[planned].dts <= cut.keepThrough,
                let bytes = try FrameBytes.read(source, track: cut.index, sample: planned)
            else { continue }
            out[cut.index] = FrameBytes.picture(
                bytes, codec: cut.codec, extradata: FrameBytes.extradata(source, track: cut.index))
        }
        return out
    }

    /// The output's first presented frame must be the source's planned one: the same bytes, or (converted
    /// from MPEG-TS or -PS) the same NAL units.
    static func firstFrameDifference(_ plan: FixPlan, expected: [Int: [[UInt8]]], output: Probe.Result) throws
        -> String?
    {
        guard let pairs = PlanComparison.pairs(plan, output.facts) else { return nil }
        for (cut, track) in pairs {
            guard let wanted = expected[cut.index],
                let shown = output.timelines[track.index]?.presentedRange()?.firstSample,
                let bytes = try FrameBytes.read(output, track: track.index, sample: shown)
            else { continue }
            if FrameBytes.picture(
                bytes, codec: track.codec, extradata: FrameBytes.extradata(output, track: track.index))
                != wanted
            {
                return
                    """
                    \(Figures.trackName(track)) starts on another frame than the planned one (source sample \
                    \((cut.firstPresented ?? 0) + 1))
                    """
            }
        }
        return nil
    }

    /// The written file's report, as `analyze` gives it (ClipAnalysis.describe: its seam measured unless
    /// `analysis.seamChecks` is off, its findings, its loop range), its facts named for `destination`. A seam that
    /// cannot be measured is a note, never a refusal: the output was checked above.
    static func describe(_ written: Probe.Result, at temp: String, as destination: String, analysis: AnalysisOptions)
        -> FileReport
    {
        var timingOnly = analysis
        timingOnly.seamChecks = false
        var report: FileReport
        do { report = try ClipAnalysis.describe(written, path: temp, options: analysis).report } catch {
            report = FileReport(
                path: temp, facts: written.facts, findings: Analyzer.findings(in: written.facts, options: timingOnly))
            (report.loopRange, report.loopRangeReason) = LoopRanges.range(
                written.facts, timelines: written.timelines, findings: report.findings)
            report.notes = [
                "the seam was not measured: FFmpeg could not decode the output's ends (\(MediaError.describe(error)))"
            ]
        }
        if !analysis.seamChecks {
            report.notes = (report.notes ?? []) + ["the seam was not measured (--no-seam)"]
        }
        report.facts?.path = destination
        return report
    }

    /// A designed loop made worse (issue 32, item 5): where fix left out video frames (the picture cut to shorter
    /// audio) and the output's seam has a finding the input's had not, the note naming the flags that keep the
    /// loop whole. The input's seam is measured only then.
    static func seamMadeWorse(
        _ output: FileReport, plan: FixPlan, before: ClipFacts, source: String, analysis: AnalysisOptions
    ) -> String? {
        let seamRules: Set<RuleID> = [.seamVisualJump, .seamAudioClick]
        let found = Set(output.findings.compactMap(\.ruleID).filter(seamRules.contains))
        guard !found.isEmpty, cutsFrames(plan, before) else { return nil }
        let input = ClipAnalysis.report(path: source, options: analysis)
        let added = found.subtracting(input.findings.compactMap(\.ruleID)).map(\.rawValue).sorted()
        guard !added.isEmpty else { return nil }
        let video = plan.tracks.first { $0.kind == .video }
        let frames = video?.presentedFrames.map { "\($0) frames" } ?? Figures.seconds(plan.duration)
        let rules = added.joined(separator: " and ")
        return """
            fix's cut made the loop worse: the output's loop point (\(frames)) has \(rules), \
            the input's had not; --keep video pads the audio with silence to the video's end instead, --drop-audio \
            leaves it out
            """
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
