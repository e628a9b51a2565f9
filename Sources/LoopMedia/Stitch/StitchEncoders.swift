import LoopAnalysis
import LoopIndex

/// The clips' streams as encoders and the output are set up from them: each clip opened once for that role.
final class ClipSettings {
    let clips: [PreparedClip]
    /// --normalize --codec: the codec every frame is encoded in, where it is not the first clip's.
    let transcoding: String?
    private var inputs: [Int: InputFile] = [:]

    /// --normalize: every clip is encoded in the first clip's colour.
    let normalize: Bool

    init(_ clips: [PreparedClip], transcoding: String?, normalize: Bool = false) {
        self.clips = clips
        self.transcoding = transcoding
        self.normalize = normalize
    }

    /// Clip `c`'s file, for its streams' parameters.
    func input(_ c: Int) throws -> InputFile {
        if let open = inputs[c] { return open }
        let input = try InputFile.rawMedia(clips[c].path)
        inputs[c] = input
        return input
    }

    /// An encoder like clip `c`'s video (the first clip's pixel format), with parameter set id `id`, at
    /// `rateFactor` with x264's `preset` (RunQuality).
    func encoder(
        _ c: Int, id: Int, rateFactor: Int = RunQuality.finest, preset: String = RunQuality.preset(x264Subme: [])
    ) throws -> VideoEncoder {
        let own = try source(c)
        // --normalize: every picture is in the first clip's colour (RenderContext.encoder makes the same).
        let like = normalize ? own.inColour(of: try source(0)) : own
        return try VideoEncoder(
            like: like, parameterSetID: id, pixelFormat: clips[0].pixelFormat, codec: transcoding,
            rateFactor: rateFactor, preset: preset)
    }

    /// What an encoder like clip `c`'s video takes from it: its stream's parameters and its first picture's.
    func source(_ c: Int) throws -> EncoderSource {
        EncoderSource(try input(c), stream: clips[c].source.video.index, picture: clips[c].picture)
    }

    /// HEVC: the VPS, SPS and PPS an encoder like clip `c`'s writes (x265's depend only on its settings);
    /// asked once per clip.
    func hevcSets(_ c: Int) throws -> [[UInt8]] {
        if let known = hevcSets[c] { return known }
        let sets = try encoder(c, id: 0).hevcParameterSets
        hevcSets[c] = sets
        return sets
    }
    private var hevcSets: [Int: [[UInt8]]] = [:]
}

/// What one re-encoded run's encoder must write (H.264: checked against the plan's id) and how its samples
/// are made to fit the stream (HEVC: renumbered).
struct RunEncoding: Sendable {
    var id = 0
    var sps: [[UInt8]] = []
    var pps: [[UInt8]] = []
    var hevc: HEVCRenumbering?
}

/// The stitched stream's decoder configuration, as the render plan says: the first clip's, the sets other
/// clips add, and each run's own. x264's headers depend only on its settings and id, so a throwaway encoder
/// per H.264 run gives them before the header is written; the runs are then encoded straight into the muxer
/// and checked to carry the same ones.
struct StitchConfiguration {
    /// The avcC or hvcC to write (nil: none to share, or the encoder's own when transcoding).
    var extradata: [UInt8]?
    /// NAL length size of the copied samples (re-encoded ones are made like them).
    var lengthSize: Int?
    /// Per run (by index in the plan's runs).
    var runs: [Int: RunEncoding] = [:]

    init(_ plan: StitchRenderPlan, settings: ClipSettings) throws {
        let clips = settings.clips
        guard settings.transcoding == nil else { return }
        let added = plan.addedParameterSets
        if var avcc = clips[0].avcc {
            avcc.sps += added.filter { $0.kind == .sequence }.map(\.bytes)
            avcc.pps += added.filter { $0.kind == .picture }.map(\.bytes)
            for (index, run) in plan.runs.enumerated() {
                guard case .render(let render) = run, case .h264(let id) = render.sets else { continue }
                let preset = render.x264Preset(clips)
                let sets = try settings.encoder(render.leadClip, id: id, preset: preset).parameterSets
                runs[index] = RunEncoding(id: id, sps: sets.sps, pps: sets.pps)
                avcc.sps += sets.sps
                avcc.pps += sets.pps
            }
            extradata = avcc.bytes
            lengthSize = avcc.lengthSize
        } else if var hvcc = clips[0].hvcc {
            hvcc.append(added.map(\.bytes))
            var groups: [HEVCRenumbering] = []
            for (g, ids) in plan.hevcGroups.enumerated() {
                let renumbering = try HEVCRenumbering(
                    encoderSets: try settings.hevcSets(plan.hevcGroupClips[g]), ids: ids)
                hvcc.append(renumbering.units)
                groups.append(renumbering)
            }
            for (index, run) in plan.runs.enumerated() {
                guard case .render(let render) = run, case .hevc(let g) = render.sets else { continue }
                runs[index] = RunEncoding(hevc: groups[g])
            }
            extradata = hvcc.bytes
            lengthSize = hvcc.lengthSize
        }
    }
}

extension StitchRenderPlan.Render {
    /// x264's preset for this run, from the clips it draws on (RunQuality.preset).
    func x264Preset(_ clips: [PreparedClip]) -> String {
        RunQuality.preset(x264Subme: drawnClips.map { clips[$0].x264Subme })
    }
}
