import CFFmpeg
import Foundation
import LoopAnalysis
import LoopIndex

/// What a render worker reads: values made before the workers start (the clips, the plan, the geometry, each
/// clip's encoder parameters), never the writer or an open file. Sendable by construction.
struct RenderContext: Sendable {
    let clips: [PreparedClip]
    let plan: StitchRenderPlan
    let geometry: StitchGeometry
    let normalize: Bool
    /// --normalize --codec: the codec every frame is encoded in, where it is not the first clip's.
    let transcoding: String?
    /// NAL length size of the copied samples (re-encoded ones are made like them).
    let lengthSize: Int?
    /// Each clip's video stream, as an encoder like it takes it.
    let sources: [EncoderSource]

    var timeline: StitchTimeline { geometry.timeline }

    /// --normalize: how far clip `c`'s pixels are turned clockwise to show as the first clip's are shown (its
    /// display matrix's rotation less the first's: a landscape clip beside a phone's portrait one).
    func turn(_ c: Int) -> Int { Stitcher.turn(clips[c], to: clips[0]) }

    /// --normalize: a fitter to the first clip's size and pixel format (one per run: scalers are not shared).
    func makeFitter() -> FrameFitter {
        let v0 = clips[0].facts.mainVideo
        return FrameFitter(
            width: Int32(v0?.width ?? 0), height: Int32(v0?.height ?? 0), format: clips[0].pixelFormat,
            colour: clips[0].colour)
    }

    /// An encoder like the video of the run's lead clip (the first clip's pixel format), as ClipSettings.encoder
    /// makes it.
    func encoder(for run: StitchRenderPlan.Render, id: Int, rateFactor: Int) throws -> VideoEncoder {
        let c = run.leadClip
        // --normalize: every picture is in the first clip's colour, and so are the tags that describe it.
        return try VideoEncoder(
            like: normalize ? sources[c].inColour(of: sources[0]) : sources[c], parameterSetID: id,
            pixelFormat: clips[0].pixelFormat, codec: transcoding, rateFactor: rateFactor,
            preset: run.x264Preset(clips))
    }
}

/// Re-encodes one run of the plan: decodes what its items need (one frame source per clip, from the keyframe
/// before its first frame), blends where two clips meet and encodes in output order, into samples at the plan's
/// decode times. Nothing here writes: runs are rendered on worker threads while the writer copies the clips'
/// bodies and mixes their audio (each run has its own decoders, drawers, fitter and encoder, so its bytes are the
/// same whatever else runs beside it), and the writer writes each run's samples in the plan's order.
extension RenderContext {
    func renderSamples(_ run: StitchRenderPlan.Render, encoding: RunEncoding) throws -> [RenderedSegment.Sample] {
        let frames = RunFrames(context: self)
        // The encoder is made once the first picture is drawn: its quality follows the source pictures decoded
        // for it (RunQuality), and its parameter sets must be the plan's whatever the quality.
        var made: VideoEncoder?
        func encoder() throws -> VideoEncoder {
            if let made { return made }
            let encoder = try self.encoder(
                for: run, id: encoding.id, rateFactor: RunQuality.rateFactor(sourceQuantizers: frames.quantizers))
            guard
                transcoding != nil
                    || encoder.parameterSets.sps == encoding.sps && encoder.parameterSets.pps == encoding.pps,
                encoding.hevc.map({ $0.original == encoder.hevcParameterSets }) ?? true
            else {
                throw MediaError("encode", reason: "the encoder's parameter sets changed between runs")
            }
            made = encoder
            return encoder
        }
        let codec = transcoding ?? clips[0].facts.mainVideo?.codec ?? ""
        // H.264 samples are length-prefixed like the copied ones (x264 writes Annex B); HEVC's are renumbered.
        let h264Length = transcoding == nil && codec == "h264" ? lengthSize ?? 4 : nil
        let hevcLength = lengthSize ?? 4
        let ticks = plan.clock.frameTicks
        var samples: [RenderedSegment.Sample] = []
        var failure: Error?
        func emit(_ p: Packet) {
            do {
                var sample = RenderedSegment.Sample(encoded: p, lengthSize: h264Length, decodeDelay: 0, duration: ticks)
                let k = sample.pts / ticks - Int64(run.firstOutput)
                guard sample.pts % ticks == 0, k >= 0, k < Int64(run.decodeTimes.count) else {
                    throw MediaError("encode", reason: "the encoder gave a frame at \(sample.pts), outside its run")
                }
                sample.dts = run.decodeTimes[Int(k)]
                if let hevc = encoding.hevc {
                    sample.data = try hevc.sample(p.withBytes { Array($0) }, lengthSize: hevcLength)
                }
                samples.append(sample)
            } catch { failure = failure ?? error }
        }
        for (offset, item) in run.items.enumerated() {
            let picture: Frame
            switch item {
            case .frame(let c, let k):
                picture = try frames.frame(c, k)
            case .blend(let from, let into, let j):
                picture = try frames.blend(from, into, join: j, at: run.firstOutput + offset)
            }
            picture.pointer.pointee.pts = Int64(run.firstOutput + offset) * ticks
            lp_frame_set_key(picture.pointer, offset == 0 ? 1 : 0)
            try encoder().encode(picture, emit)
            if let failure { throw failure }
        }
        try encoder().encode(nil, emit)
        if let failure { throw failure }
        return samples
    }

}

extension StitchWriter {
    /// A rendered run's samples into the output, in order.
    func write(_ samples: [RenderedSegment.Sample]) throws {
        for sample in samples {
            if firstVideoPts == nil { firstVideoPts = sample.pts }
            lastVideoDts = sample.dts
            try output.write(try sample.packet(), stream: videoOut, timeBase: clockBase)
        }
    }
}

/// The plan's re-encoded runs, rendered ahead on `workers` threads in the plan's order, at most `ahead` runs past
/// the one the writer waits for (the memory held: that many runs' encoded frames); the writer takes each when
/// its turn comes. A failure is the run's, thrown when the writer reaches it. The workers share only Sendable
/// values: the context, the run list, and the state behind its lock.
final class RenderAhead: Sendable {
    private struct State {
        var done: [Int: Result<[RenderedSegment.Sample], Error>] = [:]
        var taken = 0
        var next = 0
        var stopped = false
    }
    private let state = Locked(State())
    private let order: [Job]
    private let context: RenderContext

    struct Job: Sendable {
        let index: Int
        let render: StitchRenderPlan.Render
        let encoding: RunEncoding
    }

    init(_ context: RenderContext, encodings: [Int: RunEncoding], workers: Int, ahead: Int) {
        self.context = context
        order = context.plan.runs.enumerated().compactMap { index, run in
            guard case .render(let render) = run else { return nil }
            return Job(index: index, render: render, encoding: encodings[index] ?? RunEncoding())
        }
        for _ in 0..<max(1, min(workers, order.count)) {
            let thread = Thread { [self] in
                while let k = claim(ahead: ahead) {
                    let job = order[k]
                    let result = Result { try self.context.renderSamples(job.render, encoding: job.encoding) }
                    state.withLock { $0.done[k] = result }
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// The next run to render, once it is within `ahead` of the writer; nil when none is left or stopped.
    private func claim(ahead: Int) -> Int? {
        let count = order.count
        let ready: (State) -> Bool = { $0.stopped || $0.next >= count || $0.next < $0.taken + ahead }
        return state.withLock(when: ready) { s in
            guard !s.stopped, s.next < count else { return nil }
            defer { s.next += 1 }
            return s.next
        }
    }

    /// The samples of plan run `index` (a render), waiting for its worker.
    func samples(run index: Int) throws -> [RenderedSegment.Sample] {
        guard let k = order.firstIndex(where: { $0.index == index }) else { return [] }
        let finished: (State) -> Bool = { $0.done[k] != nil }
        let result = state.withLock(when: finished) { s in
            s.taken = k + 1
            return s.done.removeValue(forKey: k)
        }
        return try result?.get() ?? []
    }

    /// No more runs are started (the writer failed): the workers finish what they hold and end.
    func stop() { state.withLock { $0.stopped = true } }
}

/// The decoded frames one run draws from: a frame source per clip, each frame held while a slower clip shows
/// it again (--normalize), one transition graph per join.
private final class RunFrames {
    let context: RenderContext
    var sources: [Int: FrameSource] = [:]
    var position: [Int: Int] = [:]
    var held: [Int: Frame] = [:]
    var graphs: [Int: TransitionDrawer] = [:]

    /// --normalize: this run's own (a scaler is not shared between threads).
    let fitter: FrameFitter

    /// The mean quantizers of the source pictures decoded so far, every clip's (H.264).
    var quantizers: [Int] { retired + sources.values.flatMap(\.quantizers) }
    /// Those of sources let go (a loop's wrap starts its clip over).
    private var retired: [Int] = []

    init(context: RenderContext) {
        self.context = context
        fitter = context.makeFitter()
    }

    /// Output-grid frame `m` of clip `c`, fitted to the output's format with --normalize.
    func frame(_ c: Int, _ m: Int) throws -> Frame {
        let frame = try decoded(c, context.geometry.sourceIndex(c, m))
        return context.normalize ? try fitter.fit(frame, turn: context.turn(c)) : frame
    }

    /// Join `join`'s picture at output frame `output`: `from` blended into `into`.
    func blend(
        _ from: StitchRenderPlan.FrameRef, _ into: StitchRenderPlan.FrameRef, join j: Int, at output: Int
    ) throws -> Frame {
        let a = try frame(from.clip, from.index)
        let b = try frame(into.clip, into.index)
        let join = context.timeline.joins[j]
        let position = output - join.span.startFrame
        // One drawer a window, fed its frame pairs in order.
        let graph: TransitionDrawer
        if let open = graphs[j], open.position == position {
            graph = open
        } else {
            graph = try TransitionGraph.drawer(
                transition: join.kind, frames: join.frames, like: a,
                frameRate: context.timeline.frameRate, from: position)
            graphs[j] = graph
        }
        return try graph.draw(a, b)
    }

    /// Presented frame `k` of clip `c`, decoded.
    private func decoded(_ c: Int, _ k: Int) throws -> Frame {
        let clip = context.clips[c]
        // A slower clip shows a frame more than once (--normalize).
        if position[c] == k, let frame = held[c] { return frame }
        // A loop's wrap-around needs the first clip's opening again, after its later frames: start over.
        if let at = position[c], k < at {
            retired += sources[c]?.quantizers ?? []
            sources[c] = nil
        }
        position[c] = k
        let source: FrameSource
        if let open = sources[c] {
            source = open
        } else {
            let window = PacketWindow(
                clip.source.video, from: clip.source.keyframeDts(atOrBefore: k), through: clip.source.video.keepThrough)
            source = try FrameSource(path: clip.path, window: window, timelines: clip.timelines)
            sources[c] = source
        }
        let want = clip.source.frames[k].pts
        // Pictures before the wanted one that nothing refers to are not decoded at all.
        source.skipUnreferenced(before: want - clip.source.frameTicks / 2)
        while let f = try source.next() {
            if let pts = f.pts, pts >= want - clip.source.frameTicks / 2 {
                held[c] = f
                return f
            }
        }
        throw MediaError("decode", reason: "\(clip.path): frame \(k) did not decode")
    }
}
