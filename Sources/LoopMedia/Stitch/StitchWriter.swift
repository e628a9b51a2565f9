import Foundation
import LoopAnalysis
import LoopIndex

/// Executes a render plan: the output's streams, chapters and decoder configuration, then run by run either a
/// clip's copied body or re-encoded frames, and each clip's audio into one continuous stream per track.
final class StitchWriter {
    let clips: [PreparedClip]
    let plan: StitchRenderPlan
    let geometry: StitchGeometry
    let output: OutputFile
    let settings: ClipSettings
    let configuration: StitchConfiguration
    /// One continuous audio stream per audio track of the clips.
    var lanes: [AudioLane] = []
    let videoOut = 0
    /// WebM or Matroska output (no edit lists: everything written is presented).
    let matroska: Bool
    let normalize: Bool
    var progress: (@Sendable (Int, Int) -> Void)?
    /// The first video presentation time written (output ticks), for the edit list.
    var firstVideoPts: Int64?
    /// The last video decode time written (output ticks).
    var lastVideoDts: Int64?

    var timeline: StitchTimeline { geometry.timeline }

    /// Threads rendering runs beside the writer: the cores (each run's encoder and decoders on one thread; the
    /// bytes are the same at any count). LOOPPREP_RENDER_WORKERS sets it (tests compare one worker with several).
    static let renderWorkers: Int = {
        if let set = ProcessInfo.processInfo.environment["LOOPPREP_RENDER_WORKERS"].flatMap(Int.init), set > 0 {
            return set
        }
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }()

    var clockBase: Rational { plan.clock.timeBase }

    /// `target`: the file written (a temporary) and FFmpeg's muxer for it. `transcoding` (with `normalize`): encode
    /// the output in another codec than the first clip's.
    init(
        clips: [PreparedClip], timeline: StitchTimeline, plan: StitchRenderPlan, target: (path: String, format: Muxer),
        normalize: Bool, audioCurve: FadeCurve, transcoding: String?
    ) throws {
        self.clips = clips
        self.plan = plan
        self.normalize = normalize
        geometry = StitchGeometry(sources: clips.map(\.source), timeline: timeline, normalize: normalize)
        settings = ClipSettings(clips, transcoding: transcoding, normalize: normalize)
        matroska = Container(muxer: target.format).isMatroska
        output = try OutputFile(path: target.path, format: target.format)
        let first = clips[0]
        let input = try settings.input(0)
        // Another container's codec tag (MPEG-TS, FLV) means nothing to the MP4 muxer.
        _ = try output.addStream(copying: input, stream: first.source.video.index, keepTag: first.isISO && !matroska)
        // HEVC tagged hev1 (parameter sets in band) is written as hvc1, which Apple's players want: the sets go in
        // the sample entry and the copied frames lose their in-band copies (hvc1Clips).
        if !matroska, transcoding == nil, clips.contains(where: { $0.isHEV1 }) {
            output.setCodecTag("hvc1", stream: videoOut)
        }
        // Matroska does not say the pixel format; MP4's vpcC (VP9) is written from it.
        output.setPixelFormat(first.pixelFormat, stream: videoOut)
        output.describePicture(first.picture, stream: videoOut)
        output.setTimeBase(plan.clock.timeBase, stream: videoOut)
        configuration = try StitchConfiguration(plan, settings: settings)
        try addLanes(timeline, audioCurve: audioCurve)
        if transcoding != nil {
            // Every frame is encoded: the stream is the encoder's, its headers in its own extradata (the muxer
            // turns them and the packets into avcC or hvcC and lengths).
            try settings.encoder(0, id: 0).configure(output, stream: videoOut)
        }
        try setChapters(timeline)
    }

    /// One audio stream per audio track, in the format of the first clip that has audio (one without gets silence
    /// in it).
    private func addLanes(_ timeline: StitchTimeline, audioCurve: FadeCurve) throws {
        let voiced = clips.firstIndex { !$0.source.audio.isEmpty } ?? 0
        let input = try settings.input(voiced)
        for (k, a) in clips[voiced].source.audio.enumerated() {
            let out = try output.addStream(copying: input, stream: a.index, keepTag: false)
            // Every lane on the joins' one sample grid: a track at another rate (a second language recorded
            // apart) is resampled to the first track's, as its mixer lays it; in the channels its frames decode to
            // (an MP4's MP3 sample entry says 2 for a mono stream; HE-AAC's header names its core's one).
            let facts = clips[voiced].facts.tracks.first { $0.index == a.index }
            let encoder = try AudioEncoder(
                like: input, stream: a.index, globalHeader: true,
                settings: .init(sampleRate: timeline.sampleRate, channels: facts?.channels))
            try encoder.configure(output, stream: out)
            let mixer = AudioMixer(timeline: timeline, channels: encoder.channelCount, curve: audioCurve)
            // A looping reel's audio is coded as a circle: an MP4's edit list presents the loop alone; in Matroska
            // Opus's pre-skip hides the pre-roll (said in its header and CodecDelay) and discard padding the end.
            let lane = AudioLane(
                track: k, out: out, encoder: encoder, mixer: mixer, circular: timeline.loop, hidden: matroska)
            try lane.circle.sayPreSkip(output, stream: out)
            lanes.append(lane)
        }
    }

    /// The reel's chapters, on the video clock: a clip's own chapters where it has them (an MP4's chapter track,
    /// Matroska's), moved to where the clip plays and cut to it, else one named after its file (a loop of one clip
    /// without chapters has none to name).
    private func setChapters(_ timeline: StitchTimeline) throws {
        let ticks = plan.clock.frameTicks
        var chapters: [(start: Int64, end: Int64, title: String)] = []
        for (i, entry) in timeline.clips.enumerated() {
            let span = (Int64(entry.span.startFrame) * ticks, Int64(entry.span.endFrame) * ticks)
            // The clip's first frame: where the reel shows it (a loop's first clip opens inside the wrap, before 0),
            // and when its source shows it (its cut's start, moved by an in point).
            let source = clips[i].source
            let shown = Int64(i == 0 && timeline.loop ? -(timeline.joins.last?.frames ?? 0) : entry.span.startFrame)
            let inPoint = source.frames.first.map { f in
                Rational(f.pts - (source.allFrames.first?.pts ?? f.pts)) * source.timeBase
            }
            let origin = source.video.startBefore + source.video.trimmedHead + (inPoint ?? .zero)
            let reel = { (t: Rational) in ((t - origin) / self.plan.clock.timeBase).floor + shown * ticks }
            var own = try settings.input(i).chapters().compactMap { c -> (Int64, Int64, String)? in
                let (from, to) = (max(reel(c.start), span.0), min(reel(c.end), span.1))
                return from < to ? (from, to, c.title) : nil
            }
            if !own.isEmpty { own[0].0 = span.0 }
            if own.isEmpty, timeline.clips.count > 1 {
                own = [(span.0, span.1, (entry.path as NSString).lastPathComponent)]
            }
            chapters += own
        }
        try output.setChapters(chapters, timeBase: plan.clock.timeBase)
    }

    func run() throws {
        if let extradata = configuration.extradata { try output.setExtradata(extradata, stream: videoOut) }
        output.copyMetadata(from: try settings.input(0))
        var header = ["avoid_negative_ts": "disabled"]
        if !matroska {
            header["movie_timescale"] = String(plan.movieTimescale)
            header["use_editlist"] = "1"
        }
        try output.writeHeader(options: header)
        // Clips with negative composition offsets (CMAF's, x264's B-pyramids with negative_cts_offsets) show a
        // frame before it is decoded by their own clock; every decode time is moved earlier by the largest such
        // offset, as FFmpeg's demuxer does, so each frame is decoded no later than shown (the muxer takes no other).
        let lead = clips.map { Rational($0.source.video.compositionLead) * $0.source.video.timeBase }.max() ?? .zero
        if lead > .zero { output.leadDecodeTimes(stream: videoOut, by: lead) }
        var mixed = Set<Int>()
        // What the workers read, made before they start: values only (each clip's encoder parameters read from its
        // file here, on this thread).
        let context = RenderContext(
            clips: clips, plan: plan, geometry: geometry, normalize: normalize, transcoding: settings.transcoding,
            lengthSize: configuration.lengthSize,
            sources: try clips.indices.map { try settings.source($0) })
        let renders = RenderAhead(
            context, encodings: configuration.runs, workers: Self.renderWorkers, ahead: Self.renderWorkers + 1)
        defer { renders.stop() }
        for (index, run) in plan.runs.enumerated() {
            progress?(index, plan.runs.count)
            switch run {
            case .copy(let c):
                try copyBody(c)
                // Audio follows the video clip by clip, so the muxer's interleaving buffer stays about a clip long.
                for earlier in 0...c where !mixed.contains(earlier) {
                    try mixAudio(earlier)
                    mixed.insert(earlier)
                }
            case .render:
                try write(try renders.samples(run: index))
            }
        }
        for c in clips.indices where !mixed.contains(c) { try mixAudio(c) }
        for lane in lanes {
            try lane.mixer.finish { try lane.encode($0) { try write(lane, $0) } }
            try lane.finish { try write(lane, $0) }
        }
        try output.finish(presenting: timeline.duration)
    }

    /// Clip `c`'s packets whose frames are presented in its body, placed on the output clock.
    func copyBody(_ c: Int) throws {
        guard let body = plan.bodies[c] else { return }
        let clip = clips[c]
        let reader = try PacketReader(
            path: clip.path, windows: [PacketWindow(clip.source.video, from: body.fromDts, through: body.throughDts)],
            timelines: clip.timelines)
        let grid = geometry.onGrid(c)
        while let read = try reader.next() {
            // An open GOP's keyframe (HEVC CRA) has leading pictures, decoded after it but shown before it:
            // those frames are drawn by the run before the body, and no later frame may lean on them (RASL).
            if read.pts < clip.source.frames[body.start].pts { continue }
            let packet = read.packet
            if !matroska, clip.isHEV1 { try Self.dropParameterSets(packet, clip: clip) }
            packet.pts = geometry.place(c, read.pts)
            packet.dts = geometry.place(c, read.dts)
            if grid { packet.duration = plan.clock.frameTicks }
            if firstVideoPts == nil { firstVideoPts = packet.pts }
            lastVideoDts = packet.dts
            try output.write(packet, stream: videoOut, timeBase: grid ? clockBase : clip.source.timeBase)
        }
        // The plan placed the next run's decode times after this body's last: it must have ended there.
        guard lastVideoDts == body.lastDts else {
            throw MediaError(
                "stitch",
                reason: "\(clip.path): the copied frames ended at decode time \(lastVideoDts ?? 0), not at the planned "
                    + "\(body.lastDts)")
        }
    }

    /// Exact edits for the finalizer, from where the muxer put the first samples.
    func edits() throws -> [Int: ISOEditor.TrackEdit] {
        let layout = try ISOEditor.muxedLayout(output.path)
        guard let firstPts = firstVideoPts else { throw MediaError("finalize", reason: "no video was written") }
        let ts = plan.movieTimescale
        var edits = [
            videoOut + 1: try ISOEditor.TrackEdit(
                muxed: layout.tracks[videoOut + 1], firstWritten: firstPts, clock: clockBase,
                presenting: timeline.duration, movieTimescale: ts)
        ]
        for lane in lanes {
            guard let firstPts = lane.firstPts, let rate = timeline.sampleRate, let samples = timeline.samples else {
                continue
            }
            edits[lane.out + 1] = try ISOEditor.TrackEdit(
                muxed: layout.tracks[lane.out + 1], firstWritten: firstPts, clock: lane.encoder.timeBase,
                presenting: Rational(samples, Int64(rate)), movieTimescale: ts, lastDuration: lane.lastDuration)
        }
        return edits
    }

    /// A copied hev1 frame's in-band parameter sets taken out (hvc1 has them in its sample entry only): they must
    /// be the clip's own configuration's, or the stream changes its parameters and cannot be written as hvc1.
    static func dropParameterSets(_ packet: Packet, clip: PreparedClip) throws {
        guard let config = clip.hvcc else { return }
        let known = Set([32, 33, 34].flatMap { config.units($0) })
        let units = packet.withBytes { FrameBytes.content(Array($0), codec: "hevc", extradata: config.bytes) }
        let sets = units.filter { (32...34).contains(HEVC.type($0)) }
        guard !sets.isEmpty else { return }
        guard sets.allSatisfy(known.contains) else {
            throw MediaError(
                "stitch",
                reason: """
                    \(clip.path) changes its HEVC parameter sets mid-stream (hev1), which hvc1, the tag Apple's \
                    players want, cannot carry; re-encode it, or stitch with --normalize
                    """)
        }
        try packet.replacePayload(
            with: lengthPrefixed(units.filter { !(32...34).contains(HEVC.type($0)) }, size: config.lengthSize))
    }
}
