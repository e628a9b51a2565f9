import Foundation
import LoopAnalysis
import LoopIndex

/// The one check of a written output before it is kept, for every command: each builds an
/// `Expectation` from its plan, and the comparisons run in order, the first that fails refusing the file (nothing is
/// written).
///
/// 1. Where the target is named: the output plays there (stitch: an output its target cannot play is not right).
/// 2. The rules on the output's own facts: those the command exists to clear may not remain, whatever --disable
///    says for the report.
/// 3. The counts the plan makes: audio tracks, samples, frames (stitch), or the whole plan (`PlanComparison`: frames
///    and samples presented, where each track starts and ends) and the first presented frame's bytes (fix).
/// 4. The second reading (`SecondReading`): FFmpeg's own demuxer and decoders, sharing no timing code with the
///    planner, present what the plan says.
///
/// 1 to 3 read the output as loopprep reads files; only 4 is independent of it, and it runs last because it is the
/// dearest (it decodes).
enum OutputCheck {
    /// Rules a fixed output must not trip, or it is discarded.
    static let mustBeClean = Set(
        [
            RuleID.audioLongerThanVideo, .videoLongerThanAudio, .startOffset, .primingNotSignalled,
            .firstFrameNotKeyframe, .timestampGap, .moovAtEnd, .emptyTrack, .movieDurationMismatch,
            .irregularAudioDurations,
        ].map(\.rawValue))

    /// What a command expects of the file it wrote, built from its plan.
    struct Expectation {
        /// Which findings refuse the output: the rules named (at any severity above info), or every rule at
        /// warning or above but those named.
        enum Clean {
            case rules(Set<String>)
            case allBut(Set<RuleID>)
        }
        var clean: Clean
        /// The options the rules are read with (--disable ignored).
        var analysis: AnalysisOptions
        /// The tracks FFmpeg's second reading must find: kind, length, frames.
        var tracks: [ExpectedTrack]
        /// Named: the output must play on the analysis' target (stitch's refusal, with what would play).
        var playable = false
        /// Counts: audio tracks, samples each presents, frames the main video presents.
        var audioTracks: Int?
        var audioSamples: Int64?
        var frames: Int?
        /// fix: the plan the output is compared with, and its first frames' bytes read from the source.
        var plan: FixPlan?
        var firstFrames: [Int: [[UInt8]]] = [:]
        /// What the input says besides its timing, every item of which the output must hold byte for byte.
        var metadata: KeptMetadataExpectation?
        /// fix: the input, whose reading by FFmpeg decides where it and the plan disagree on a track kept whole.
        var source: String?
        /// The inputs' parameter sets beyond their sample entries (TrackFacts.beyondEntry), which a copy keeps: any
        /// other in the output is a join coded beyond what the output's entry says.
        var beyondEntry: Set<String> = []

        /// What the inputs `facts` say beyond their sample entries.
        static func beyondEntry(of facts: [ClipFacts]) -> Set<String> {
            Set(facts.flatMap { $0.videoTracks.compactMap(\.beyondEntry) })
        }

        /// fix's: the rules fix clears, the plan, its first frames, each cut's presented length.
        static func fix(_ plan: FixPlan, analysis: AnalysisOptions, firstFrames: [Int: [[UInt8]]]) -> Expectation {
            Expectation(
                clean: .rules(mustBeClean), analysis: analysis,
                tracks: plan.tracks.map { cut in
                    var track = ExpectedTrack(
                        kind: cut.kind, duration: plan.presented(cut),
                        frames: cut.presentedFrames.map { $0 * plan.repeats })
                    // A video's frame ends are its source clock's where that clock rounds them (a millisecond
                    // Matroska's 33 or 34 ms for 33.367); a clock that counts whole frames (AVI's, Theora's
                    // granules, 1001 ticks of 1/30000) rounds nothing, and its frames are held exactly.
                    let frameTicks = cut.frameRate.map { ($0 * cut.timeBase).reciprocal }
                    if cut.kind == .video, let frameTicks, frameTicks.denominator != 1 { track.clock = cut.timeBase }
                    return track
                }, plan: plan, firstFrames: firstFrames)
        }
    }

    /// fix's refusal of the output at `path` (its probe `written`), in a sentence; nil when all agree. `expected`:
    /// `Expectation.fix`'s, with the source's path and metadata (for an MP4 or MOV written from one); `input`: the
    /// source's facts, whose descriptions the output holds.
    static func refusal(_ expected: Expectation, written: Probe.Result, at path: String, input: ClipFacts) throws
        -> OutputRefusal?
    {
        var expected = expected
        expected.beyondEntry = Expectation.beyondEntry(of: [input])
        if let refusal = try refusal(expected, written: written, at: path) { return refusal }
        guard let plan = expected.plan, let source = expected.source else { return nil }
        if let lost = try CarriedCheck.refusal(
            plan, input: input, source: source, output: path, container: written.facts.container)
        {
            return OutputRefusal(.metadataLost, lost)
        }
        return try AudioFormatCheck.refusal(plan, source: source, output: path).map { OutputRefusal(.planDiffers, $0) }
    }

    /// The refusal of the output at `path` (its probe `written`) against what its command expects; nil when all
    /// agree.
    static func refusal(_ expected: Expectation, written: Probe.Result, at path: String) throws -> OutputRefusal? {
        let after = written.facts
        var strict = expected.analysis
        strict.disabled = nil
        if expected.playable, let unplayable = unplayable(after, analysis: expected.analysis) { return unplayable }
        let findings = Analyzer.findings(in: after, options: strict)
        // (An info-level finding is a remark, not a fault: it never blocks a write.)
        let bad: Finding?
        switch expected.clean {
        case .rules(let rules):
            // A copied track's breaks the plan keeps as the input has them are said, not refused.
            let plan = expected.plan
            let admitted = Set(
                (plan.flatMap { PlanComparison.pairs($0, after) } ?? []).compactMap { pair in
                    plan?.keptBreaks[pair.cut.index]?.admits(pair.track) == true ? pair.track.index : nil
                })
            bad = findings.first {
                rules.contains($0.rule) && $0.severity != .info
                    && !($0.ruleID == .timestampGap && $0.track.map(admitted.contains) == true)
            }
        case .allBut(let rules):
            bad = findings.first { $0.severity >= .warning && !($0.ruleID.map(rules.contains) ?? false) }
        }
        if let bad {
            // What a user can do: Matroska cannot hide part of an AAC frame, an MP4's edit list can.
            let primed = after.tracks.first { $0.index == bad.track && ["aac", "mp3"].contains($0.codec) }
            let hint =
                after.isMatroska && primed != nil
                ? """
                 (Matroska cannot hide part of an \(primed?.codec.uppercased() ?? "") frame; --to mp4 writes an \
                MP4, whose edit list can)
                """ : ""
            return OutputRefusal(.stillHas, "the output still has [\(bad.rule)] \(bad.message)\(hint)")
        }
        if let difference = try countDifference(expected, after) {
            return OutputRefusal(.planDiffers, "the output does not match its plan: \(difference)")
        }
        if let lost = try beyondEntry(after, expected) ?? expected.metadata?.refusal(output: path, facts: after) {
            return OutputRefusal(.metadataLost, lost)
        }
        if let plan = expected.plan,
            let difference = try PlanComparison.difference(plan, output: after)
                ?? firstFrameDifference(plan, expected: expected.firstFrames, output: written)
        {
            return OutputRefusal(.planDiffers, "the output does not match its plan: \(difference)")
        }
        return secondReadingRefusal(expected, output: path, container: after.container)
    }

    /// A written video track whose frames need more than its sample entry names (a High-profile join in a Baseline
    /// reel), where no input had the same: a player set up from the entry may refuse them.
    static func beyondEntry(_ after: ClipFacts, _ expected: Expectation) -> String? {
        let admitted = expected.beyondEntry
        guard let track = after.videoTracks.first(where: { $0.beyondEntry.map { !admitted.contains($0) } ?? false }),
            let beyond = track.beyondEntry
        else { return nil }
        return """
            the output's \(Figures.trackName(track)) holds frames coded as H.264 \(beyond), beyond the \
            \(track.profile ?? "profile") its sample entry names, which a player set up from the entry may refuse; \
            nothing was written: please report the input
            """
    }

    /// The audio tracks, samples and frames the output presents against the counts expected.
    static func countDifference(_ expected: Expectation, _ after: ClipFacts) throws -> String? {
        if let lanes = expected.audioTracks, after.audioTracks.count != lanes {
            return "it has \(after.audioTracks.count) audio tracks, the plan \(lanes)"
        }
        if let samples = expected.audioSamples,
            let wrong = after.audioTracks.first(where: { $0.sampleCount != Rational(samples) })
        {
            return "\(Figures.trackName(wrong)) presents \(wrong.sampleCount ?? .zero) samples, the plan \(samples)"
        }
        if let frames = expected.frames, after.mainVideo?.frameCount != frames {
            return "it has \(after.mainVideo?.frameCount ?? 0) frames, the plan \(frames)"
        }
        return nil
    }

    /// An output the target cannot play (VP9 and Opus in an MP4 for Apple), in a sentence that says what would
    /// play; `--disable not-playable-on-target` keeps it anyway (a player loopprep does not model).
    static func unplayable(_ facts: ClipFacts, analysis: AnalysisOptions) -> OutputRefusal? {
        var forTarget = analysis
        forTarget.seamChecks = false
        guard
            let unplayable = Analyzer.findings(in: facts, options: forTarget).first(where: {
                $0.ruleID == .notPlayableOnTarget && $0.severity == .error
            })
        else { return nil }
        return OutputRefusal(
            .unplayable,
            """
            the output would not play on the \(analysis.target.rawValue) target: \(unplayable.message) \
            (\(unplayable.hint)); nothing was written (--target names where it plays; --disable \
            not-playable-on-target writes it anyway)
            """)
    }

    /// The second reading every output passes before it is kept: FFmpeg's own demuxer and decoders must present
    /// what the plan says (frames exactly, audio to half a sample), sharing none of the planner's timing code.
    static func secondReadingRefusal(_ expected: Expectation, output: String, container: Container? = nil)
        -> OutputRefusal?
    {
        let outcome = SecondReading.check(
            expected.tracks, output: output, rewritten: expected.plan?.isNoop != true)
        // A file that needs nothing, copied byte for byte, is the input itself: where FFmpeg cannot decode it, it
        // cannot decode the input either (analyze says so of it), and the copy is kept as what it is.
        if case .unreadable = outcome, expected.plan?.isNoop == true, expected.plan?.writer == .copy,
            let source = expected.source, FileManager.default.contentsEqual(atPath: source, andPath: output)
        {
            return nil
        }
        guard case .disagrees(let what) = outcome else {
            return SecondReading.refusal(outcome).map { OutputRefusal(.secondReading, $0) }
        }
        // An Ogg fix would copy as it is, read otherwise by FFmpeg than by libvorbis: written again (ClipFix).
        let copiedOgg = expected.plan?.isNoop == true && container == .ogg
        if !copiedOgg, let plan = expected.plan, let source = expected.source,
            let asRead = inputReading(expected.tracks, plan: plan, source: source, rewritten: !plan.isNoop),
            SecondReading.check(asRead, output: output, rewritten: !plan.isNoop) == .agrees
        {
            return nil
        }
        // A file fix would copy as it is: what disagrees is loopprep's reading of the input, not anything fix did.
        if expected.plan?.isNoop == true {
            return OutputRefusal(
                .unchangedReadOtherwise,
                """
                nothing written: fix would copy it unchanged, but FFmpeg reads it otherwise than loopprep does \
                (\(what)); check its length in the player it is for, and please report the file
                """)
        }
        return SecondReading.refusal(outcome).map { OutputRefusal(.secondReading, $0) }
    }

    /// Where the plan keeps a track's end as it is (nothing trimmed there, or nothing moved at its start), what
    /// FFmpeg reads of that end in the input is what it must read of it in the output: the plan's figures for it are
    /// loopprep's reading, and where FFmpeg reads the input otherwise (an MP4 whose last frame has no length in its
    /// index, cut by mpv's encoder on a millisecond movie clock: 2766.667 ms where its edit says 2767), FFmpeg's
    /// decoding of input and output decides, as it does for every copied frame. A track kept whole takes FFmpeg's
    /// length and frames of it; a track cut at one end only, the plan's length with the difference of FFmpeg's
    /// reading of the input's whole length from loopprep's (at the end the plan keeps: a difference that was at the
    /// cut end instead makes the output disagree, and it is refused). A copy of the whole file keeps both ends or
    /// neither (a trim under the container's tick is no cut, but no end kept as it is either). nil where no track
    /// keeps an end.
    static func inputReading(_ tracks: [ExpectedTrack], plan: FixPlan, source: String, rewritten: Bool)
        -> [ExpectedTrack]?
    {
        let ends = plan.tracks.indices.map { i in
            let cut = plan.tracks[i]
            let head = cut.trimmedHead.isZero && cut.shift == nil && cut.head == nil
            let tail = cut.trimmedTail.isZero && cut.tail == nil
            return plan.isNoop ? (head: head && tail, tail: head && tail) : (head: head, tail: tail)
        }
        guard ends.contains(where: { $0.head || $0.tail }), plan.repeats == 1, tracks.count == plan.tracks.count,
            let reading = try? FFmpegReading.read(source, libvorbisStart: !rewritten)
        else { return nil }
        var out = tracks
        for i in plan.tracks.indices where ends[i].head || ends[i].tail {
            let cut = plan.tracks[i]
            guard let track = reading.tracks.first(where: { $0.index == cut.index }),
                let start = track.start, let end = track.end
            else { return nil }
            if ends[i].head && ends[i].tail {
                out[i].duration = end - start
                if out[i].frames != nil { out[i].frames = track.frames }
            } else {
                out[i].duration = out[i].duration + (end - start) - (cut.endBefore - cut.startBefore)
            }
        }
        return out
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
    /// cannot be measured is a note, never a refusal: the output was checked above. `given`: its first and last
    /// pictures as the source's decoding gave them (ClipAnalysis.describe).
    static func describe(
        _ written: Probe.Result, at temp: String, as destination: String, analysis: AnalysisOptions,
        given: SourcePictures? = nil
    ) -> FileReport {
        var timingOnly = analysis
        timingOnly.seamChecks = false
        var report: FileReport
        do { report = try ClipAnalysis.describe(written, path: temp, options: analysis, given: given).report } catch {
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

    /// A designed loop made worse: where fix left out video frames (the picture cut to shorter
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

/// Why an output is refused, for code to act on, and the sentence that says it to a user.
struct OutputRefusal: Sendable {
    enum Kind: Sendable {
        /// It would not play on the target.
        case unplayable
        /// A rule the write should have cleared still finds a fault.
        case stillHas
        /// It presents other tracks, counts or frames than the plan.
        case planDiffers
        /// Something the input says besides its timing did not survive.
        case metadataLost
        /// FFmpeg's own reading disagrees with the plan.
        case secondReading
        /// A copy of the input as it is, which FFmpeg reads otherwise than loopprep (fix writes an Ogg so refused
        /// again through the muxer).
        case unchangedReadOtherwise
    }
    var kind: Kind
    var sentence: String
    init(_ kind: Kind, _ sentence: String) {
        self.kind = kind
        self.sentence = sentence
    }
}
