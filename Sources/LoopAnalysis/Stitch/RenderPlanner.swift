/// Builds the render plan (StitchRenderPlan) from values alone.
package enum StitchRenderPlanner {
    /// `hevcEncoderSets`: for HEVC, the parameter sets an encoder set up like a clip writes (x265's depend only
    /// on its settings): runs whose encoders write the same ones share one renumbering.
    public static func plan(
        _ r: StitchRenderPlan.Request, hevcEncoderSets: (Int) throws -> [[UInt8]] = { _ in [] }
    ) throws -> StitchRenderPlan {
        let geometry = StitchGeometry(sources: r.sources, timeline: r.timeline, normalize: r.normalize)
        let (added, clashing) = ParameterSetPlan.merge(r.parameterSets)
        let bodies = r.sources.indices.map { i in
            r.normalize || clashing.contains(i) ? nil : body(i, geometry)
        }
        let runs = runs(items(geometry), bodies: bodies)
        let renders = runs.compactMap { run -> StitchRenderPlan.Render? in
            if case .render(let render) = run { return render }
            return nil
        }
        try checkEncodable(r, renders: !renders.isEmpty)
        var plan = StitchRenderPlan(
            clock: geometry.clock, movieTimescale: movieTimescale(geometry), bodies: bodies, runs: runs,
            reencodedWhole: r.normalize ? [] : clashing.sorted(), addedParameterSets: added, hevcGroups: [],
            hevcGroupClips: [])
        try assignParameterSets(&plan, r, taken: ((r.parameterSets.first ?? nil) ?? []) + added, hevcEncoderSets)
        try placeDecodeTimes(&plan, geometry)
        return plan
    }

    /// A clip's copied body: whole GOPs between its incoming and outgoing transitions; nil where it has no such
    /// GOP (one GOP in all, or transitions inside it): it is then re-encoded entirely.
    static func body(_ i: Int, _ g: StitchGeometry) -> StitchRenderPlan.Body? {
        let clip = g.sources[i]
        let timeline = g.timeline
        let n = g.sources.count
        let incoming = i > 0 ? timeline.joins[i - 1].frames : (timeline.loop ? timeline.joins.last?.frames ?? 0 : 0)
        let hasOutgoing = i < n - 1 || timeline.loop
        let outgoing = hasOutgoing ? timeline.joins[i].frames : 0
        let keys = clip.frames.indices.filter { clip.frames[$0].isSync }
        guard let start = keys.first(where: { $0 >= incoming }) else { return nil }
        var end = clip.frameCount
        var endDts: Int64?
        if clip.trimmedEnd || hasOutgoing && (outgoing > 0 || clip.framesAfterEnd) {
            let cuts = clip.safeCuts(from: start)
            guard let cut = cuts.last(where: { $0.index <= clip.frameCount - outgoing && $0.index < clip.frameCount })
            else { return nil }
            end = cut.index
            endDts = cut.dts
        }
        guard start < end else { return nil }
        // The copy ends at the safe cut: its last packet is the last of the body's frames in decode order. With
        // none, it runs through the cut's last packet.
        let last =
            endDts == nil
            ? clip.video.keepThrough
            : clip.allFrames[(start + clip.inOffset)..<(end + clip.inOffset)].map(\.dts).max() ?? clip.video.keepThrough
        return StitchRenderPlan.Body(
            start: start, end: end, fromDts: clip.keyframeDts(atOrBefore: start),
            throughDts: endDts.map { $0 - 1 } ?? clip.video.keepThrough, lastDts: g.place(i, last))
    }

    /// Every output frame, in order.
    static func items(_ g: StitchGeometry) -> [StitchRenderPlan.Item] {
        let timeline = g.timeline
        let total = timeline.frames
        return (0..<total).compactMap { o in
            var covering: [StitchRenderPlan.FrameRef] = []
            for i in g.sources.indices {
                let start = g.outputIndex(clip: i, frame: 0)
                if o >= start && o < start + g.count(i) { covering.append(.init(clip: i, index: o - start)) }
            }
            if timeline.loop, let wrap = timeline.joins.last, wrap.frames > 0, o >= total - wrap.frames {
                covering.append(.init(clip: 0, index: o - (total - wrap.frames)))
            }
            if covering.count >= 2, let a = covering.first, let b = covering.last {
                let join =
                    timeline.joins.firstIndex { $0.from == a.clip && $0.to == b.clip } ?? timeline.joins.count - 1
                return .blend(from: a, into: b, join: join)
            }
            return covering.first.map { .frame(clip: $0.clip, index: $0.index) }
        }
    }

    /// Runs: a clip's copied body, or a stretch of frames to re-encode (which may span clips).
    static func runs(_ items: [StitchRenderPlan.Item], bodies: [StitchRenderPlan.Body?]) -> [StitchRenderPlan.Run] {
        func copied(_ item: StitchRenderPlan.Item) -> Int? {
            guard case .frame(let c, let k) = item, let body = bodies[c], k >= body.start, k < body.end else {
                return nil
            }
            return c
        }
        var runs: [StitchRenderPlan.Run] = []
        var o = 0
        while o < items.count {
            if let c = copied(items[o]), let body = bodies[c] {
                runs.append(.copy(clip: c))
                o += body.end - body.start
            } else {
                var end = o
                while end < items.count && copied(items[end]) == nil { end += 1 }
                let run = Array(items[o..<end])
                runs.append(
                    .render(.init(firstOutput: o, items: run, leadClip: run[0].leadClip, sets: .none, decodeTimes: [])))
                o = end
            }
        }
        return runs
    }

    static func checkEncodable(_ r: StitchRenderPlan.Request, renders: Bool) throws {
        guard renders else { return }
        let path = r.sources.first?.path ?? "?"
        if !r.encodable.contains(r.codec) {
            throw PlanError(
                "loopprep cannot re-encode \(r.codec) frames for a transition or --normalize yet (H.264, HEVC, VP8, "
                    + "VP9 and AV1 only): stitch these clips with --transition none, or re-encode them first")
        }
        // Re-encoded frames join the first clip's parameter sets in one avcC (hvcC): a first clip that carries
        // them in the stream instead (MPEG-TS, FLV) has none to join, and the output would not decode.
        let names = ["h264": ("H.264", "avcC"), "hevc": ("HEVC", "hvcC")]
        if !r.transcoding, let (name, record) = names[r.codec], (r.parameterSets.first ?? nil) == nil {
            throw PlanError(
                "\(path) carries its \(name) parameter sets in the stream (no \(record)), so frames re-encoded for "
                    + "a transition or --normalize cannot join them: fix it into an MP4 first (loopprep fix), then "
                    + "stitch that")
        }
    }

    /// Each rendered run's parameter sets: H.264 a fresh id each; HEVC one renumbering per encoder settings
    /// (x265's sets depend only on its settings, so runs with the same ones share it); none otherwise.
    static func assignParameterSets(
        _ plan: inout StitchRenderPlan, _ r: StitchRenderPlan.Request, taken: [ParameterSet],
        _ hevcEncoderSets: (Int) throws -> [[UInt8]]
    ) throws {
        guard !r.transcoding, r.codec == "h264" || r.codec == "hevc" else { return }
        let renderIndices = plan.runs.indices.filter { if case .render = plan.runs[$0] { true } else { false } }
        var ids = r.codec == "h264" ? try ParameterSetPlan.h264IDs(runs: renderIndices.count, taken: taken) : []
        var groups: [[[UInt8]]] = []
        var used = taken
        for index in renderIndices {
            guard case .render(var render) = plan.runs[index] else { continue }
            if r.codec == "h264" {
                render.sets = .h264(id: ids.removeFirst())
            } else {
                let sets = try hevcEncoderSets(render.leadClip)
                if let group = groups.firstIndex(of: sets) {
                    render.sets = .hevc(group: group)
                } else {
                    let assigned = try ParameterSetPlan.hevcIDs(taken: used)
                    used += [
                        ParameterSet(kind: .video, id: assigned.video, bytes: []),
                        ParameterSet(kind: .sequence, id: assigned.sequence, bytes: []),
                        ParameterSet(kind: .picture, id: assigned.picture, bytes: []),
                    ]
                    groups.append(sets)
                    plan.hevcGroups.append(assigned)
                    plan.hevcGroupClips.append(render.leadClip)
                    render.sets = .hevc(group: groups.count - 1)
                }
            }
            plan.runs[index] = .render(render)
        }
    }

    /// Decode times of every re-encoded frame: the sources' decode delay (pts - dts of the first clip's
    /// keyframes) where it fits, so decode times run on into copied GOPs; later after a copied body that decoded
    /// further (its safe cut may end on frames decoded early), earlier before one whose keyframe decodes earlier
    /// (B-frames: a keyframe mid-clip can wait longer than the first), one tick apart at the least.
    static func placeDecodeTimes(_ plan: inout StitchRenderPlan, _ g: StitchGeometry) throws {
        let ticks = plan.clock.frameTicks
        let delay =
            g.sources[0].allFrames.first { $0.isSync }.map { key in
                g.onGrid(0) ? (g.slot(0, key.pts) - g.slot(0, key.dts)) * ticks : key.pts - key.dts
            } ?? 0
        var lastDts: Int64?
        for index in plan.runs.indices {
            switch plan.runs[index] {
            case .copy(let c):
                lastDts = plan.bodies[c]?.lastDts
            case .render(var render):
                // The copied body after the run decodes from its keyframe: the run's decode times end before it.
                var nextDts: Int64?
                if index + 1 < plan.runs.count, case .copy(let c) = plan.runs[index + 1], let body = plan.bodies[c] {
                    nextDts = g.place(c, body.fromDts)
                }
                let lastPts = Int64(render.firstOutput + render.items.count - 1) * ticks
                let runDelay = max(delay, nextDts.map { lastPts - $0 + 1 } ?? delay)
                func times(_ runDelay: Int64) throws -> [Int64] {
                    var floor = (lastDts ?? Int64.min / 2) + 1
                    return try render.items.indices.map { k in
                        let dts = max(Int64(render.firstOutput + k) * ticks - runDelay, floor)
                        if let nextDts, dts >= nextDts {
                            throw PlanError(
                                "the re-encoded frames before a copied keyframe have no decode times left before it")
                        }
                        floor = dts + 1
                        return dts
                    }
                }
                render.decodeTimes = try times(runDelay)
                // The file's last run after a copied body that decodes late (a Matroska clip's: its blocks have no
                // decode times): its frames would follow the body's a tick apart, and a reader that takes the last
                // frame's length from its decode step ends the video early. They are spaced a frame apart instead,
                // never decoded after they are shown (the run has no reordering).
                let steps = zip([lastDts ?? Int64.min / 2] + render.decodeTimes, render.decodeTimes).map { $1 - $0 }
                if nextDts == nil, lastDts != nil, steps.contains(where: { $0 < ticks }) {
                    var floor = (lastDts ?? 0) + ticks
                    render.decodeTimes = render.items.indices.map { k in
                        let pts = Int64(render.firstOutput + k) * ticks
                        let dts = min(max(pts - runDelay, floor), pts)
                        floor = dts + ticks
                        return dts
                    }
                }
                lastDts = render.decodeTimes.last ?? lastDts
                plan.runs[index] = .render(render)
            }
        }
    }

    /// The movie timescale that makes every edit exact: the video clock's and the audio rate's common multiple.
    static func movieTimescale(_ g: StitchGeometry) -> Int64 {
        let video = g.clock.timeBase.denominator / Swift.max(g.clock.timeBase.numerator, 1)
        let rate = Int64(g.timeline.sampleRate ?? 1)
        return MovieTimescale.common([video, rate], fallback: rate)
    }
}
