import LoopAnalysis
import LoopIndex

/// Writes a loop the finder chose: frames [in, out) cut with fix's machinery (stream copy from the in point,
/// exact edit lists, verified against the plan; frames before the first keyframe re-encoded where the codec
/// allows), or with a crossfade, the clip's last D seconds blended into its first D by stitch's wrap-around.
/// The output is then analyzed with its seam measured, so the report says whether the loop is seamless.
public enum LoopCut {
    /// loop's one entry for a clip (as ClipFix.fix is fix's): its signatures searched, the candidates ranked,
    /// and the chosen one written to `destination` and analyzed; a dry run plans that same write (to
    /// `destination`'s container; to the clip's own where none is named) and writes nothing. The output named is
    /// checked first, before the search: never the clip itself, an existing file only with --force.
    /// `progress`: what the search is doing, for a terminal (decoding, comparing), with how far it is (0-1).
    /// `claim`: claims the output's final name for this clip (OutputClaims), the refusal when another holds it.
    public static func loop(
        _ path: String, request: LoopRequest, to destination: String?, dryRun: Bool = false,
        temporaries: TemporaryFiles,
        claim: ((String) -> Refusal?)? = nil, progress: (@Sendable (String, Double) -> Void)? = nil
    ) -> FileReport {
        var (choice, notes) = (LoopChoice(), [String]())
        /// Not written: the refusal, with what was found before it.
        func refused(_ refusal: Refusal) -> FileReport {
            found(FileReport(path: path, facts: nil, findings: [], fix: FixOutcome(status: .failed, refusal: refusal)))
        }
        /// The clip's record with what the search found.
        func found(_ report: FileReport) -> FileReport {
            var file = report
            (file.loop, file.notes) = (choice, notes.isEmpty ? nil : notes)
            return file
        }
        if let destination, let refusal = OutputPath.refusal(destination, inputs: [path], force: request.force) {
            return refused(refusal)
        }
        let s: LoopSearch.Signatures
        do { s = try LoopSearch.signatures(path, progress: progress.map { p in { p("decoding", $0) } }) } catch {
            if let refusal = error as? PlanError { return refused(.plan(refusal.reason)) }
            return FileReport.unreadable(path: path, reason: MediaError.describe(error))
        }
        do {
            let fps = s.frameRate ?? Rational(30)
            let crossfade = request.crossfade.flatMap { $0.seconds(frameRate: fps) }
            let minimum = Rational(Int64(request.minimum.frames(at: fps))) / fps
            if let crossfade, !(crossfade > .zero && crossfade * 2 < minimum) { return refused(Self.crossfadeTooLong) }
            let options = finderOptions(s, request: request, frameRate: fps)
            let searched = s.searched
            choice.candidates = LoopFinder.find(
                Array(searched.frames), times: Array(searched.times), end: searched.end, options: options,
                progress: progress.map { p in { p("comparing", $0) } })
            let stopped = s.stoppedAtAudio
            if request.pictures {
                choice.strips = try strips(
                    path, choice.candidates, signatures: s, clickThreshold: options.clickThreshold)
            }
            guard choice.candidates.count >= request.pick else { return refused(noneFits(request, stopped: stopped)) }
            choice.chosen = request.pick - 1
            if let at = Self.atMinimum(choice.candidates[request.pick - 1], options: options, request: request) {
                notes.append(at)
            }
            // Footage that does not repeat well enough is said so, not written: the seam analyze would flag is the
            // bar (the same thresholds); a crossfade is the way to loop it anyway.
            let chosen = choice.candidates[request.pick - 1]
            if !chosen.seamless && crossfade == nil {
                return refused(noRepeat(chosen, request: request, options: options, stopped: stopped))
            }
            // One path for the dry run and the write: the same claims, plan and refusals; only the writing differs.
            let planning = dryRun || destination == nil
            let (report, blend) = write(
                path, loop: chosen, crossfade: crossfade, signatures: s, request: request,
                to: Destination(path: destination, dryRun: planning, claim: claim, temporaries: temporaries))
            (choice.blend, choice.blendPlan) = (blend?.reel.timeline, blend?.reel.plan)
            let file = record(report, of: path, planned: planning ? (destination ?? "") : nil)
            if let stopped, file.outcome?.failed == false { notes.append(stopped) }
            return found(file)
        } catch {
            return refused(.write(MediaError.describe(error)))
        }
    }

    /// No loop between --min and --max: the clip is too short for them (or the search stopped at the audio's end).
    static func noneFits(_ request: LoopRequest, stopped: String?) -> Refusal {
        let why = stopped.map { ": \($0)" } ?? ""
        return .noLoop("no loop between \(request.minimum) and \(request.maximum) fits in the clip" + why)
    }

    /// The search's bounds and thresholds: H.264 may start inside a GOP (re-encoding the head); other codecs start
    /// on a keyframe; a crossfade encodes its blend whatever the start (copying counts only for a plain cut).
    static func finderOptions(_ s: LoopSearch.Signatures, request: LoopRequest, frameRate: Rational)
        -> LoopFinder.Options
    {
        var options = LoopFinder.Options(
            minFrames: request.minimum.frames(at: frameRate), maxFrames: request.maximum.frames(at: frameRate),
            allowedIn: s.codec == "h264" || request.crossfade != nil ? nil : s.keyframes, top: request.top,
            visualThreshold: request.analysis.threshold(.seamVisualJump),
            clickThreshold: request.analysis.threshold(.seamAudioClick))
        if request.crossfade == nil { options.keyframes = s.keyframes }
        return options
    }

    /// The clip's record of the chosen loop's plan or write: a dry run's plan and output (`planned`: the output
    /// named, "" for none) or refusal; the file written (a container that cannot say the cut is written as an MP4
    /// beside it), described as analyze describes it, loop range included; or the write's refusal.
    static func record(_ report: FileReport, of path: String, planned: String?) -> FileReport {
        let refusal = report.outcome?.refusal
        let plan = report.fix?.plan
        var file = FileReport(path: path, facts: nil, findings: [])
        if let planned {
            let output = planned.isEmpty ? nil : report.fix?.output ?? planned
            file.fix = FixOutcome(
                status: refusal == nil ? .planned : .failed, output: refusal == nil ? output : nil, refusal: refusal,
                plan: plan)
            return file
        }
        file.findings = report.findings
        if let refusal {
            file.fix = FixOutcome(status: .failed, refusal: refusal, plan: plan)
            return file
        }
        file.fix = FixOutcome(status: .fixed, output: report.path, plan: plan)
        file.facts = report.facts
        (file.loopRange, file.loopRangeReason) = (report.loopRange, report.loopRangeReason)
        return file
    }

    /// Each candidate's seam strip (PNG): the seams in colour and with their sound, from one more pass over the
    /// file.
    static func strips(
        _ path: String, _ candidates: [LoopCandidate], signatures s: LoopSearch.Signatures, clickThreshold: Double
    ) throws -> [[UInt8]] {
        let wanted = Set(
            candidates.flatMap { Array(max($0.outFrame - 3, 0)..<$0.outFrame) + Array($0.inFrame..<$0.inFrame + 3) })
        let seam = try? LoopSearch.seamPictures(
            path, frames: wanted, boundaries: Set(candidates.flatMap { [$0.start, $0.end] }), offset: s.audioOffset)
        return try candidates.map {
            try LoopStrip.png(s.frames, $0, times: s.times, seam: seam, clickThreshold: clickThreshold)
        }
    }

    /// The chosen loop is as short as --min allows: the search may have been stopped by the bound, not by the
    /// footage (said so, with what to try).
    static func atMinimum(_ c: LoopCandidate, options: LoopFinder.Options, request: LoopRequest) -> String? {
        guard c.frames <= options.minFrames, options.maxFrames > options.minFrames else { return nil }
        return """
            the loop chosen is as short as --min \(request.minimum) allows (\(c.frames) frames): the footage may \
            repeat sooner, and a lower --min may find a better loop
            """
    }

    /// Why the chosen candidate (the request's pick) is not written: which seam rule the loop would trip, with its
    /// figures; a suggested crossfade keeps the shortest loop analyze accepts (too-short-to-loop). `stopped`: where
    /// the search stopped short of the clip (at the audio's end), said after.
    static func noRepeat(
        _ c: LoopCandidate, request: LoopRequest, options: LoopFinder.Options, stopped: String?
    ) -> Refusal {
        let (pick, minimumLoop) = (request.pick, request.analysis.minimumLoopSeconds)
        let why = seamFaults(c, options: options)
        let which = pick == 1 ? "the best loop" : "loop #\(pick)"
        // The blend overlaps the loop's ends, so the loop comes out the fade shorter: --min is raised by the fade,
        // so the blended loop is at least the --min asked for (and the shortest loop analyze accepts,
        // too-short-to-loop). The fade, a third of that length to the millisecond, is under half the raised --min.
        let minimum = Rational(Int64(options.minFrames)) * (c.end - c.start) / Rational(Int64(max(c.frames, 1)))
        let kept = Rational.max(minimum, minimumLoop)
        let fade = Rational((kept * Rational(1000, 3)).floor, 1000)
        let raised = Rational(((kept + fade) * 1000).ceiling, 1000)
        let suggestion =
            fade > .zero
            ? "--crossfade \(Figures.decimal(fade, places: 3)) --min \(Figures.decimal(raised, places: 3)) blends the "
                + "seam and keeps the loop at least \(Figures.seconds(kept)) long"
            : "a crossfade blends it"
        return .noLoop(
            """
            no repeat found: \(which), \(Figures.seconds(c.start))-\(Figures.seconds(c.end)), would show \
            \(why.joined(separator: " and ")); nothing was written (\(suggestion), or try other --min and --max)
            """ + (stopped.map { "; \($0)" } ?? ""))
    }

    /// What the candidate's seam would show, a clause each (the rules' names first): a picture with no structure,
    /// a change of structure, a jump of picture, a click.
    static func seamFaults(_ c: LoopCandidate, options: LoopFinder.Options) -> [String] {
        var why: [String] = []
        let (cut, click) = options.seamFlags(c)
        let around = c.neighbourDissimilarity.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        if options.structure(c) == .noStructure {
            why.append(
                """
                [seam-visual-jump] a picture that changes entirely from frame to frame (1 - SSIM \(around) between \
                its neighbouring frames): nothing in it repeats
                """)
        } else if cut,
            !SeamVisualJump.isBrightnessCut(
                difference: c.seamDifference, motion: c.seamMotion, threshold: options.visualThreshold,
                around: c.motionAround)
        {
            why.append(
                """
                [seam-visual-jump] its picture's structure changes at the seam by \
                \(String(format: "%.2f", c.seamDissimilarity)) (1 - SSIM) against \(around) between the frames around it
                """)
        } else if cut {
            let (difference, motion) = (String(format: "%.1f", c.seamDifference), String(format: "%.1f", c.seamMotion))
            why.append(
                "[seam-visual-jump] its last frame differs from its first by \(difference) against \(motion) "
                    + "between its last two")
        }
        if click {
            why.append("[seam-audio-click] the audio jumps by \(String(format: "%.3f", c.audioJump)) of full scale")
        }
        return why
    }

    /// The loop's first and last pictures as the search decoded them (the seam's three each side), which the
    /// written cut's seam takes where it copies every frame (SourcePictures).
    static func pictures(of loop: LoopCandidate, in s: LoopSearch.Signatures) -> SourcePictures? {
        let n = SeamCapture.frames
        guard loop.inFrame >= 0, loop.inFrame + n <= loop.outFrame, loop.outFrame <= s.frames.count else { return nil }
        return SourcePictures(
            first: Array(s.frames[loop.inFrame..<loop.inFrame + n]),
            last: Array(s.frames[loop.outFrame - n..<loop.outFrame]))
    }

    /// Where the chosen loop goes and how: its output (nil: planned for the clip's own container, nothing claimed),
    /// whether it is only planned, the claim on its name (OutputClaims) and the run's temporary files.
    struct Destination {
        var path: String?
        var dryRun: Bool
        var claim: ((String) -> Refusal?)?
        var temporaries: TemporaryFiles
    }

    /// The chosen loop planned (a dry run: what the write would do, which frames are copied and which encoded again,
    /// or the blend's timeline; or the refusal the write would give) or written, by one path: the same claims and
    /// plan either way. H.264 may start inside a GOP (the frames up to the next keyframe encoded again); a copied
    /// cut's seam takes the loop's first and last pictures as the search decoded them.
    static func write(
        _ path: String, loop: LoopCandidate, crossfade: Rational?, signatures s: LoopSearch.Signatures,
        request: LoopRequest, to destination: Destination
    ) -> (report: FileReport, blend: StitchReport?) {
        guard let crossfade else {
            let options = cutOptions(
                loop, reencodeHead: s.codec == "h264", forWeb: request.forWeb, pictures: pictures(of: loop, in: s))
            return (cut(path, loop: loop, options: options, analysis: request.analysis, to: destination), nil)
        }
        // A web player's no-go for the blend's container, before anything is written (its codecs are said after).
        if request.forWeb, let output = destination.path,
            let refusal = WebPlayerEligibility.containerRefusal(output, remedy: remedy)
        {
            return (refused(path, refusal), nil)
        }
        return blended(
            path, loop: loop, crossfade: crossfade, variableTiming: s.hasVariableTiming, request: request,
            to: destination)
    }

    /// A loop refused before or while writing (said once, as every command's refusal: `fix.reason`).
    static func refused(_ path: String, _ refusal: Refusal) -> FileReport {
        FileReport(path: path, facts: nil, findings: [], fix: FixOutcome(status: .failed, refusal: refusal))
    }

    /// A crossfade of half the loop or more (or none at all) blends nothing into a loop.
    static let crossfadeTooLong = Refusal.plan(
        "--crossfade must be above 0 and under half of --min (at this clip's frame rate)")

    /// What a loop refused a web player does instead.
    static let remedy = "loop it into an MP4 with -o NAME.mp4"

    /// The loop blended (--crossfade) as stitch joins a clip to itself: planned, or written to its destination.
    static func blended(
        _ path: String, loop: LoopCandidate, crossfade: Rational, variableTiming: Bool, request asked: LoopRequest,
        to destination: Destination
    ) -> (report: FileReport, blend: StitchReport?) {
        var request = blendRequest(
            path, loop: loop, crossfade: crossfade, variableTiming: variableTiming, analysis: asked.analysis,
            to: destination.dryRun ? nil : destination.path)
        request.named = destination.path
        // A web player the blend cannot have is refused with the plan, before anything is written.
        request.webPlayerRemedy = asked.forWeb ? Self.remedy : nil
        var stitched: StitchReport?
        var planned: PlannedStitch?
        let refusal: Refusal?
        do {
            planned = try Stitcher.plan(request)
            stitched = planned?.report
            if let planned, let output = request.output, planned.report.refusal == nil {
                stitched = Stitcher.carryOut(planned, to: output, temporaries: destination.temporaries, progress: nil)
            }
            refusal = stitched?.refusal
        } catch { refusal = error }
        return (blendOutcome(path, stitched: stitched, refusal: refusal, output: destination.path), stitched)
    }

    /// The blended loop's record from stitch's report: the written loop as Stitcher described it (its seam measured,
    /// not read a second time), or its refusal as the crossfaded loop's.
    static func blendOutcome(_ path: String, stitched: StitchReport?, refusal: Refusal?, output: String?) -> FileReport
    {
        if let refusal {
            // In the dry run's words, with the blend planned where stitch planned one before refusing.
            return refused(path, .crossfadedLoop(refusal))
        }
        var written = FileReport(path: output ?? path, facts: stitched?.facts, findings: stitched?.findings ?? [])
        (written.loopRange, written.loopRangeReason) = (stitched?.loopRange, stitched?.loopRangeReason)
        return written
    }

    /// The loop cut with fix's machinery: the cut planned must be the loop chosen (its frames and length) before
    /// anything is written, and the output is checked against that plan; its findings are the loop's target's (the
    /// written loop's as analyze describes it, ClipFix measuring its seam, or the source's where the cut is
    /// refused), and a web player's no-go (a container or codec browsers do not append) refuses it before writing.
    /// A dry run plans from where the clip is (a URL read by byte ranges), claiming the output a write claims; a
    /// write works from a copy beside its output (the output was checked before the search: never the input, an
    /// existing one only with --force).
    static func cut(
        _ path: String, loop: LoopCandidate, options: FixOptions, analysis: AnalysisOptions, to d: Destination
    ) -> FileReport {
        // (A web player follows exactly where the video is cut for it: its no-go is the plan's too.)
        let accepts = { (plan: FixPlan) in
            LoopPlanCheck.difference(plan, chosen: loop).map { Refusal.plan($0) }
                ?? (options.bakeVideo ? WebPlayerEligibility.refusal(plan, remedy: remedy) : nil)
        }
        guard !d.dryRun, let destination = d.path else {
            var request = FixRequest(
                to: d.path ?? path, options: options, analysis: analysis, dryRun: true, temporaries: d.temporaries)
            (request.accepts, request.claim) = (accepts, d.path == nil ? nil : d.claim)
            return ClipFix.fix(path, request)
        }
        let source: String
        do { source = try RemoteFile.localCopy(of: path, beside: destination, temporaries: d.temporaries) } catch {
            return ClipAnalysis.unreadable(path: path, error: error)
        }
        defer { if source != path { d.temporaries.remove(source) } }
        var request = FixRequest(to: destination, options: options, analysis: analysis, temporaries: d.temporaries)
        (request.force, request.accepts, request.claim) = (true, accepts, d.claim)
        var fixed = ClipFix.fix(source, request)
        // The written loop, named as written (fix's report names its input).
        if let output = fixed.fix?.output, fixed.fix?.status != .failed { fixed.path = output }
        return fixed
    }

    /// The crossfaded loop as stitch makes it: the clip's frames [in, out) joined to themselves by the blend, on
    /// the loop's target. `destination` nil: planned only.
    static func blendRequest(
        _ path: String, loop: LoopCandidate, crossfade: Rational, variableTiming: Bool, analysis: AnalysisOptions,
        to destination: String?
    ) -> StitchRequest {
        var request = StitchRequest(
            clips: [.init(path: path, inPoint: loop.start, outPoint: loop.end)],
            transitions: [TransitionRequest(kind: .crossfade, duration: crossfade)], loop: true, output: destination)
        // The loop command has refused an output that exists or is its input already.
        request.force = true
        // Frames of uneven length (an FLV remux's 33 and 34 ms) cannot be copied beside a blend on one frame
        // grid: the crossfaded loop is encoded whole, as stitch --normalize does.
        request.normalize = variableTiming
        // The loop's target decides what may be written, and its findings are said for it.
        request.analysis = analysis
        return request
    }

    /// fix's options for a loop's cut: frames [in, out) on the clip's first-frame clock, H.264 started inside a GOP
    /// by encoding its first frames again.
    /// `pictures`: its first and last pictures as the search decoded them, for the written cut's seam.
    static func cutOptions(
        _ loop: LoopCandidate, reencodeHead: Bool, forWeb: Bool, pictures: SourcePictures? = nil
    ) -> FixOptions {
        var options = FixOptions(reencodeHead: reencodeHead, bakeVideo: forWeb)
        options.rangePictures = pictures
        // The loop's times count from the first frame, as fix's range does.
        options.range = (loop.start, loop.end)
        return options
    }
}
