import CFFmpeg
import Foundation
import LoopAnalysis
import LoopIndex

/// Re-encodes one run of the plan: decodes what its items need (one frame source per clip, from the keyframe
/// before its first frame), blends where two clips meet and encodes in output order, into samples at the plan's
/// decode times. Nothing here writes: runs are rendered on worker threads while the writer copies the clips'
/// bodies and mixes their audio (each run has its own decoders, drawers, fitter and encoder, so its bytes are the
/// same whatever else runs beside it), and the writer writes each run's samples in the plan's order.
extension StitchWriter {
    func renderSamples(_ run: StitchRenderPlan.Render, encoding: RunEncoding) throws -> [RenderedSegment.Sample] {
        let frames = RunFrames(writer: self)
        // The encoder is made once the first picture is drawn: its quality follows the source pictures decoded
        // for it (RunQuality), and its parameter sets must be the plan's whatever the quality.
        var made: VideoEncoder?
        func encoder() throws -> VideoEncoder {
            if let made { return made }
            let encoder = try settings.encoder(
                run.leadClip, id: encoding.id, rateFactor: RunQuality.rateFactor(sourceQuantizers: frames.quantizers))
            guard
                settings.transcoding != nil
                    || encoder.parameterSets.sps == encoding.sps && encoder.parameterSets.pps == encoding.pps,
                encoding.hevc.map({ $0.original == encoder.hevcParameterSets }) ?? true
            else {
                throw MediaError("encode", reason: "the encoder's parameter sets changed between runs")
            }
            made = encoder
            return encoder
        }
        let codec = settings.transcoding ?? clips[0].facts.mainVideo?.codec ?? ""
        // H.264 samples are length-prefixed like the copied ones (x264 writes Annex B); HEVC's are renumbered.
        let h264Length = settings.transcoding == nil && codec == "h264" ? configuration.lengthSize ?? 4 : nil
        let hevcLength = configuration.lengthSize ?? 4
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
/// its turn comes. A failure is the run's, thrown when the writer reaches it.
final class RenderAhead: @unchecked Sendable {
    private let lock = NSCondition()
    private var done: [Int: Result<[RenderedSegment.Sample], Error>] = [:]
    private var taken = 0
    private var next = 0
    private var stopped = false
    private let order: [(index: Int, render: StitchRenderPlan.Render, encoding: RunEncoding)]

    init(_ writer: StitchWriter, workers: Int, ahead: Int) {
        order = writer.plan.runs.enumerated().compactMap { index, run in
            guard case .render(let render) = run else { return nil }
            return (index, render, writer.configuration.runs[index] ?? RunEncoding())
        }
        // The writer is read, never changed, by the workers (renderSamples touches only its run's own objects and
        // the clips' files, all opened before).
        let shared = SharedWriter(writer: writer)
        for _ in 0..<max(1, min(workers, order.count)) {
            let thread = Thread { [self] in
                while let k = claim(ahead: ahead) {
                    let job = order[k]
                    let result = Result { try shared.writer.renderSamples(job.render, encoding: job.encoding) }
                    lock.lock()
                    done[k] = result
                    lock.broadcast()
                    lock.unlock()
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// The next run to render, once it is within `ahead` of the writer; nil when none is left or stopped.
    private func claim(ahead: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        while !stopped, next < order.count, next >= taken + ahead { lock.wait() }
        guard !stopped, next < order.count else { return nil }
        defer { next += 1 }
        return next
    }

    /// The samples of plan run `index` (a render), waiting for its worker.
    func samples(run index: Int) throws -> [RenderedSegment.Sample] {
        guard let k = order.firstIndex(where: { $0.index == index }) else { return [] }
        lock.lock()
        defer { lock.unlock() }
        while done[k] == nil { lock.wait() }
        let result = done.removeValue(forKey: k)
        taken = k + 1
        lock.broadcast()
        return try result?.get() ?? []
    }

    private struct SharedWriter: @unchecked Sendable { let writer: StitchWriter }

    /// No more runs are started (the writer failed): the workers finish what they hold and end.
    func stop() {
        lock.lock()
        stopped = true
        lock.broadcast()
        lock.unlock()
    }
}

/// The decoded frames one run draws from: a frame source per clip, each frame held while a slower clip shows
/// it again (--normalize), one transition graph per join.
private final class RunFrames {
    let writer: StitchWriter
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

    init(writer: StitchWriter) {
        self.writer = writer
        fitter = writer.makeFitter()
    }

    /// Output-grid frame `m` of clip `c`, fitted to the output's format with --normalize.
    func frame(_ c: Int, _ m: Int) throws -> Frame {
        let frame = try decoded(c, writer.geometry.sourceIndex(c, m))
        return writer.normalize ? try fitter.fit(frame) : frame
    }

    /// Join `join`'s picture at output frame `output`: `from` blended into `into`.
    func blend(
        _ from: StitchRenderPlan.FrameRef, _ into: StitchRenderPlan.FrameRef, join j: Int, at output: Int
    ) throws -> Frame {
        let a = try frame(from.clip, from.index)
        let b = try frame(into.clip, into.index)
        let join = writer.timeline.joins[j]
        let position = output - join.span.startFrame
        // One drawer a window, fed its frame pairs in order.
        let graph: TransitionDrawer
        if let open = graphs[j], open.position == position {
            graph = open
        } else {
            graph = try TransitionGraph.drawer(
                transition: join.kind.xfade ?? "fade", frames: join.frames, like: a,
                frameRate: writer.timeline.frameRate, from: position)
            graphs[j] = graph
        }
        return try graph.draw(a, b)
    }

    /// Presented frame `k` of clip `c`, decoded.
    private func decoded(_ c: Int, _ k: Int) throws -> Frame {
        let clip = writer.clips[c]
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
