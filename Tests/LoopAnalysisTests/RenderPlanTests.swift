import Testing

@testable import LoopAnalysis

/// Clips for the render plan, built in code: 30 fps on a 1/15360 clock (512 ticks a frame), planned by
/// FixPlanner as stitch plans them.
enum RenderClips {
    static let step: Int64 = 512
    static let timescale: Int64 = 15360

    enum Shape {
        /// I and P frames, decoded in presentation order, a keyframe every `gop` frames.
        case plain(gop: Int)
        /// Closed GOPs of `I P B B P B B P B B` (10 frames): each P decoded before the two B-frames shown
        /// before it.
        case bFrames
        /// Open GOPs: anchors every 3 frames (keyframes every 9, as HEVC CRA pictures), each decoded before
        /// the two B-frames shown before it, so a keyframe's two leading pictures lean on the GOP before.
        case openGOP
    }

    /// Frames in decode order: (presentation index, keyframe).
    static func order(_ frames: Int, _ shape: Shape) -> [(p: Int, key: Bool)] {
        switch shape {
        case .plain(let gop):
            return (0..<frames).map { ($0, $0 % gop == 0) }
        case .bFrames:
            var out: [(p: Int, key: Bool)] = []
            for start in stride(from: 0, to: frames, by: 10) {
                out.append((start, true))
                for anchor in stride(from: start + 3, to: min(start + 10, frames), by: 3) {
                    out += [(anchor, false), (anchor - 2, false), (anchor - 1, false)]
                }
            }
            return out
        case .openGOP:
            var out: [(p: Int, key: Bool)] = [(0, true)]
            for anchor in stride(from: 3, to: frames, by: 3) {
                out += [(anchor, anchor % 9 == 0), (anchor - 2, false), (anchor - 1, false)]
            }
            return out
        }
    }

    /// Presented frame p at (p + delay) * step, decoded at its decode index; an edit list hides the delay.
    static func source(_ path: String, frames: Int, _ shape: Shape, in inPoint: Rational? = nil, out: Rational? = nil)
        throws -> StitchSource
    {
        let delay: Int64
        if case .plain = shape { delay = 0 } else { delay = 2 }
        let samples = order(frames, shape).enumerated().map { d, f in
            SampleTiming(dts: Int64(d) * step, pts: (Int64(f.p) + delay) * step, duration: step, isSync: f.key)
        }
        let timeline = TrackTimeline(
            timeBase: Rational(1, timescale), samples: samples,
            edits: [Edit(mediaTime: delay * step, duration: Rational(Int64(frames), 30))])
        let basics = TrackBasics(index: 0, kind: .video, codec: "h264", width: 160, height: 90)
        let track = try #require(TrackFacts(basics: basics, timeline: timeline))
        let facts = Clips.clip([track])
        let plan = try FixPlanner.plan(facts, timelines: [0: timeline])
        return try StitchSource.make(
            path: path, plan: plan, video: timeline, frameRate: Rational(30), in: inPoint, out: out)
    }

    static func request(
        _ sources: [StitchSource], transition: TransitionKind = .crossfade, frames: Int, loop: Bool = false,
        sets: [[ParameterSet]?]? = nil, codec: String = "h264"
    ) throws -> StitchRenderPlan.Request {
        let joins = loop ? sources.count : sources.count - 1
        let timeline = try StitchPlanner.timeline(
            sources.map { StitchClip(path: $0.path, frames: $0.frameCount) },
            transitions: Array(
                repeating: TransitionRequest(kind: transition, duration: Rational(Int64(frames), 30)), count: joins),
            frameRate: Rational(30), sampleRate: 48000, loop: loop)
        return StitchRenderPlan.Request(
            sources: sources, timeline: timeline, normalize: false, codec: codec, transcoding: false,
            parameterSets: sets ?? sources.map { _ in RenderPlanTests.avc },
            encodable: ["h264", "hevc", "vp8", "vp9", "av1"])
    }
}

@Suite struct RenderPlanTests {
    static let avc = [
        ParameterSet(kind: .sequence, id: 0, bytes: [0x67, 0x64, 0]),
        ParameterSet(kind: .picture, id: 0, bytes: [0x68, 1]),
    ]

    static func renders(_ plan: StitchRenderPlan) -> [StitchRenderPlan.Render] {
        plan.runs.compactMap { if case .render(let r) = $0 { r } else { nil } }
    }

    /// A stream-copy cut that ends mid-GOP (`ffmpeg -ss 1.3 -t 3 -c copy`): of `I P3 B1 B2 P6 B4 B5 P9 B7 B8` in
    /// decode order, frames 0-7 are shown and 8-9 after the cut's end, P9 stored before B7. After I0 and after
    /// B2 the frames read are exactly those shown before the next (cuts at 1 and 4); after B5 too, but the next read
    /// is P9, shown after the end, so a copy through it would show a frame too many: no cut there.
    @Test func aSafeCutReadsNoFrameShownAfterTheEnd() throws {
        var source = try RenderClips.source("c.mp4", frames: 10, .bFrames)
        source.allFrames = Array(source.allFrames.prefix(8))
        let step = RenderClips.step
        let cuts = source.safeCuts(from: 0).map { [Int64($0.index), $0.dts] }
        #expect(cuts == [[1, step], [4, 4 * step], [7, 8 * step]])
        source.shownAfterEnd = [7 * step, 9 * step]
        #expect(source.safeCuts(from: 0).map { [Int64($0.index), $0.dts] } == [[1, step], [4, 4 * step]])
    }

    /// Three 60-frame clips of I and P frames (keyframes every 10) with 15-frame crossfades: 180 - 30 = 150
    /// frames. Without B-frames every frame is a safe cut: clip 0 is copied up to its join (frames 0-44),
    /// clip 1 from its first keyframe after the incoming join (frame 20) to its outgoing one (44), clip 2 from
    /// 20 to its end. Each render run is a join's 15 blends and the 5 frames before the next keyframe.
    @Test func copiedBodiesRunFromKeyframeToJoin() throws {
        let sources = try (0..<3).map { try RenderClips.source("c\($0).mp4", frames: 60, .plain(gop: 10)) }
        let plan = try StitchRenderPlanner.plan(try RenderClips.request(sources, frames: 15))
        #expect(plan.bodies.map { $0.map { [$0.start, $0.end] } } == [[0, 45], [20, 45], [20, 60]])
        #expect(plan.runs.count == 5)
        let r = Self.renders(plan)
        #expect(r.map(\.firstOutput) == [45, 90] && r.map(\.items.count) == [20, 20])
        #expect(r[0].items.first == .blend(from: .init(clip: 0, index: 45), into: .init(clip: 1, index: 0), join: 0))
        #expect(r[0].items.last == .frame(clip: 1, index: 19))
        // The clips' clock is the output's (512 ticks a frame at 1/15360): no B-frames, no delay: each decode
        // time is its presentation time.
        #expect(plan.clock == .init(timeBase: Rational(1, 15360), frameTicks: 512))
        #expect(r[0].decodeTimes == (45..<65).map { Int64($0) * 512 })
        // Clip 0's copy ends at frame 44 (decode time 44 x 512); clip 2 (at output 90) runs through its last
        // packet, frame 59: output 149.
        let lastDts = plan.bodies.map { $0?.lastDts }
        let expected: [Int64?] = [44 * 512, (45 + 44) * 512, (90 + 59) * 512]
        #expect(lastDts == expected)
        #expect(plan.bodies[2]?.fromDts == Int64(20 * 512))
        // H.264: each run its own parameter set id, after the clips' (id 0).
        #expect(r.map(\.sets) == [.h264(id: 1), .h264(id: 2)])
        // The least common multiple of 15360 (2^10 x 15) and 48000 (2^7 x 375): 2^10 x 375.
        #expect(plan.movieTimescale == 384_000)
    }

    /// Closed B-frame GOPs (I P B B P B B P B B), two 40-frame clips, a 5-frame crossfade. Clip 0's safe cuts
    /// are where a mini-group ends (frames 1, 4, 7, 10, 11, ...): the last at or before 40 - 5 is 34. The
    /// run re-encodes frame 34, the five blends and clip 1's frames 5-9; clip 1 is copied from its keyframe
    /// at 10. The sources delay presentation two frames (1024 ticks): re-encoded frames are decoded that much
    /// earlier, after clip 0's last copied decode time and before clip 1's keyframe.
    @Test func bFrameClipsCutWhereTheDecodeOrderAllows() throws {
        let sources = try (0..<2).map { try RenderClips.source("b\($0).mp4", frames: 40, .bFrames) }
        let plan = try StitchRenderPlanner.plan(try RenderClips.request(sources, frames: 5))
        let body0 = try #require(plan.bodies[0])
        // Frames 0-33 are decode indices 0-33; the next decoded is P36 (index 34).
        #expect(body0.start == 0 && body0.end == 34 && body0.fromDts == 0 && body0.throughDts == 34 * 512 - 1)
        // Its last decode time, B32 (index 33), less the clip's hidden two-frame delay.
        #expect(body0.lastDts == 31 * 512)
        let body1 = try #require(plan.bodies[1])
        // Clip 1 starts at output 35: its keyframe (decode index 10) lands at 10 + 35 - 2 frames.
        #expect(body1.start == 10 && body1.end == 40 && body1.fromDts == 10 * 512 && body1.lastDts == 72 * 512)
        let r = try #require(Self.renders(plan).first)
        #expect(r.firstOutput == 34 && r.items.count == 11)
        #expect(r.decodeTimes == (32...42).map { Int64($0) * 512 })
        #expect(r.decodeTimes.last ?? 0 < 10 * 512 + 35 * 512 - 1024)
    }

    /// One 40-frame open-GOP clip looping into itself over 5 frames: 35 output frames, the first clip's
    /// opening (frames 0-4) shown only by the wrap-around at the end. The body starts at the first keyframe
    /// after the incoming wrap (frame 9: its leading pictures 7 and 8 are re-encoded before it) and ends at
    /// the last safe cut at or before 40 - 5: frame 34, after B32 (the keyframe at 36 and its leading pictures
    /// come later in decode order).
    @Test func loopWrapAroundAnOpenGOP() throws {
        let source = try RenderClips.source("open.mp4", frames: 40, .openGOP)
        let plan = try StitchRenderPlanner.plan(try RenderClips.request([source], frames: 5, loop: true))
        let body = try #require(plan.bodies[0])
        // CRA9 is decode index 7; CRA36 (decode index 34) is the first frame after the cut.
        #expect(body.start == 9 && body.end == 34 && body.fromDts == 7 * 512 && body.throughDts == 34 * 512 - 1)
        let r = Self.renders(plan)
        #expect(plan.runs.count == 3 && r.map(\.firstOutput) == [0, 29])
        #expect(r[0].items == (5...8).map { .frame(clip: 0, index: $0) })
        #expect(r[1].items.first == .frame(clip: 0, index: 34))
        #expect(
            Array(r[1].items.dropFirst())
                == (0..<5).map {
                    .blend(from: .init(clip: 0, index: 35 + $0), into: .init(clip: 0, index: $0), join: 0)
                })
        // The first run is decoded before the body's keyframe, which lands at output decode time
        // 7 x 512 - 5 x 512 (the consumed opening) - 1024 (the hidden delay) = 0: its last frame (presented
        // at 3 x 512) needs a delay of 1537.
        #expect(r[0].decodeTimes == (0...3).map { Int64($0) * 512 - 1537 })
        // After the body (last decode time B32, index 33: 33 x 512 - 2560 - 1024 = 26 x 512), the delay.
        #expect(body.lastDts == 26 * 512)
        #expect(r[1].decodeTimes == (27...32).map { Int64($0) * 512 })
    }

    /// Every transition length from none to 25 frames on two 60-frame clips with keyframes every 10: the runs
    /// present every output frame once, in order; a body starts on a keyframe; a blend is drawn exactly where
    /// the timeline puts the join; decode times rise through the whole stream.
    @Test(arguments: 0...25) func everyTransitionLengthCoversTheTimeline(frames: Int) throws {
        let sources = try (0..<2).map { try RenderClips.source("t\($0).mp4", frames: 60, .plain(gop: 10)) }
        let request = try RenderClips.request(sources, transition: frames == 0 ? .none : .crossfade, frames: frames)
        let plan = try StitchRenderPlanner.plan(request)
        #expect(request.timeline.frames == 120 - frames)
        var output = 0
        var lastDts = Int64.min
        for run in plan.runs {
            switch run {
            case .copy(let c):
                let body = try #require(plan.bodies[c])
                #expect(sources[c].frames[body.start].isSync)
                #expect(request.timeline.clips[c].span.startFrame + body.start == output)
                output += body.end - body.start
                #expect(body.lastDts > lastDts)
                lastDts = body.lastDts
            case .render(let r):
                #expect(r.firstOutput == output)
                for (k, item) in r.items.enumerated() {
                    let o = r.firstOutput + k
                    let inJoin = frames > 0 && o >= 60 - frames && o < 60
                    if case .blend = item { #expect(inJoin) } else { #expect(!inJoin) }
                }
                output += r.items.count
                #expect(zip(r.decodeTimes, r.decodeTimes.dropFirst()).allSatisfy { $0 < $1 })
                #expect((r.decodeTimes.first ?? .max) > lastDts)
                lastDts = r.decodeTimes.last ?? lastDts
            }
        }
        #expect(output == 120 - frames)
        // A butt join copies both clips whole.
        if frames == 0 { #expect(plan.runs == [.copy(clip: 0), .copy(clip: 1)]) }
    }
}

@Suite struct ParameterSetPlanTests {
    static func avc(sps: [UInt8], id: Int = 0) -> [ParameterSet] {
        [
            ParameterSet(kind: .sequence, id: id, bytes: sps),
            ParameterSet(kind: .picture, id: id, bytes: [0x68, UInt8(id)]),
        ]
    }

    /// A clip whose SPS 0 is other bytes clashes (it is re-encoded whole); one with the same sets adds
    /// nothing; one with a new id adds its sets; one without a configuration adds and clashes with nothing.
    @Test func setsMergeUnlessTheyClash() throws {
        let first = Self.avc(sps: [0x67, 1])
        let (added, clashing) = ParameterSetPlan.merge([
            first, Self.avc(sps: [0x67, 1]), Self.avc(sps: [0x67, 2]), Self.avc(sps: [0x67, 3], id: 1), nil,
        ])
        #expect(clashing == [2])
        #expect(added == Self.avc(sps: [0x67, 3], id: 1))
        #expect(ParameterSetPlan.clash(first, Self.avc(sps: [0x67, 9])))
        #expect(!ParameterSetPlan.clash(first, Self.avc(sps: [0x67, 9], id: 5)))
    }

    /// The plan re-encodes a clashing clip whole and says so; H.264 runs take the ids after every set's.
    @Test func clashingClipIsReencodedWhole() throws {
        let sources = try (0..<3).map { try RenderClips.source("p\($0).mp4", frames: 60, .plain(gop: 10)) }
        let sets = [Self.avc(sps: [0x67, 1]), Self.avc(sps: [0x67, 2]), Self.avc(sps: [0x67, 3], id: 1)]
        let plan = try StitchRenderPlanner.plan(try RenderClips.request(sources, frames: 15, sets: sets))
        #expect(plan.reencodedWhole == [1] && plan.bodies[1] == nil)
        #expect(plan.addedParameterSets == Self.avc(sps: [0x67, 3], id: 1))
        // Ids 0 and 1 are taken: the one run (clip 0's join, all of clip 1, clip 2 up to its first keyframe
        // after the join) takes 2.
        #expect(RenderPlanTests.renders(plan).map(\.sets) == [.h264(id: 2)])
    }

    /// HEVC: runs whose encoders write the same sets share one renumbering, each group the lowest ids free of
    /// its kind (the clips use 0).
    @Test func hevcRunsShareARenumberingPerEncoderSettings() throws {
        let sources = try (0..<3).map { try RenderClips.source("h\($0).mp4", frames: 60, .plain(gop: 10)) }
        let hvcc = [
            ParameterSet(kind: .video, id: 0, bytes: [0x40, 1]),
            ParameterSet(kind: .sequence, id: 0, bytes: [0x42, 1]),
            ParameterSet(kind: .picture, id: 0, bytes: [0x44, 1]),
        ]
        let request = try RenderClips.request(sources, frames: 15, sets: [hvcc, hvcc, hvcc], codec: "hevc")
        // Clips 0 and 1 set up encoders alike; clip 2 another way.
        let plan = try StitchRenderPlanner.plan(request) { c in c == 2 ? [[0x40, 2]] : [[0x40, 1]] }
        #expect(RenderPlanTests.renders(plan).map(\.sets) == [.hevc(group: 0), .hevc(group: 0)])
        #expect(plan.hevcGroups == [HEVCSetIDs(video: 1, sequence: 1, picture: 1)])
        let mixed = try StitchRenderPlanner.plan(request) { c in c == 1 ? [[0x40, 2]] : [[0x40, 1]] }
        #expect(RenderPlanTests.renders(mixed).map(\.sets) == [.hevc(group: 0), .hevc(group: 1)])
        #expect(mixed.hevcGroups.map(\.picture) == [1, 2] && mixed.hevcGroupClips == [0, 1])
    }

    /// What the plan refuses before anything is written: a codec loopprep cannot encode, a first clip whose
    /// H.264 sets are in the stream, no id left.
    @Test func refusalsComeFromThePlan() throws {
        let sources = try (0..<2).map { try RenderClips.source("r\($0).mp4", frames: 60, .plain(gop: 10)) }
        var mpeg2 = try RenderClips.request(sources, frames: 5)
        mpeg2.codec = "mpeg2video"
        #expect(throws: PlanError.self) { try StitchRenderPlanner.plan(mpeg2) }
        do { _ = try StitchRenderPlanner.plan(mpeg2) } catch let e as PlanError {
            #expect(e.reason.contains("cannot re-encode mpeg2video frames"))
        }
        let inBand = try RenderClips.request(sources, frames: 5, sets: [nil, nil])
        do { _ = try StitchRenderPlanner.plan(inBand) } catch let e as PlanError {
            #expect(e.reason.contains("carries its H.264 parameter sets in the stream (no avcC)"))
        }
        // The same clips butt-joined copy everything: nothing to re-encode, nothing refused.
        let butt = try RenderClips.request(sources, transition: .none, frames: 0, sets: [nil, nil])
        #expect(try StitchRenderPlanner.plan(butt).runs == [.copy(clip: 0), .copy(clip: 1)])
        let full = (0...31).flatMap { Self.avc(sps: [0x67, UInt8($0)], id: $0) }
        #expect(throws: PlanError.self) {
            try StitchRenderPlanner.plan(try RenderClips.request(sources, frames: 5, sets: [full, full]))
        }
    }
}

/// `--transition slide` is a slide to the left, as slide-left is; an unknown name is nothing.
@Suite struct TransitionNameTests {
    @Test func slideAloneSlidesLeft() {
        #expect(
            TransitionKind.crossfade.drawing == .crossfade && TransitionKind(rawValue: "fade")?.drawing == .crossfade)
        #expect(TransitionKind(rawValue: "slide")?.drawing == .xfade("slideleft"))
        #expect(TransitionKind(rawValue: "slide")?.xfade == "slideleft")
        #expect(TransitionKind(rawValue: "slide-left")?.xfade == "slideleft")
        #expect(TransitionKind(rawValue: "slid") == nil)
        #expect(TransitionKind.allCases.contains { $0.rawValue == "slide" })
    }
}
