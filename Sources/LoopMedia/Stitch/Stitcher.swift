import Foundation
import LoopAnalysis
import LoopIndex

/// stitch: clips prepared (ClipPreparation), laid on one timeline (StitchPlanner), planned frame by frame
/// (StitchRenderPlanner, pure), then written by executing the plan (StitchWriter), given exact edit lists,
/// verified and renamed into place.
/// A stitch decided before anything is written (Stitcher.plan), carried out as it stands (Stitcher.carryOut).
public struct PlannedStitch {
    let request: StitchRequest
    let prepared: [PreparedClip]
    let timeline: StitchTimeline
    /// FFmpeg's muxer for the output's name (the written file's or, in a dry run, the one named); nil: none named.
    let format: Muxer?
    /// Which frames are copied and which encoded again; nil where it could not be planned (the report says why).
    var render: StitchRenderPlan?
    /// What a Matroska or WebM reel keeps of the first clip's tags.
    var metadata: ReelMetadata?
    /// What a dry run prints; the write's report starts from it.
    public internal(set) var report: StitchReport

    init(
        request: StitchRequest, prepared: [PreparedClip], timeline: StitchTimeline, format: Muxer?,
        report: StitchReport
    ) {
        (self.request, self.prepared, self.timeline, self.format) = (request, prepared, timeline, format)
        self.report = report
    }
}

public enum Stitcher {
    /// stitch's one entry (as ClipFix.fix is fix's): the stitch planned (`plan`), then, unless it is a dry run or
    /// the plan says why not, carried out as planned (`carryOut`): written and verified. A refusal before anything
    /// is written is thrown as StitchRefusal; a failure while planning or writing is the report's `error`.
    public static func stitch(
        _ request: StitchRequest, temporaries: TemporaryFiles,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(Refusal) -> StitchReport {
        let planned = try plan(request)
        guard let output = request.output, planned.report.refusal == nil else { return planned.report }
        return carryOut(planned, to: output, temporaries: temporaries, progress: progress)
    }

    /// The stitch decided before anything is written, as a dry run says it: the clips read and laid on the
    /// timeline, the render plan, the output's muxer (from its name, once), what the container refuses and what its
    /// metadata keeps. Refusals of the inputs are thrown; one the plan meets later is its report's `error`.
    public static func plan(_ request: StitchRequest) throws(Refusal) -> PlannedStitch {
        // Never over an input; an existing file only when asked.
        if let output = request.output,
            let refusal = OutputPath.refusal(output, inputs: request.clips.map(\.path), force: request.force)
        {
            throw refusal
        }
        var prepared = try prepareAll(request.clips)
        let (audioLeftOut, kept) = shareAudio(&prepared)
        let differences = differences(prepared, normalizing: request.normalize, codec: request.codec)
        guard differences.isEmpty else {
            // (A clip's own varying rate is no difference between clips: said as what it is.)
            let what =
                Set(differences) == Set(variableRates(prepared)) ? "the clips' frame rates vary" : "the clips differ"
            throw Refusal.plan(
                request.normalize
                    ? "the clips differ in what --normalize cannot change (nothing written):"
                    : "\(what), so they cannot be joined by stream copy (nothing written; --normalize re-encodes "
                        + "them):",
                details: differences.map { "  " + $0 })
        }
        let timeline: StitchTimeline
        do {
            timeline = try self.timeline(
                prepared, transitions: request.transitions, loop: request.loop, normalize: request.normalize)
        } catch { throw .plan(MediaError.describe(error)) }
        var planned = PlannedStitch(
            request: request, prepared: prepared, timeline: timeline,
            format: (request.output ?? request.named).map(outputFormat),
            report: StitchReport(output: request.output, timeline: timeline, planned: request.named))
        describe(&planned, audioLeftOut: audioLeftOut)
        do {
            try decide(&planned)
        } catch {
            planned.report.refusal = error as? Refusal ?? .plan(MediaError.whileWriting(error))
        }
        // The value carried out; a dry run's says what it read of each clip, for `apply`.
        planned.report.reel.plan = planned.render.map { render in
            StitchPlanValue(
                request: .init(request),
                inputs: request.output == nil
                    ? request.clips.map { RemoteFile.isRemote($0.path) ? nil : try? InputFingerprint.of($0.path) }
                    : nil,
                keptAudio: kept, cuts: prepared.map(\.source.cutFigures), render: render)
        }
        return planned
    }

    /// What the report says of the clips as read: the audio left out, the tracks no reel holds, --normalize's colour
    /// conversions and turns.
    static func describe(_ planned: inout PlannedStitch, audioLeftOut: [String]) {
        let prepared = planned.prepared
        planned.report.reel.audioLeftOut = audioLeftOut
        planned.report.reel.dataLeftOut = DataLeftOut.notes(prepared.map(\.named))
        if planned.request.normalize {
            planned.report.reel.colourConverted = colourConversions(prepared)
            planned.report.reel.turned = turns(prepared)
        }
    }

    /// A dry run's plan carried out later (`loopprep apply`), never planned again: each clip must be what the dry
    /// run read (its size, modification time and the bytes at either end), the output never a clip and replaced
    /// only with `force`; the clips are read, keep the audio the plan chose, and the plan's timeline and render plan
    /// are written and checked as a stitch's are. The report is the write's. `command`: the one that planned it
    /// (stitch, or loop for a crossfaded loop), named where the plan must be made again.
    public static func apply(
        _ value: StitchPlanValue, timeline: StitchTimeline, to output: String, force: Bool, temporaries: TemporaryFiles,
        command: String = "stitch"
    ) throws(Refusal) -> StitchReport {
        let request = value.request.request(output: output, force: force)
        guard let inputs = value.inputs, inputs.count == request.clips.count else {
            throw .inputChanged(path: nil, .unrecorded, command: command)
        }
        try unchanged(request.clips, inputs: inputs, command: command)
        // Never over a clip; one there already is kept where it is what the plan writes (a job run again).
        if let refusal = OutputPath.refusal(output, inputs: request.clips.map(\.path), force: true) { throw refusal }
        var prepared = try prepareAll(request.clips)
        guard value.keptAudio.count == prepared.count, timeline.clips.count == prepared.count else {
            throw .stalePlan(.clipCount(planned: timeline.clips.count, read: prepared.count), command: command)
        }
        let (audioLeftOut, _) = shareAudio(&prepared, kept: value.keptAudio)
        if let cuts = value.cuts,
            let c = prepared.indices.first(where: {
                !cuts.indices.contains($0) || prepared[$0].source.cutFigures != cuts[$0]
            })
        {
            throw .stalePlan(.cutOtherwise(prepared[c].path), command: command)
        }
        let fps = prepared.first?.facts.mainVideo?.frameRate ?? timeline.frameRate
        let counts = prepared.map { request.normalize ? $0.source.outputFrames(rate: fps) : $0.frameCount }
        if let misfit = value.misfit(frameCounts: counts, joins: timeline.joins.indices) {
            throw .stalePlan(.misfit(misfit), command: command)
        }
        let format = outputFormat(output)
        var planned = PlannedStitch(
            request: request, prepared: prepared, timeline: timeline, format: format,
            report: StitchReport(output: output, timeline: timeline))
        describe(&planned, audioLeftOut: audioLeftOut)
        planned.render = value.render
        planned.report.reel.reencoded = reencodedNotes(value.render, prepared)
        do { planned.metadata = try ReelMetadata.plan(prepared[0], format: format) } catch {
            throw .plan(MediaError.describe(error))
        }
        if let note = planned.metadata?.note(container: format) { planned.report.reel.metadataLeftOut = [note] }
        planned.report.reel.plan = value
        guard !force, FileManager.default.fileExists(atPath: output) else {
            return carryOut(planned, to: output, temporaries: temporaries, progress: nil)
        }
        return try kept(planned, at: output, temporaries: temporaries)
    }

    /// Each clip is what the dry run read (`inputs`: its fingerprints), or the refusal naming it, with `command`'s
    /// remedy; a URL cannot be told unchanged.
    static func unchanged(_ clips: [StitchRequest.Clip], inputs: [InputFingerprint?], command: String) throws(Refusal) {
        for (clip, input) in zip(clips, inputs) {
            if let change = InputFingerprint.change(clip.path, recorded: input) {
                throw .inputChanged(path: clip.path, change, command: command)
            }
        }
    }

    /// The plan carried out beside an output that is there already (`apply` without `force`): kept where it is byte
    /// for byte what the plan writes, refused otherwise (`--force` replaces it).
    static func kept(_ planned: PlannedStitch, at output: String, temporaries: TemporaryFiles) throws(Refusal)
        -> StitchReport
    {
        let scratch: String
        do { scratch = try temporaries.make(beside: output) } catch {
            throw .write(MediaError.describe(error))
        }
        defer { temporaries.remove(scratch) }
        var report = carryOut(planned, to: scratch, temporaries: temporaries, progress: nil)
        report.output = output
        report.facts?.path = output
        guard report.refusal == nil else { return report }
        guard FileManager.default.contentsEqual(atPath: scratch, andPath: output) else {
            throw .outputExists(output)
        }
        report.alreadyWritten = true
        return report
    }

    /// The render plan, the container's refusal and the reel's metadata, decided into the plan: what cannot be
    /// rendered, what the write would refuse for the output's container and target (in the same sentence), a web
    /// player asked for that the reel cannot have, what a Matroska or WebM reel says of the first clip's tags.
    static func decide(_ planned: inout PlannedStitch) throws {
        let (request, prepared) = (planned.request, planned.prepared)
        let render = try self.plan(
            prepared, timeline: planned.timeline, normalize: request.normalize, codec: request.codec)
        planned.render = render
        planned.report.reel.reencoded = reencodedNotes(render, prepared)
        guard let format = planned.format else { return }
        if let refusal = refusal(
            prepared, format: format, analysis: request.analysis,
            codec: transcoding(prepared, normalize: request.normalize, codec: request.codec))
        {
            throw refusal
        }
        if let remedy = request.webPlayerRemedy, let name = request.output ?? request.named,
            let refusal = WebPlayerEligibility.refusal(reel: name, tracks: reelTracks(planned), remedy: remedy)
        {
            throw refusal
        }
        planned.metadata = try ReelMetadata.plan(prepared[0], format: format)
        if let note = planned.metadata?.note(container: format) { planned.report.reel.metadataLeftOut = [note] }
    }

    /// Each clip the render plan encodes whole, and why.
    static func reencodedNotes(_ render: StitchRenderPlan, _ prepared: [PreparedClip]) -> [String] {
        render.reencodedWhole.map { i in
            "\(prepared[i].path) is re-encoded whole: its parameter sets differ from \(prepared[0].path)'s (another "
                + "encoder, or other settings), so its frames cannot be copied beside them"
        }
    }

    /// The reel's tracks as it will be written (kind, index, codec): the first clip's video (or --codec's), then
    /// each audio lane in the codec of the first clip with audio, encoded again.
    static func reelTracks(_ planned: PlannedStitch) -> [(kind: TrackKind, index: Int, codec: String)] {
        let (clips, request) = (planned.prepared, planned.request)
        let video =
            transcoding(clips, normalize: request.normalize, codec: request.codec)
            ?? clips.first?.facts.mainVideo?.codec
        var tracks: [(kind: TrackKind, index: Int, codec: String)] = video.map { [(.video, 0, $0)] } ?? []
        if let voiced = clips.first(where: { !$0.source.audio.isEmpty }) {
            for (k, cut) in voiced.source.audio.enumerated() {
                if let codec = voiced.facts.tracks.first(where: { $0.index == cut.index })?.codec {
                    tracks.append((.audio, 1 + k, codec))
                }
            }
        }
        return tracks
    }

    /// The plan carried out into `output`: the written file as analyze describes it (its seam measured), what the
    /// command prints of it, or the error the write met.
    static func carryOut(
        _ planned: PlannedStitch, to output: String, temporaries: TemporaryFiles,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?
    ) -> StitchReport {
        var report = planned.report
        do {
            let described = try write(planned, to: output, temporaries: temporaries, progress: progress)
            report.facts = described.facts
            report.findings = described.findings
            report.notes = described.notes
            (report.loopRange, report.loopRangeReason) = (described.loopRange, described.loopRangeReason)
        } catch {
            // The written reel's check refused it (not kept), or the write stopped.
            let check = (error as? MediaError)?.operation == MediaError.verifyOutput
            report.refusal = check ? .check(MediaError.whileWriting(error)) : .write(MediaError.whileWriting(error))
        }
        return report
    }

    /// Audio tracks not every clip has are left out, the ones they share joined (each clip keeps those): what is
    /// left out, said, a clip without audio included (silence is laid under it), and per clip the indices of the
    /// audio tracks it keeps. `kept`: a plan's choice carried out (`apply`), not chosen again.
    static func shareAudio(
        _ prepared: inout [PreparedClip], kept given: [[Int]]? = nil
    ) -> (leftOut: [String], kept: [[Int]]) {
        var leftOut: [String] = []
        if prepared.contains(where: { !$0.facts.audioTracks.isEmpty }) {
            for clip in prepared where clip.facts.audioTracks.isEmpty {
                leftOut.append("\(clip.path) has no audio: silence is laid under it")
            }
        }
        var kept = prepared.map { Array($0.facts.audioTracks.indices) }
        if let given {
            kept = given
        } else {
            let voiced = prepared.indices.filter { !prepared[$0].facts.audioTracks.isEmpty }
            if let choice = SharedAudio.choose(voiced.map { prepared[$0].facts.audioTracks.map(\.language) }) {
                for (v, keep) in choice.kept.enumerated() { kept[voiced[v]] = keep }
            }
        }
        for (c, keep) in kept.enumerated() where keep != Array(prepared[c].facts.audioTracks.indices) {
            let tracks = prepared[c].facts.audioTracks
            for k in tracks.indices where !keep.contains(k) {
                leftOut.append(
                    """
                    \(prepared[c].path): \(Figures.trackName(tracks[k]))\
                    \(tracks[k].language.map { " (\($0))" } ?? "") left out: not every clip has it
                    """)
            }
            prepared[c] = prepared[c].keepingAudio(keep)
        }
        return (leftOut, kept)
    }

    /// --normalize converts each picture to the first clip's colour (tone-mapped where HDR meets SDR): each clip so
    /// converted, said.
    static func colourConversions(_ prepared: [PreparedClip]) -> [String] {
        guard let first = prepared.first else { return [] }
        return prepared.dropFirst().filter { $0.colour.differs(from: first.colour) }.map { clip in
            """
            \(clip.path): its pictures are converted from \(clip.colour) to the first clip's \(first.colour)\
            \(ColourConverter.how(from: clip.colour, to: first.colour))
            """
        }
    }

    /// Every clip read and planned: one that cannot be read makes the stitch unreadable; one read but not plannable
    /// (its tracks do not overlap) refuses it.
    static func prepareAll(_ clips: [StitchRequest.Clip]) throws(Refusal) -> [PreparedClip] {
        var prepared: [PreparedClip] = []
        var unreadable: [String] = []
        var unplanned: [String] = []
        // Each clip probed and its first frame decoded on its own, side by side.
        let read = InOrder.map(clips.count, workers: StitchWriter.renderWorkers) { k in
            Result { try prepare(clips[k].path, in: clips[k].inPoint, out: clips[k].outPoint) }
        }
        for (clip, result) in zip(clips, read) {
            do {
                prepared.append(try result.get())
            } catch let error as PlanError {
                unplanned.append("\(clip.path): \(error.reason)")
            } catch { unreadable.append("\(clip.path): \(MediaError.describe(error))") }
        }
        // (A line a clip, the same clip named once: the first is the sentence.)
        var seen = Set<String>()
        (unreadable, unplanned) = (
            unreadable.filter { seen.insert($0).inserted }, unplanned.filter { seen.insert($0).inserted }
        )
        if let first = unreadable.first { throw .unreadable(first, details: Array(unreadable.dropFirst())) }
        if let first = unplanned.first { throw .plan(first, details: Array(unplanned.dropFirst())) }
        return prepared
    }

    /// --normalize: each clip whose display matrix turns its pictures otherwise than the first clip's, turned to show
    /// as the first clip's are shown (the reel carries the first clip's matrix).
    static func turns(_ prepared: [PreparedClip]) -> [String] {
        guard let first = prepared.first else { return [] }
        return prepared.dropFirst().compactMap { clip in
            let turn = Stitcher.turn(clip, to: first)
            guard turn != 0 else { return nil }
            let (own, reel) = (clip.facts.mainVideo?.rotation ?? 0, first.facts.mainVideo?.rotation ?? 0)
            return """
                \(clip.path): shown upright in the first clip's orientation (its display matrix turns it \(own)° \
                clockwise, the reel's \(reel)°): its pixels are turned \(turn)° clockwise and fitted with bars
                """
        }
    }

    /// FFmpeg's muxer for an output path: WebM, Matroska, MOV, else MP4.
    public static func outputFormat(_ path: String) -> Muxer {
        switch Container(extension: (path as NSString).pathExtension) {
        case .webm: .webm
        case .matroska: .matroska
        case .mov: .mov
        // (The command refuses a reel named otherwise: an MP4 where a caller names none of the four.)
        case .mp4, .ogg, .mpegts, .mpegps, .flv, .avi, .wav, .flac, .mp3, .aiff, .caf, .adts, .other, nil: .mp4
        }
    }

    /// With `normalize`, every clip counts in the first clip's frame rate.
    static func timeline(
        _ clips: [PreparedClip], transitions: [TransitionRequest], loop: Bool, normalize: Bool = false
    ) throws -> StitchTimeline {
        guard let v = clips.first?.facts.mainVideo, let fps = v.frameRate else {
            throw MediaError("stitch", reason: "no video frame rate")
        }
        return try StitchPlanner.timeline(
            clips.map {
                StitchClip(path: $0.path, frames: normalize ? $0.source.outputFrames(rate: fps) : $0.frameCount)
            },
            transitions: transitions,
            frameRate: fps, sampleRate: clips.first { $0.facts.mainAudio != nil }?.facts.mainAudio?.sampleRate,
            loop: loop)
    }

    /// The render plan, built once: which frames are copied, which re-encoded, with which decode times and
    /// parameter sets. `codec` (with `normalize`): the output's codec, where it is not the first clip's.
    static func plan(
        _ clips: [PreparedClip], timeline: StitchTimeline, normalize: Bool = false, codec: String? = nil
    ) throws -> StitchRenderPlan {
        let transcoding = transcoding(clips, normalize: normalize, codec: codec)
        let settings = ClipSettings(clips, transcoding: transcoding, normalize: normalize)
        let request = StitchRenderPlan.Request(
            sources: clips.map(\.source), timeline: timeline, normalize: normalize,
            codec: transcoding ?? clips.first?.facts.mainVideo?.codec ?? "", transcoding: transcoding != nil,
            parameterSets: clips.map(\.parameterSets), encodable: Set(VideoEncoder.encoders.keys))
        return try planned { try StitchRenderPlanner.plan(request, hevcEncoderSets: settings.hevcSets) }
    }

    /// --normalize --codec: the codec every frame is encoded in, where it is not the first clip's.
    static func transcoding(_ clips: [PreparedClip], normalize: Bool, codec: String?) -> String? {
        normalize && codec != nil && codec != clips.first?.facts.mainVideo?.codec ? codec : nil
    }

    /// Renders the planned timeline into `destination` (temp file, exact edit lists with moov first, verification,
    /// rename). With `normalize`, every frame is re-encoded to the first clip's format.
    static func write(
        _ planned: PlannedStitch, to destination: String, temporaries: TemporaryFiles,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> FileReport {
        guard let plan = planned.render else { throw MediaError("stitch", reason: "the stitch has no render plan") }
        let (clips, timeline, request) = (planned.prepared, planned.timeline, planned.request)
        let temp = try temporaries.make(beside: destination)
        defer { temporaries.remove(temp) }
        let muxed = try temporaries.make(beside: destination)
        defer { temporaries.remove(muxed) }
        let format = planned.format ?? outputFormat(destination)
        let matroska = Container(muxer: format).isMatroska
        let writer = try StitchWriter(
            clips: clips, timeline: timeline, plan: plan, target: (matroska ? temp : muxed, format),
            normalize: request.normalize, audioCurve: request.audioCurve,
            transcoding: transcoding(clips, normalize: request.normalize, codec: request.codec))
        writer.progress = progress
        try writer.run()
        // Matroska has no edit lists: what was written is what is presented. MP4 gets exact ones, and the first
        // clip's movie-level metadata (its tags, XMP, a camera maker's boxes) in place of the muxer's.
        let first =
            matroska
            ? nil
            : clips.first.flatMap { clip -> ISOFile? in
                guard clip.isISO, let size = try? Probe.fileSize(clip.path) else { return nil }
                return try? ISOFile.read(path: clip.path, fileSize: size, locations: true)
            }
        if !matroska {
            try ISOEditor.finalize(
                muxed, to: temp, movieTimescale: plan.movieTimescale, edits: try writer.edits(),
                graft: first.flatMap { MetadataGraft(source: $0, tracks: writtenTracks(clips)) })
        }
        // The one check of a written output, with what this plan expects (`expectation`) and FFmpeg's second reading.
        let written = try Probe.probe(temp, keepInput: false)
        let analysis = request.analysis
        let expected = expectation(clips, timeline: timeline, analysis: analysis, first: first)
        if let refusal = try OutputCheck.refusal(expected, written: written, at: temp)
            ?? planned.metadata?.refusal(reel: temp)
        {
            throw MediaError(MediaError.verifyOutput, reason: refusal.sentence)
        }
        // Described from the probe the check made, before the rename (as fix does): no second reading of the file.
        let described = OutputCheck.describe(written, at: temp, as: destination, analysis: analysis)
        try temporaries.commit(temp, to: destination)
        return described
    }

    /// What the reel's check expects: it plays on its target; no finding at warning or above but the seam's, a short
    /// loop's and the target's (said in the report); the clips' audio tracks, each presenting the timeline's samples;
    /// the timeline's frames; no join coded beyond the sample entry; the first clip's movie-level metadata.
    static func expectation(
        _ clips: [PreparedClip], timeline: StitchTimeline, analysis: AnalysisOptions, first: ISOFile?
    ) -> OutputCheck.Expectation {
        let lanes = clips.map(\.source.audio.count).max() ?? 0
        let audioLength = timeline.samples.flatMap { n in timeline.sampleRate.map { Rational(n, Int64($0)) } }
        let audio = ExpectedTrack(kind: .audio, duration: audioLength ?? timeline.duration)
        var expected = OutputCheck.Expectation(
            clean: .allBut([.seamAudioClick, .seamVisualJump, .tooShortToLoop, .notPlayableOnTarget]),
            analysis: analysis,
            tracks: [ExpectedTrack(kind: .video, duration: timeline.duration, frames: timeline.frames)]
                + Array(repeating: audio, count: lanes),
            playable: true, audioTracks: lanes, audioSamples: timeline.samples, frames: timeline.frames,
            beyondEntry: OutputCheck.Expectation.beyondEntry(of: clips.map(\.facts)))
        expected.metadata = first.map {
            KeptMetadataExpectation(
                items: KeptMetadata.items(top: $0.otherBoxes, moov: $0.moov),
                tracks: Dictionary(uniqueKeysWithValues: writtenTracks(clips).map { ($0.value, $0.key) }))
        }
        return expected
    }

    /// The reel's tracks that take the first clip's descriptions (name, handler, user data, colour and aspect
    /// boxes): its video, track 1, and each audio lane where the first clip has that track (FFmpeg's muxer numbers
    /// the tracks 1... in stream order); by the written track's ID, the first clip's.
    static func writtenTracks(_ clips: [PreparedClip]) -> [Int: Int] {
        guard let first = clips.first, let video = first.facts.mainVideo?.trackID else { return [:] }
        var tracks = [1: video]
        let lanes = clips.map(\.source.audio.count).max() ?? 0
        for (k, audio) in first.facts.audioTracks.enumerated() where k < lanes {
            if let id = audio.trackID { tracks[2 + k] = id }
        }
        return tracks
    }

    /// A codec of the reel its MP4 or MOV muxer does not take (PCM in an MP4; FLAC in an MP4 where FFmpeg 5.1 calls
    /// it experimental), refused before anything is written, with the containers that take it.
    static func unheld(_ clips: [PreparedClip], format: Muxer, codec: String?) -> MediaError? {
        guard !Container(muxer: format).isMatroska, let first = clips.first else { return nil }
        // The reel's audio is encoded like the first clip that has some (StitchWriter's lanes).
        let voiced = clips.first { !$0.source.audio.isEmpty } ?? first
        // (One opening of a file for both where the first clip is the voiced one.)
        let takesFirst = OutputFile.takes(first.path)
        let video = (codec ?? first.facts.mainVideo?.codec).map { ($0, takesFirst) }
        let audio = voiced.path == first.path ? takesFirst : OutputFile.takes(voiced.path)
        let refused =
            video.flatMap { codec, takes in takes(format, codec) ? nil : (codec: codec, kind: "video", takes: takes) }
            ?? voiced.facts.audioTracks.first { !audio(format, $0.codec) }.map {
                (codec: $0.codec, kind: "audio", takes: audio)
            }
        guard let refused else { return nil }
        // Video the MP4 does not take (VP8) goes into Matroska, or is encoded again in H.264; audio into the
        // containers whose header takes it.
        let names: [(Muxer, String)] =
            refused.kind == "video" ? [(.matroska, ".mkv")] : [(.mp4, ".mp4"), (.mov, ".mov"), (.matroska, ".mkv")]
        let takers = names.filter { muxer, _ in muxer != format && refused.takes(muxer, refused.codec) }
        var remedies = takers.isEmpty ? [] : ["name the output \(takers.map(\.1).joined(separator: " or "))"]
        if refused.kind == "video" { remedies.append("re-encode it with --normalize --codec h264") }
        return MediaError(
            "stitch",
            reason: """
                this FFmpeg's \(format.rawValue.uppercased()) muxer does not take the clips' \(refused.codec) \
                \(refused.kind)\(remedies.isEmpty ? "" : ": " + remedies.joined(separator: ", or "))
                """)
    }

    /// What the write refuses for the output's container and target, known before writing: Matroska and WebM
    /// need Opus audio; the output's codecs (the first clip's, or --codec's) in that container must play on the
    /// target.
    static func refusal(_ clips: [PreparedClip], format: Muxer, analysis: AnalysisOptions, codec: String?)
        -> MediaError?
    {
        guard var predicted = clips.first?.facts else { return nil }
        // (FLAC and PCM are coded without a delay, nothing to hide; WebM carries neither.)
        let webm = format == .webm
        if Container(muxer: format).isMatroska,
            let audio = clips[0].facts.audioTracks.first(where: {
                $0.codec != "opus" && (webm || ($0.codec != "flac" && !$0.codec.hasPrefix("pcm_")))
            })
        {
            return MediaError(
                "stitch",
                reason:
                    """
                    a \(webm ? "WebM output needs Opus audio" : "Matroska output needs Opus, FLAC or PCM audio"), \
                    whose encoder delay it can say or which has none; the clips have \(audio.codec), whose \
                    priming Matroska cannot hide: name the output .mp4
                    """
            )
        }
        if format == .webm, let video = codec ?? clips[0].facts.mainVideo?.codec,
            !["vp8", "vp9", "av1"].contains(video)
        {
            return MediaError(
                "stitch",
                reason:
                    """
                    a WebM output carries VP8, VP9 or AV1 video; the reel's would be \(video): name the output .mkv \
                    or .mp4, or re-encode it with --normalize --codec vp9
                    """
            )
        }
        if let refused = unheld(clips, format: format, codec: codec) { return refused }
        predicted.container = format.container
        for v in predicted.tracks.indices where predicted.tracks[v].kind == .video {
            if let codec { predicted.tracks[v].codec = codec }
            // The writer tags HEVC hvc1 in an MP4 or MOV, parameter sets in the sample entry, whatever the clips'.
            if predicted.tracks[v].codec == "hevc" { predicted.tracks[v].codecTag = "hvc1" }
        }
        return OutputCheck.unplayable(predicted, analysis: analysis).map { MediaError("stitch", reason: $0.sentence) }
    }

}
