/// Everything stitch writes, decided before a packet is read: which frames of which clip are copied, which are
/// re-encoded and from what (a clip's frame, or two blended by a transition), where each run starts and ends,
/// the decode times of re-encoded frames, and which parameter sets each run uses. StitchWriter only executes
/// it.
public struct StitchRenderPlan: Sendable, Equatable, Codable {
    /// The output video's clock: its time base and one frame in its ticks.
    public struct Clock: Sendable, Equatable, Codable {
        public var timeBase: Rational
        public var frameTicks: Int64
    }

    /// A clip's copied body: presentation frames [start, end), from the keyframe decoded at `fromDts` through
    /// `throughDts` (the last decode time read). It ends at a safe cut: the frames before it are exactly a
    /// prefix of the decode order, so copying that prefix decodes them all and nothing else.
    public struct Body: Sendable, Equatable, Codable {
        public var start: Int
        public var end: Int
        public var fromDts: Int64
        public var throughDts: Int64
        /// The last copied packet's decode time on the output clock.
        public var lastDts: Int64
    }

    /// What one output frame is made of.
    public enum Item: Sendable, Equatable {
        /// Presented frame `index` of clip `clip` (on the output's frame grid: see `sourceIndex`).
        case frame(clip: Int, index: Int)
        /// Frame `from.index` of clip `from.clip` blended into frame `into.index` of clip `into.clip` by join `join`.
        case blend(from: FrameRef, into: FrameRef, join: Int)

        /// The clip whose encoder settings a run that starts with this item takes.
        public var leadClip: Int {
            switch self {
            case .frame(let clip, _): clip
            case .blend(let from, _, _): from.clip
            }
        }
    }

    public struct FrameRef: Sendable, Equatable, Codable {
        public var clip: Int
        public var index: Int
        public init(clip: Int, index: Int) {
            self.clip = clip
            self.index = index
        }
    }

    /// Which parameter sets a re-encoded run's frames refer to.
    public enum RunSets: Sendable, Equatable {
        /// None to share: VP8, VP9, AV1, or a stream in another codec (--normalize --codec) whose own headers
        /// the muxer takes.
        case none
        /// H.264: the run's encoder writes its SPS and PPS with this id.
        case h264(id: Int)
        /// HEVC: the renumbering of encoder settings group `group`.
        case hevc(group: Int)
    }

    /// A stretch of output frames re-encoded (it may span clips and joins).
    public struct Render: Sendable, Equatable {
        /// Output frame of its first item.
        public var firstOutput: Int
        public var items: [Item]
        public var leadClip: Int
        public var sets: RunSets
        /// Each item's decode time on the output clock (its presentation time is `(firstOutput + k) *
        /// frameTicks`): the sources' decode delay, later after a copied body that decoded further, earlier
        /// before one whose keyframe decodes earlier, one tick apart at the least.
        public var decodeTimes: [Int64]

        /// The clips its frames are drawn from (a blend draws from two), in order.
        public var drawnClips: [Int] {
            Set(
                items.flatMap { item -> [Int] in
                    switch item {
                    case .frame(let clip, _): [clip]
                    case .blend(let from, let into, _): [from.clip, into.clip]
                    }
                }
            ).sorted()
        }
    }

    public enum Run: Sendable, Equatable {
        case copy(clip: Int)
        case render(Render)
    }

    public var clock: Clock
    public var movieTimescale: Int64
    /// Per clip, its copied body (nil: re-encoded whole or inside transitions).
    public var bodies: [Body?]
    public var runs: [Run]
    /// Clips re-encoded whole because their parameter sets clash with the first clip's.
    public var reencodedWhole: [Int]
    /// Parameter sets other clips add to the first clip's configuration, in order.
    public var addedParameterSets: [ParameterSet]
    /// HEVC: per encoder-settings group (runs whose encoders write the same sets), the ids they take.
    public var hevcGroups: [HEVCSetIDs]
    /// HEVC: the lead clip whose encoder stands for each group.
    public var hevcGroupClips: [Int]

    /// What the render plan needs beyond the timeline: the clips, whether every frame is re-encoded
    /// (--normalize), the output's video codec and whether it is another codec than the clips' (--codec).
    package struct Request: Sendable {
        public var sources: [StitchSource]
        public var timeline: StitchTimeline
        public var normalize: Bool
        /// The codec the output's video is in.
        public var codec: String
        /// --normalize --codec: every frame encoded in `codec`, another than the clips'.
        public var transcoding: Bool
        /// Per clip, its decoder configuration's parameter sets (nil: none, they are in the stream).
        public var parameterSets: [[ParameterSet]?]
        /// The codecs loopprep can re-encode frames of.
        public var encodable: Set<String>

        public init(
            sources: [StitchSource], timeline: StitchTimeline, normalize: Bool, codec: String, transcoding: Bool,
            parameterSets: [[ParameterSet]?], encodable: Set<String>
        ) {
            self.sources = sources
            self.timeline = timeline
            self.normalize = normalize
            self.codec = codec
            self.transcoding = transcoding
            self.parameterSets = parameterSets
            self.encodable = encodable
        }
    }
}
