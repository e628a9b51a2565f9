import Foundation

/// stitch's plan as a value a report carries (`plan` in stitch's JSON) and `loopprep apply` carries out later, never
/// planned again: what was asked, what each clip was read as (its fingerprint, the audio tracks it keeps), and the
/// render plan (which frames are copied, which encoded again and from what). The timeline is the report's own
/// `timeline`.
public struct StitchPlanValue: Codable, Sendable, Equatable {
    /// The clips, joins and output as asked (the output is the outcome's; `force` is apply's own).
    public var request: SavedRequest
    /// A dry run's: what it read of each clip, in order (nil in a written reel's report, or for a URL).
    public var inputs: [InputFingerprint?]?
    /// Per clip, the audio tracks the reel joins (indices into the clip's audio tracks: SharedAudio's choice).
    public var keptAudio: [[Int]]
    /// Per clip, its cut as the plan read it (StitchSource.cutFigures): a reading that cuts it otherwise (another
    /// loopprep) does not carry this plan out. nil in a plan saved before it was recorded.
    public var cuts: [[Int64]]?
    public var render: StitchRenderPlan

    public init(
        request: SavedRequest, inputs: [InputFingerprint?]?, keptAudio: [[Int]], cuts: [[Int64]]?,
        render: StitchRenderPlan
    ) {
        self.request = request
        self.inputs = inputs
        self.keptAudio = keptAudio
        self.cuts = cuts
        self.render = render
    }

    /// What a StitchRequest says that the write reads again: the clips and their in and out points, the joins, the
    /// loop, --normalize and --codec, the audio's curve, the target's analysis, the web player's remedy.
    public struct SavedRequest: Codable, Sendable, Equatable {
        public struct Clip: Codable, Sendable, Equatable {
            public var path: String
            public var inPoint: Rational?
            public var outPoint: Rational?
        }
        public var clips: [Clip]
        public var transitions: [TransitionRequest]
        public var loop: Bool
        public var normalize: Bool
        public var codec: String?
        public var audioCurve: FadeCurve
        public var analysis: AnalysisOptions
        public var webPlayerRemedy: String?

        public init(_ request: StitchRequest) {
            clips = request.clips.map { Clip(path: $0.path, inPoint: $0.inPoint, outPoint: $0.outPoint) }
            (transitions, loop, normalize, codec) = (
                request.transitions, request.loop, request.normalize, request.codec
            )
            (audioCurve, analysis, webPlayerRemedy) = (request.audioCurve, request.analysis, request.webPlayerRemedy)
        }

        /// The request again, writing to `output`.
        public func request(output: String, force: Bool) -> StitchRequest {
            var request = StitchRequest(
                clips: clips.map { StitchRequest.Clip(path: $0.path, inPoint: $0.inPoint, outPoint: $0.outPoint) },
                transitions: transitions, loop: loop, output: output)
            (request.named, request.force, request.normalize, request.codec) = (output, force, normalize, codec)
            (request.audioCurve, request.analysis, request.webPlayerRemedy) = (audioCurve, analysis, webPlayerRemedy)
            return request
        }
    }

    /// Why the render plan cannot be carried out over clips of these frame counts (a plan edited by hand, or made for
    /// other clips): its first clip or frame out of range, said; nil where every reference is inside the clips.
    public func misfit(frameCounts: [Int], joins: Range<Int>) -> String? {
        typealias FrameRef = StitchRenderPlan.FrameRef
        let plan = render
        guard plan.bodies.count == frameCounts.count, keptAudio.count == frameCounts.count else {
            return "the plan is for \(plan.bodies.count) clips, not \(frameCounts.count)"
        }
        func inside(_ clip: Int, _ index: Int) -> Bool {
            frameCounts.indices.contains(clip) && index >= 0 && index < frameCounts[clip]
        }
        for (clip, body) in plan.bodies.enumerated() {
            guard let body else { continue }
            if !(0 <= body.start && body.start <= body.end && body.end <= frameCounts[clip]) {
                return "clip \(clip + 1)'s copied frames \(body.start)-\(body.end) are not all in it"
            }
        }
        for run in plan.runs {
            switch run {
            case .copy(let clip) where !frameCounts.indices.contains(clip) || plan.bodies[clip] == nil:
                return "it copies clip \(clip + 1), which has no copied body"
            case .copy: continue
            case .render(let render):
                guard render.decodeTimes.count == render.items.count else {
                    return
                        "an encoded run has \(render.items.count) frames and \(render.decodeTimes.count) decode times"
                }
                for item in render.items {
                    let refs =
                        switch item {
                        case .frame(let clip, let index): [FrameRef(clip: clip, index: index)]
                        case .blend(let from, let into, let join):
                            joins.contains(join) ? [from, into] : [FrameRef(clip: -1, index: 0)]
                        }
                    if let bad = refs.first(where: { !inside($0.clip, $0.index) }) {
                        return bad.clip < 0
                            ? "it blends at a join the timeline does not have"
                            : "it encodes frame \(bad.index) of clip \(bad.clip + 1), which is not in it"
                    }
                }
            }
        }
        return nil
    }
}

// The render plan in a report: runs of frames as ranges, decode times as arithmetic runs, parameter sets as base64,
// so a reel of thousands of encoded frames stays a few lines.
extension StitchRenderPlan.RunSets: Codable {
    enum CodingKeys: String, CodingKey { case h264, hevc }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .none: break
        case .h264(let id): try c.encode(id, forKey: .h264)
        case .hevc(let group): try c.encode(group, forKey: .hevc)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try c.decodeIfPresent(Int.self, forKey: .h264) {
            self = .h264(id: id)
        } else if let group = try c.decodeIfPresent(Int.self, forKey: .hevc) {
            self = .hevc(group: group)
        } else {
            self = .none
        }
    }
}

extension StitchRenderPlan.Run: Codable {
    enum CodingKeys: String, CodingKey { case copy, render }

    /// `{"copy": clip}` or `{"render": {...}}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .copy(let clip): try c.encode(clip, forKey: .copy)
        case .render(let render): try c.encode(render, forKey: .render)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let clip = try c.decodeIfPresent(Int.self, forKey: .copy) {
            self = .copy(clip: clip)
        } else {
            self = .render(try c.decode(StitchRenderPlan.Render.self, forKey: .render))
        }
    }
}

extension StitchRenderPlan.Render: Codable {
    enum CodingKeys: String, CodingKey { case firstOutput, items, leadClip, sets, decodeTimes }

    /// A stretch of frames of one clip in order, or of blends whose both frames step by one in one join.
    struct ItemRun: Codable, Equatable {
        /// A clip's frames [from, from + count).
        var clip: Int?
        /// A blend's: join, and the frames it blends from and into, each [index, index + count).
        var join: Int?
        var from: StitchRenderPlan.FrameRef?
        var into: StitchRenderPlan.FrameRef?
        var first: Int?
        var count: Int

        func item(_ k: Int) -> StitchRenderPlan.Item {
            if let join, let from, let into {
                return .blend(
                    from: .init(clip: from.clip, index: from.index + k),
                    into: .init(clip: into.clip, index: into.index + k),
                    join: join)
            }
            return .frame(clip: clip ?? 0, index: (first ?? 0) + k)
        }

        /// The run `item` starts, of one.
        init(_ item: StitchRenderPlan.Item) {
            switch item {
            case .frame(let clip, let index): (self.clip, first) = (clip, index)
            case .blend(let from, let into, let join): (self.join, self.from, self.into) = (join, from, into)
            }
            count = 1
        }

        /// Whether `item` is the one after this run's last.
        func continues(with item: StitchRenderPlan.Item) -> Bool { self.item(count) == item }
    }

    /// Decode times `first, first + step, ...`, `count` of them.
    struct TimeRun: Codable, Equatable {
        var first: Int64
        var step: Int64
        var count: Int
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(firstOutput, forKey: .firstOutput)
        var runs: [ItemRun] = []
        for item in items {
            if let last = runs.last, last.continues(with: item) {
                runs[runs.count - 1].count += 1
            } else {
                runs.append(ItemRun(item))
            }
        }
        try c.encode(runs, forKey: .items)
        try c.encode(leadClip, forKey: .leadClip)
        try c.encode(sets, forKey: .sets)
        var times: [TimeRun] = []
        for t in decodeTimes {
            if let last = times.last, last.count == 1 || last.first + last.step * Int64(last.count) == t {
                if last.count == 1 { times[times.count - 1].step = t - last.first }
                times[times.count - 1].count += 1
            } else {
                times.append(TimeRun(first: t, step: 0, count: 1))
            }
        }
        try c.encode(times, forKey: .decodeTimes)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let runs = try c.decode([ItemRun].self, forKey: .items)
        let times = try c.decode([TimeRun].self, forKey: .decodeTimes)
        guard runs.allSatisfy({ $0.count > 0 && $0.count < 1 << 24 }),
            times.allSatisfy({ $0.count > 0 && $0.count < 1 << 24 })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .items, in: c, debugDescription: "a run of frames or decode times of no length")
        }
        self.init(
            firstOutput: try c.decode(Int.self, forKey: .firstOutput),
            items: runs.flatMap { run in (0..<run.count).map(run.item) },
            leadClip: try c.decode(Int.self, forKey: .leadClip),
            sets: try c.decode(StitchRenderPlan.RunSets.self, forKey: .sets),
            decodeTimes: times.flatMap { run in (0..<run.count).map { run.first + run.step * Int64($0) } })
    }
}

extension ParameterSet: Codable {
    enum CodingKeys: String, CodingKey { case kind, id, bytes }

    /// `{"kind": "sequence", "id": 0, "bytes": base64}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(["video", "sequence", "picture"][kind.rawValue], forKey: .kind)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(Data(bytes).base64EncodedString(), forKey: .bytes)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .kind)
        guard let kind = ["video", "sequence", "picture"].firstIndex(of: name).flatMap(Kind.init(rawValue:)),
            let bytes = Data(base64Encoded: try c.decode(String.self, forKey: .bytes))
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .bytes, in: c, debugDescription: "a parameter set's kind or bytes cannot be read")
        }
        self.init(kind: kind, id: try c.decodeIfPresent(Int.self, forKey: .id), bytes: Array(bytes))
    }
}
