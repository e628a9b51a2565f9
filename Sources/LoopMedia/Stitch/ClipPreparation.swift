import CFFmpeg
import Foundation
import LoopAnalysis
import LoopIndex

/// A clip made ready for stitching: probed once, cut to its shortest track as fix would (StitchSource), with
/// what copying its frames beside other clips' needs (decoder configuration, pixel format) and the timelines
/// its packets are read on.
struct PreparedClip: Sendable {
    public let source: StitchSource
    public let facts: ClipFacts
    /// H.264's or HEVC's decoder configuration (avcC, hvcC), where the clip has one.
    let avcc: AVCConfig?
    let hvcc: HEVCConfig?
    /// What the decoder outputs (MP4 headers do not say without reading frames).
    let pixelFormat: Int32
    /// The pictures' colour as the decoder reads it.
    let colour: VideoColour
    /// The first picture's aspect, siting and colour as the decoder reads them (the encoders' and the output's).
    let picture: PictureTags
    /// The probe's timelines, for the packet reader's retiming (empty for MP4/MOV, whose packets have them).
    let timelines: [Int: TrackTimeline]
    /// x264's subme setting where x264 coded the clip (its settings text in the first frame): RunQuality.preset.
    var x264Subme: Int? = nil

    public var path: String { source.path }
    /// The clip's path and facts, as the plan's notes name it.
    var named: (path: String, facts: ClipFacts) { (path, facts) }

    /// The clip with only these audio tracks (indices into its audio tracks, in this order): the ones every
    /// clip of the stitch shares (SharedAudio).
    func keepingAudio(_ kept: [Int]) -> PreparedClip {
        var source = self.source
        source.audio = kept.compactMap { source.audio.indices.contains($0) ? source.audio[$0] : nil }
        var facts = self.facts
        let audio = facts.audioTracks
        let keptIndices = kept.compactMap { audio.indices.contains($0) ? audio[$0].index : nil }
        let others = facts.tracks.filter { $0.kind != .audio }
        facts.tracks = others + keptIndices.compactMap { i in facts.tracks.first { $0.index == i } }
        return PreparedClip(
            source: source, facts: facts, avcc: avcc, hvcc: hvcc, pixelFormat: pixelFormat, colour: colour,
            picture: picture, timelines: timelines, x264Subme: x264Subme)
    }
    /// MP4 or MOV (its codec tags mean something to the MP4 muxer).
    var isISO: Bool { facts.isISO }
    /// HEVC in an MP4/MOV sample entry tagged hev1 (parameter sets in band as well).
    var isHEV1: Bool { isISO && facts.mainVideo.map { $0.codec == "hevc" && $0.codecTag == "hev1" } == true }
    public var frameCount: Int { source.frameCount }

    /// The configuration's parameter sets as values (what the render plan merges and numbers).
    var parameterSets: [ParameterSet]? { avcc?.parameterSets ?? hvcc?.parameterSets }
}

extension Stitcher {
    /// `in`/`out`: seconds into the clip (after its cut to the shortest track), rounded to frames.
    static func prepare(
        _ path: String, in inPoint: Rational? = nil, out outPoint: Rational? = nil
    ) throws -> PreparedClip {
        let probe = try Probe.probe(path)
        let plan = try FixPlanner.plan(probe.facts, timelines: probe.timelines)
        guard let video = plan.tracks.first(where: { $0.kind == .video }), let timeline = probe.timelines[video.index]
        else {
            // A file read whole that stitch has no way to join: refused (exit 1), not unreadable.
            throw PlanError("it has no video track, and stitch joins video clips")
        }
        let source = try StitchSource.make(
            path: path, plan: plan, video: timeline, frameRate: probe.facts.mainVideo?.frameRate ?? Rational(30),
            in: inPoint, out: outPoint)
        guard let input = probe.input else {
            throw MediaError("stitch", reason: "the clip was probed without its input")
        }
        let extradata = input.extradata(video.index)
        let first = try firstFrame(input, stream: video.index)
        return PreparedClip(
            source: source, facts: probe.facts, avcc: video.codec == "h264" ? extradata.flatMap { AVCConfig($0) } : nil,
            hvcc: video.codec == "hevc" ? extradata.flatMap { HEVCConfig($0) } : nil, pixelFormat: first.format,
            colour: first.colour, picture: first.picture,
            timelines: PacketReader.timelines(probe.facts, probe.timelines),
            x264Subme: video.codec == "h264" ? first.packet.flatMap { X264Settings.subme(of: $0, extradata) } : nil)
    }

    /// A plan's refusal in the media layer's words (the operation named, as every MediaError does).
    static func planned<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PlanError { throw MediaError("stitch", reason: error.reason) }
    }

    /// Decodes up to the first frame of a stream to learn its pixel format and colour (MP4 headers do not say
    /// the one, and the stream's own signalling overrides the container's other), and keeps its first packet's
    /// bytes (where an encoder says what it is).
    static func firstFrame(
        _ input: InputFile, stream: Int
    ) throws -> (format: Int32, colour: VideoColour, picture: PictureTags, packet: [UInt8]?) {
        let decoder = try Decoder(input, stream: stream)
        let packet = try Packet()
        let frame = try Frame()
        var first: (Int32, VideoColour, PictureTags)?
        var firstPacket: [UInt8]?
        let take = { (f: Frame) in if first == nil { first = (f.pointer.pointee.format, f.colour, PictureTags(f)) } }
        while first == nil, try input.read(into: packet) {
            guard packet.streamIndex == stream else { continue }
            if firstPacket == nil { firstPacket = packet.withBytes { Array($0) } }
            try decoder.decode(packet, into: frame, take)
        }
        if first == nil { try decoder.decode(nil, into: frame, take) }
        guard let first else { throw MediaError("decode", reason: "no video frame decodes") }
        return (first.0, first.1, first.2, firstPacket)
    }

    /// How far `clip`'s pixels are turned clockwise (0, 90, 180, 270) to show as `first`'s are shown: the
    /// rotation of its display matrix less the first's.
    static func turn(_ clip: PreparedClip, to first: PreparedClip) -> Int {
        (((clip.facts.mainVideo?.rotation ?? 0) - (first.facts.mainVideo?.rotation ?? 0)) % 360 + 360) % 360
    }

    /// What --normalize cannot change: a first clip in a codec loopprep does not encode, a rotation other than a
    /// quarter turn (quarter turns are made: a phone's portrait clip beside a landscape one).
    static func normalizeDifferences(_ clips: [PreparedClip], codec: String?) -> [String] {
        var out: [String] = []
        if let codec = codec ?? clips.first?.facts.mainVideo?.codec, VideoEncoder.encoders[codec] == nil {
            out.append(
                """
                \(clips.first?.path ?? "?"): --normalize encodes like the first clip, and loopprep encodes \
                H.264, HEVC, VP8, VP9 and AV1; put one of those first
                """
            )
        }
        // A turned picture is made in the first clip's pixel format, which must be one that turns.
        if let first = clips.first, !PictureTurn.turns(first.pixelFormat),
            clips.contains(where: { Stitcher.turn($0, to: first) != 0 })
        {
            out.append(
                """
                \(first.path): --normalize turns the other clips' pictures in its pixel format, \
                \(PictureTurn.name(first.pixelFormat)), and loopprep turns 4:2:0 and 4:4:4 pictures only; put a \
                4:2:0 clip first
                """)
        }
        // Quarter turns are made (a phone's portrait clip beside a landscape one); another angle is not.
        for clip in clips where (clip.facts.mainVideo?.rotation ?? 0) % 90 != 0 {
            out.append(
                """
                \(clip.path): rotation \(clip.facts.mainVideo?.rotation ?? 0), which --normalize cannot turn to \
                (it turns by quarter turns)
                """)
        }
        return out
    }

    /// A frame rate that varies (a screen recording) cannot be joined frame for frame by copying: a line a clip
    /// (a clip named twice, once).
    static func variableRates(_ clips: [PreparedClip]) -> [String] {
        var seen = Set<String>()
        return clips.compactMap { clip in
            guard let steps = clip.source.variableSteps, seen.insert(clip.path).inserted else { return nil }
            let ms = { (ticks: Int64) in Figures.ms(Rational(ticks) * clip.source.timeBase) }
            return """
                \(clip.path): a variable frame rate (frames of \(ms(steps.shortest)) to \(ms(steps.longest))), \
                which stitch cannot copy frame for frame (--normalize shows its every frame at its own time)
                """
        }
    }

    /// How the clips differ in what stitching needs to be equal: one line per difference. With --normalize only
    /// a rotation other than a quarter turn and an encodable first clip matter.
    static func differences(_ clips: [PreparedClip], normalizing: Bool = false, codec: String? = nil) -> [String] {
        // Every audio track is stitched as its own stream, so the clips must agree on them, track for track; a
        // clip with no audio at all gets silence in the others' format (Stitcher says so).
        var extraAudio: [String] = []
        if let first = clips.first(where: { !$0.facts.audioTracks.isEmpty }) {
            let a0 = first.facts.audioTracks
            for clip in clips where clip.path != first.path && !clip.facts.audioTracks.isEmpty {
                let a = clip.facts.audioTracks
                guard a.count == a0.count else {
                    extraAudio.append(
                        """
                        \(clip.path): \(a.count) audio track\(a.count == 1 ? "" : "s"), where \(first.path) has \
                        \(a0.count)
                        """
                    )
                    continue
                }
                for (k, (x, y)) in zip(a0, a).enumerated() where x.language != y.language && a0.count > 1 {
                    extraAudio.append(
                        """
                        \(clip.path): audio track \(k + 1) is in \(y.language ?? "no language"), where \
                        \(first.path) has \(x.language ?? "none")
                        """
                    )
                }
            }
        }
        if normalizing { return extraAudio + normalizeDifferences(clips, codec: codec) }
        guard let first = clips.first, let v0 = first.facts.mainVideo else { return extraAudio }
        // Audio is compared with the first clip that has some (one without gets silence).
        let voiced = clips.first { !$0.facts.audioTracks.isEmpty } ?? first
        var out: [String] = extraAudio + variableRates(clips)
        for clip in clips.dropFirst() {
            guard let v = clip.facts.mainVideo else {
                out.append("\(clip.path) has no video")
                continue
            }
            func differ(_ what: String, _ a: String, _ b: String) {
                if a != b { out.append("\(clip.path): \(what) \(b), where \(first.path) has \(a)") }
            }
            differ("codec", v0.codec, v.codec)
            differ("size", "\(v0.width ?? 0)x\(v0.height ?? 0)", "\(v.width ?? 0)x\(v.height ?? 0)")
            differ(
                "pixel format", TransitionGraph.formatName(first.pixelFormat),
                TransitionGraph.formatName(clip.pixelFormat))
            differ("frame rate", v0.frameRate?.description ?? "?", v.frameRate?.description ?? "?")
            if clip.colour.differs(from: first.colour) {
                out.append(
                    """
                    \(clip.path): colour \(clip.colour), where \(first.path) has \(first.colour) (--normalize converts \
                    it to the first clip's\(ColourConverter.how(from: clip.colour, to: first.colour)))
                    """)
            }
            if (v0.rotation ?? 0) != (v.rotation ?? 0) {
                out.append(
                    """
                    \(clip.path): rotation \(v.rotation ?? 0), where \(first.path) has \(v0.rotation ?? 0) \
                    (--normalize turns it to show as the first clip does)
                    """)
            }
            for (k, (a0, a)) in zip(voiced.facts.audioTracks, clip.facts.audioTracks).enumerated() {
                let track = k == 0 ? "" : " (audio track \(k + 1))"
                differ("audio\(track)", a0.codec, a.codec)
                differ("sample rate\(track)", "\(a0.sampleRate ?? 0)", "\(a.sampleRate ?? 0)")
                differ("channels\(track)", "\(a0.channels ?? 0)", "\(a.channels ?? 0)")
            }
        }
        return out
    }
}
