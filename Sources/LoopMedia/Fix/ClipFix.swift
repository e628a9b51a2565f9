import Foundation
import LoopAnalysis
import LoopIndex

/// One input's fix as asked: where it goes, with what, planned only or written, and the caller's conditions.
public struct FixRequest {
    public var destination: String
    public var options: FixOptions
    public var analysis: AnalysisOptions
    public var dryRun: Bool
    /// Replace an output that exists (never the input: in place is `destination` == the input's path).
    public var force = false
    /// A caller's condition on the plan before anything is written (loop: the plan is the candidate it chose); the
    /// refusal it returns refuses the file.
    public var accepts: ((FixPlan) -> Refusal?)?
    /// Claims the output's final name for this input (OutputClaims), the refusal when another input of the run
    /// holds it.
    public var claim: ((String) -> Refusal?)?
    public var temporaries: TemporaryFiles
    /// A file that needs nothing is written again by the muxer all the same (an Ogg FFmpeg reads otherwise than
    /// libvorbis).
    var rewrite = false

    public init(
        to destination: String, options: FixOptions = FixOptions(), analysis: AnalysisOptions = AnalysisOptions(),
        dryRun: Bool = false, temporaries: TemporaryFiles
    ) {
        self.destination = destination
        self.options = options
        self.analysis = analysis
        self.dryRun = dryRun
        self.temporaries = temporaries
    }
}

/// One file through fix: probe, plan, remux (stream copy), exact edit lists with moov first, re-probe and
/// verify, then an atomic rename. Nothing is left behind on failure, and nothing is written over an input
/// unless the request's destination is the input's own path.
public enum ClipFix {
    public static func fix(_ path: String, _ request: FixRequest) -> FileReport {
        let analysis = request.analysis
        let source: Probe.Result
        do { source = try Probe.probe(path, keepInput: false, locations: true) } catch
            where RemoteFile.refusedRanges(error)
        {
            return fixFetched(path, request)
        } catch {
            return FileReport.unreadable(path: path, reason: MediaError.describe(error))
        }
        // The input's loop range (as analyze reports it): the report's own where nothing was written, labelled as
        // the input's beside a written output (whose own range the report gives).
        let range = LoopRanges.range(
            source.facts, timelines: source.timelines, findings: Analyzer.findings(in: source.facts, options: analysis))
        var refused: OutputRefusal.Kind?
        var report = fix(path, source: source, request, refused: &refused)
        // A copy of an Ogg FFmpeg reads otherwise than libvorbis (oggenc's short files: one data page, also the last)
        // is written again through the muxer, whose pages FFmpeg times as libvorbis does, and checked again.
        if refused == .unchangedReadOtherwise, source.facts.container == .ogg,
            let again = try? Probe.probe(path, keepInput: false, locations: true)
        {
            var rewrite = request
            rewrite.rewrite = true
            report = fix(path, source: again, rewrite, refused: &refused)
        }
        if report.fix?.output != nil, report.fix?.status != .planned {
            report.fix?.inputLoopRange = range.range
            report.fix?.inputLoopRangeReason = range.reason
        } else {
            (report.loopRange, report.loopRangeReason) = range
        }
        return report
    }

    /// A server without byte ranges: the clip is fetched whole beside the output and fixed from there, as loop
    /// does; the report names the URL.
    static func fixFetched(_ path: String, _ request: FixRequest) -> FileReport {
        let temporaries = request.temporaries
        let local: String
        do { local = try RemoteFile.localCopy(of: path, beside: request.destination, temporaries: temporaries) } catch {
            return FileReport.unreadable(path: path, reason: MediaError.describe(error))
        }
        defer { temporaries.remove(local) }
        var report = fix(local, request)
        report.path = path
        return report
    }

    static func fix(
        _ path: String, source consumingSource: consuming Probe.Result, _ request: FixRequest,
        refused: inout OutputRefusal.Kind?
    ) -> FileReport {
        let source = consume consumingSource
        let before = source.facts
        let planned = Self.plan(path, source: source, request)
        let (plan, output): (FixPlan, String)
        switch planned {
        case .refused(let report): return report
        case .plan(let planned, let destination): (plan, output) = (planned, destination)
        }
        if request.dryRun {
            return FileReport(
                path: path, facts: before, findings: Analyzer.findings(in: before, options: request.analysis),
                fix: FixOutcome(status: .planned, output: output, plan: plan, before: before))
        }
        var written = request
        written.destination = output
        return carryOut(plan, path: path, source: source, written, refused: &refused)
    }

    /// What fix does with one input, decided before anything is written: the plan, or the report of a refusal.
    enum Planned {
        /// The plan, final, and the output's path (a conversion's name where the plan converts).
        case plan(FixPlan, output: String)
        case refused(FileReport)
    }

    /// The plan is final when planned: the container written (a file whose own cannot say the cut becomes an MP4 or
    /// MOV, with what FFmpeg's muxers accept) and the writer are decided with it, the web player's go or no-go
    /// (`accepts`) and the output's claim made on it. A request to `rewrite` writes a file that needs nothing again
    /// by the muxer all the same (an Ogg FFmpeg reads otherwise than libvorbis), as the dry run of such a file says.
    static func plan(_ path: String, source: borrowing Probe.Result, _ request: FixRequest) -> Planned {
        let (options, analysis, rewrite) = (request.options, request.analysis, request.rewrite)
        let before = source.facts
        var plan: FixPlan
        do {
            plan = try FixPlanner.plan(
                before, timelines: source.timelines, options: options,
                output: FixPlanner.Output(destination: request.destination, accepts: OutputFile.takes(path)))
        } catch let refusal as ConversionRefusal {
            return .refused(failed(path, before, analysis, .plan(refusal.reason), plan: refusal.plan))
        } catch let refusal as PlanError {
            // A rule of the plan's own, in its words (they name the cause and the remedy).
            return .refused(failed(path, before, analysis, .plan(refusal.reason)))
        } catch {
            let refusal = Refusal.plan("cannot plan: \(MediaError.describe(error))")
            return .refused(failed(path, before, analysis, refusal))
        }
        let readOtherwise =
            request.dryRun && !rewrite && before.container == .ogg
            && copyReadOtherwise(plan, source, path, analysis)
        if rewrite || readOtherwise, plan.isNoop {
            plan.isNoop = false
            plan.writer = .remux
            plan.notes.append("written again: FFmpeg reads the input's single Ogg page otherwise than libvorbis")
        }
        if let refusal = request.accepts?(plan) {
            return .refused(failed(path, before, analysis, refusal, plan: plan))
        }
        let destination = plan.outputPath ?? request.destination
        if let format = plan.convertsTo, FileManager.default.fileExists(atPath: destination),
            OutputPath.sameFile(path, destination)
        {
            return .refused(
                failed(
                    path, before, analysis,
                    .outputIsInput(output: destination, input: path, .converted(format.container)),
                    plan: plan))
        }
        if let refusal = request.claim?(destination) {
            return .refused(failed(path, before, analysis, refusal, plan: plan))
        }
        return .plan(plan, output: destination)
    }

    /// Carries the plan out: written beside `destination`, checked, described as analyze describes it, and renamed
    /// into place. An output that exists is replaced only when asked (in place replaces the input itself, by
    /// design); one that is already byte for byte what this run writes (a run resumed) is kept and counted as
    /// written (verified again now, left as it is), one that differs is refused once this run's is written and
    /// compared.
    static func carryOut(
        _ plan: FixPlan, path: String, source consumingSource: consuming Probe.Result, _ request: FixRequest,
        refused: inout OutputRefusal.Kind?
    ) -> FileReport {
        let source = consume consumingSource
        let (destination, analysis, temporaries) = (request.destination, request.analysis, request.temporaries)
        let before = source.facts
        let existing = !request.force && OutputPath.existsBeside(path, destination)
        // The independent check reads the output with FFmpeg: loaded while the media is copied, not after.
        FFmpegLibraries.loadAhead()
        // A copy that stopped on an error (the disk full) is what the user is told, whatever a reading of the output
        // then met (it waits for bytes that never came).
        var copying: CopyProgress?
        do {
            let temp = try temporaries.make(beside: destination)
            defer { temporaries.remove(temp) }
            let firstFrames = try OutputCheck.plannedFirstFrames(plan, source: source)
            // An index-driven MP4 is read back while its media is copied (its reads wait for their bytes); the
            // disk write is flushed once copied. The copy is called off and waited for on every way out.
            copying = try write(
                path, plan: plan, source: source, to: temp, temporaries: temporaries, flushWhenCopied: !existing)
            defer {
                copying?.cancel()
                try? copying?.wait()
                GrowingFiles.unregister(temp)
            }
            if existing { try copying?.wait() }
            if existing, !FileManager.default.contentsEqual(atPath: temp, andPath: destination) {
                return failed(path, before, analysis, OutputPath.differs(destination), plan: plan)
            }
            // The disk write finishes while the output is checked; the rename waits for both.
            if !existing && copying == nil { temporaries.beginFlush(temp) }
            let metadata = KeptMetadataExpectation.fix(plan, facts: before, iso: source.iso)
            // The source's index is let go before the output is probed: two hour-long indexes need not be held.
            _ = consume source
            let output = WrittenOutput(
                temp: temp, destination: destination, firstFrames: firstFrames, metadata: metadata, copying: copying,
                existing: existing)
            let report = try checked(plan, output, path: path, before: before, request, refused: &refused)
            guard report.fix?.status != .failed else { return report }
            try copying?.wait()
            if !existing { try temporaries.commit(temp, to: destination) }
            return report
        } catch {
            return failed(path, before, analysis, whileWriting(destination, copying?.failure ?? error), plan: plan)
        }
    }

    /// A write that stopped, in words: the output folder taken away meanwhile, or the error met (the copy's own
    /// first: the disk full).
    static func whileWriting(_ destination: String, _ error: Error) -> Refusal {
        let folder = (destination as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            return .write("write output: the output folder \(folder) was removed while writing")
        }
        return .write(MediaError.whileWriting(error))
    }

    /// The output read back and held to the plan: the report of a refusal (a copy that stopped is thrown: it, not
    /// what a reading of the output met, is the cause), or the written file's, as `analyze OUTPUT` gives it: its
    /// facts, its seam measured (unless --no-seam), its findings and its own loop range, with the fix's outcome.
    static func checked(
        _ plan: FixPlan, _ output: WrittenOutput, path: String, before: ClipFacts, _ request: FixRequest,
        refused: inout OutputRefusal.Kind?
    ) throws -> FileReport {
        let (temp, destination, copying) = (output.temp, output.destination, output.copying)
        let (firstFrames, metadata) = (output.firstFrames, output.metadata)
        let (options, analysis) = (request.options, request.analysis)
        let written = try Probe.probe(temp, keepInput: false, locations: true)
        var expected = OutputCheck.Expectation.fix(plan, analysis: analysis, firstFrames: firstFrames)
        (expected.metadata, expected.source) = (metadata, path)
        if let refusal = try OutputCheck.refusal(expected, written: written, at: temp, input: before) {
            if let failure = copying?.failure { throw failure }
            refused = refusal.kind
            return failed(path, before, analysis, .check(refusal.sentence), plan: plan)
        }
        // A loop's cut copied whole: its last pictures are the source's, as the search decoded them.
        var report = OutputCheck.describe(
            written, at: temp, as: destination, analysis: analysis,
            given: plan.copiesVideoWhole ? options.rangePictures : nil)
        // (A range cut on purpose, loop's, is not a designed loop made worse.)
        if options.range == nil,
            let worse = OutputCheck.seamMadeWorse(report, plan: plan, before: before, source: path, analysis: analysis)
        {
            report.notes = (report.notes ?? []) + [worse]
        }
        report.path = path
        report.fix = FixOutcome(
            status: plan.isNoop ? .unchanged : .fixed, output: destination, plan: plan, before: before)
        if output.existing { report.fix?.alreadyWritten = true }
        return report
    }

    /// An output written beside its destination, before it is checked: the temporary file, where it goes, what the
    /// check holds it to (the planned first frames, the metadata kept), its copy while it runs, and whether the
    /// destination exists already (a run resumed: compared, never replaced).
    struct WrittenOutput {
        var temp: String
        var destination: String
        var firstFrames: [Int: [[UInt8]]]
        var metadata: KeptMetadataExpectation?
        var copying: CopyProgress?
        var existing: Bool
    }

    /// A dry run says what the run would do: the copy of an Ogg that needs nothing is the input itself, so the
    /// check the run would make of it is made of the input, and a refusal of that kind means "written again".
    static func copyReadOtherwise(
        _ plan: FixPlan, _ source: borrowing Probe.Result, _ path: String, _ analysis: AnalysisOptions
    ) -> Bool {
        guard plan.isNoop, let frames = try? OutputCheck.plannedFirstFrames(plan, source: source) else { return false }
        let refusal = try? OutputCheck.refusal(
            .fix(plan, analysis: analysis, firstFrames: frames), written: source, at: path)
        return refusal?.kind == .unchangedReadOtherwise
    }

    static func failed(
        _ path: String, _ before: ClipFacts, _ analysis: AnalysisOptions, _ refusal: Refusal, plan: FixPlan? = nil
    ) -> FileReport {
        FileReport(
            path: path, facts: before, findings: Analyzer.findings(in: before, options: analysis),
            fix: FixOutcome(status: .failed, refusal: refusal, plan: plan, before: before))
    }

    /// FFmpeg's muxer name for the container we read (MP4 stays ISO-BMFF, WebM/MKV stay Matroska); an MP4 for
    /// the rest.
    static func muxer(container: Container, path: String) -> Muxer {
        let ext = (path as NSString).pathExtension
        return container.muxer(forExtension: ext) ?? Container.mp4.muxer(forExtension: ext) ?? .mp4
    }

    /// The muxer for `facts`: an .m4a's or .m4v's iPod flavour takes only the codecs an iPod plays; Opus, FLAC,
    /// HEVC or VP9 named so go through the plain MP4 muxer (the file's own brand is grafted back: ISOEditor).
    static func muxer(_ facts: ClipFacts, path: String) -> Muxer {
        let format = muxer(container: facts.container, path: path)
        let iPod: Set<String> = ["h264", "mpeg4", "aac", "alac", "ac3", "mov_text"]
        let codecs = facts.tracks.filter { $0.kind == .video || $0.kind == .audio }.map(\.codec)
        return format == .ipod && !codecs.allSatisfy(iPod.contains) ? .mp4 : format
    }

    /// Carries the plan out with the writer it names. The index-driven MP4 writer returns with its media still being
    /// copied on a thread of its own (the output laid out whole, its head written, registered as growing so a
    /// reader waits for the bytes it asks for), flushed to disk once copied when `flushWhenCopied`: the caller waits
    /// for it (`CopyProgress.wait`) before the rename. The other writers return with the file written.
    static func write(
        _ source: String, plan: FixPlan, source probed: borrowing Probe.Result, to temp: String,
        temporaries: TemporaryFiles, flushWhenCopied: Bool = false
    ) throws -> CopyProgress? {
        let (facts, index, timelines) = (probed.facts, probed.iso, probed.timelines)
        let format = plan.convertsTo ?? muxer(facts, path: source)
        switch plan.writer {
        case .copy:
            try ISOEditor.copyFile(source, to: temp)
        case .index:
            // Stream copies of MP4/MOV are written from the index directly: what is planned is what is written.
            guard let index else { throw MediaError("write output", reason: "the MP4's index was not kept") }
            let layouts = try ISOCut.layouts(plan, facts: facts, iso: index, timelines: timelines)
            let layout = try MP4Writer.layout(
                iso: index, tracks: layouts, movieTimescale: plan.movieTimescale,
                gapless: ISOCut.gapless(plan, layouts: layouts, facts: facts, iso: index),
                range: (plan.start, plan.duration))
            let copy = try MediaCopy(layout, from: source, to: temp)
            let progress = CopyProgress(size: layout.size)
            GrowingFiles.register(temp, progress)
            Thread.detachNewThread {
                do {
                    try copy.run(progress)
                    if flushWhenCopied { temporaries.beginFlush(temp) }
                    progress.finish(nil)
                } catch {
                    progress.finish(error)
                }
            }
            return progress
        case .remux:
            _ = try Remuxer.write(
                source, plan: plan, to: temp, format: format, iso: false, known: Remuxer.Known(all: timelines))
        case .remuxThenEdit:
            try remuxThenEdit(source, plan: plan, source: probed, format: format, to: temp, temporaries: temporaries)
        }
        return nil
    }

    /// FFmpeg's MP4 or MOV muxer, then exact edit lists written over its index (a copy with a new moov).
    /// An MP4 or MOV source's metadata (`iso`) replaces the muxer's, track by track (`MetadataGraft`).
    static func remuxThenEdit(
        _ source: String, plan: FixPlan, source probed: borrowing Probe.Result, format: Muxer, to temp: String,
        temporaries: TemporaryFiles
    ) throws {
        let (facts, iso, timelines) = (probed.facts, probed.iso, probed.timelines)
        let inputISO = facts.isISO
        let muxed = try temporaries.make(beside: temp)
        defer { temporaries.remove(muxed) }
        var known = Remuxer.Known(facts, timelines)
        known.timecode = iso?.startTimecode(facts, plan: plan)
        let written = try Remuxer.write(
            source, plan: plan, to: muxed, format: format, iso: true, inputISO: inputISO, known: known)
        let layout = try ISOEditor.muxedLayout(muxed)
        var edits: [Int: ISOEditor.TrackEdit] = [:]
        var copied: [Int: Int] = [:]
        for cut in plan.tracks {
            // The muxer numbers tracks 1... in stream order; the start instant was written at pts 0.
            guard let out = written.streams[cut.index], let firstIn = written.firstPts[cut.index] else {
                throw MediaError("finalize", reason: "track \(cut.index) is missing from the muxed file")
            }
            var edit = try ISOEditor.TrackEdit(
                muxed: layout.tracks[out + 1], firstWritten: firstIn, clock: cut.timeBase,
                presenting: plan.presented(cut), movieTimescale: plan.movieTimescale,
                lastDuration: written.lastDuration[cut.index])
            // --target web: move the video's composition times so it starts at 0 with no edit needed.
            if plan.bakeVideo && cut.kind == .video {
                edit.compositionShift = edit.mediaTime
                edit.mediaTime = 0
            }
            edits[out + 1] = edit
            if let id = facts.tracks.first(where: { $0.index == cut.index })?.trackID { copied[out + 1] = id }
        }
        try ISOEditor.finalize(
            muxed, to: temp, movieTimescale: plan.movieTimescale, edits: edits,
            graft: iso.flatMap { MetadataGraft(source: $0, tracks: copied) })
    }
}
