import CFFmpeg
import LoopAnalysis
import LoopIndex

/// What an encoder like a source's video stream takes from it, read once from the open file: a value the render
/// workers share (no file or FFmpeg object is shared between threads).
struct EncoderSource: Sendable {
    /// The stream's parameters, their pointers (extradata, side data) not kept.
    var parameters: Parameters
    let timeBase: AVRational
    let frameRate: AVRational
    /// x265's HDR10 options from the stream's mastering display and light level (VideoEncoder.hdr10).
    let hdr10: [String]

    /// The fields of AVCodecParameters an encoder copies.
    struct Parameters: Sendable {
        var codecID: AVCodecID
        var profile: Int32
        var level: Int32
        var width: Int32
        var height: Int32
        /// Aspect, chroma siting and colour: the stream's parameters', then what its first picture says.
        var picture: PictureTags
    }

    /// `picture`: what the decoder read of the stream's first picture, for what its container leaves unsaid (a
    /// file opened without reading frames knows no chroma siting, and its colour may be the container's alone).
    init(_ input: InputFile, stream index: Int, picture: PictureTags? = nil) {
        let st = input.stream(index).pointee
        let par = st.codecpar.pointee
        parameters = Parameters(
            codecID: par.codec_id, profile: par.profile, level: par.level, width: par.width, height: par.height,
            picture: PictureTags(stream: st))
        timeBase = st.time_base
        frameRate = st.avg_frame_rate
        hdr10 = VideoEncoder.hdr10(st)
        // The profile and level the sample entry's configuration record says, where no frame was read for them:
        // the joins are coded within the stream's own (a Baseline reel takes no High-profile joins).
        // (FFmpeg's H.264 profiles are the profile_idc: Baseline with constraint_set1, Constrained Baseline, is what
        // x264's "baseline" writes.)
        if parameters.profile < 0, let profile = InputFile.profileFromExtradata(par) { parameters.profile = profile }
        if parameters.level <= 0, let level = InputFile.levelFromExtradata(par) { parameters.level = level }
        if let picture { parameters.picture.take(picture) }
    }

    private init(parameters: Parameters, timeBase: AVRational, frameRate: AVRational, hdr10: [String]) {
        self.parameters = parameters
        self.timeBase = timeBase
        self.frameRate = frameRate
        self.hdr10 = hdr10
    }

    /// This stream's, with `other`'s colour tags and HDR10 metadata (pictures converted to its colour).
    func inColour(of other: EncoderSource) -> EncoderSource {
        var p = parameters
        p.picture.colour(of: other.parameters.picture)
        return EncoderSource(parameters: p, timeBase: timeBase, frameRate: frameRate, hdr10: other.hdr10)
    }
}

/// Owns a video encoder set up to make frames that can sit in a source's track: same size, pixel format, colour,
/// profile and level. H.264 (libx264): no B-frames, its own SPS/PPS id so both parameter sets coexist in one
/// avcC. HEVC (libx265): its parameter sets have id 0, renumbered by the caller (HEVCRenumbering). VP8 and VP9
/// (libvpx): no parameter sets to share, and a keyframe starts every run, so the frames need only the same size
/// and profile.
final class VideoEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codecID: AVCodecID

    /// The codecs stitch and fix can re-encode frames of, to sit among copied ones.
    static let encoders = [
        "h264": "libx264", "hevc": "libx265", "vp9": "libvpx-vp9", "vp8": "libvpx", "av1": "libaom-av1",
    ]

    /// `codec`: another codec than the source's (stitch --normalize --codec); its profile and level are then
    /// the encoder's own for the pixel format. `rateFactor`: H.264's quality (RunQuality), which its parameter
    /// sets do not depend on (x264's stitchable); `preset`: x264's (RunQuality.preset).
    convenience init(
        like input: InputFile, stream index: Int, parameterSetID: Int, pixelFormat: Int32,
        codec override: String? = nil,
        rateFactor: Int = RunQuality.finest
    ) throws {
        try self.init(
            like: EncoderSource(input, stream: index), parameterSetID: parameterSetID, pixelFormat: pixelFormat,
            codec: override, rateFactor: rateFactor)
    }

    init(
        like st: EncoderSource, parameterSetID: Int, pixelFormat: Int32, codec override: String? = nil,
        rateFactor: Int = RunQuality.finest, preset: String = RunQuality.preset(x264Subme: [])
    ) throws {
        var par = st.parameters
        let source = String(cString: avcodec_get_name(par.codecID))
        let name = override ?? source
        if name != source {
            par.profile = AV_PROFILE_UNKNOWN
            par.level = AV_LEVEL_UNKNOWN
        }
        guard let encoderName = Self.encoders[name] else {
            throw MediaError(
                "open encoder",
                reason:
                    """
                    loopprep cannot re-encode \(name) frames to sit among copied ones yet (H.264, HEVC, VP8, VP9 \
                    and AV1 only)
                    """
            )
        }
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw MediaError("open encoder", reason: "FFmpeg has no \(encoderName)")
        }
        codecID = codec.pointee.id
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError("open encoder", code: lp_error_enomem) }
        context = ctx
        ctx.pointee.width = par.width
        ctx.pointee.height = par.height
        ctx.pointee.pix_fmt = AVPixelFormat(rawValue: pixelFormat)
        ctx.pointee.time_base = st.timeBase
        ctx.pointee.framerate = st.frameRate
        par.picture.describe(ctx)
        ctx.pointee.max_b_frames = 0
        ctx.pointee.gop_size = 100_000
        // One thread: x264's bits depend on its thread count, which must not follow the machine's cores (the
        // same clips give the same file everywhere); the cores go to runs encoded side by side (RenderAhead).
        ctx.pointee.thread_count = 1
        ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER | AV_CODEC_FLAG_BITEXACT
        if par.level > 0 { ctx.pointee.level = par.level }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if codecID == AV_CODEC_ID_HEVC {
            // x265: the source's profile (Main, Main 10) and colour, HDR10 mastering and light levels as SEI on
            // every keyframe; no B-frames, no weighted prediction (slice headers are rewritten for new ids),
            // no encoder-info SEI. Its parameter sets always have id 0: the caller renumbers them.
            ctx.pointee.thread_count = 1
            if let profile = [AV_PROFILE_HEVC_MAIN: "main", AV_PROFILE_HEVC_MAIN_10: "main10"][par.profile] {
                av_dict_set(&options, "profile", profile, 0)
            }
            av_dict_set(&options, "preset", "superfast", 0)
            av_dict_set(&options, "crf", "18", 0)
            var params = [
                "bframes=0", "scenecut=0", "weightp=0", "info=0", "repeat-headers=0", "aud=0", "log-level=error",
                "pools=2", "frame-threads=1",
            ]
            params += st.hdr10
            av_dict_set(&options, "x265-params", params.joined(separator: ":"), 0)
            try check(avcodec_open2(ctx, codec, &options), "open encoder")
            return
        }
        guard codecID == AV_CODEC_ID_H264 else {
            // libvpx: constant quality, one frame in, one out (no look-ahead or hidden alt-ref frames), the
            // source's profile (VP9's says the bit depth and chroma).
            if par.profile >= 0 { ctx.pointee.profile = par.profile }
            ctx.pointee.bit_rate = 0
            ctx.pointee.thread_count = 2
            av_dict_set(&options, "crf", "18", 0)
            // libaom (AV1) takes libvpx's options; its new sequence header comes with each run's keyframe.
            av_dict_set(
                &options, codecID == AV_CODEC_ID_AV1 ? "usage" : "deadline",
                codecID == AV_CODEC_ID_AV1 ? "good" : "good", 0)
            av_dict_set(&options, "cpu-used", codecID == AV_CODEC_ID_AV1 ? "8" : "4", 0)
            av_dict_set(&options, "lag-in-frames", "0", 0)
            av_dict_set(&options, "auto-alt-ref", "0", 0)
            try check(avcodec_open2(ctx, codec, &options), "open encoder")
            return
        }
        // Short runs between copied GOPs: a fast preset at a high quality keeps them transparent and quick.
        av_dict_set(&options, "preset", preset, 0)
        av_dict_set(&options, "crf", String(rateFactor), 0)
        if let profile = Self.profile(par.profile) { av_dict_set(&options, "profile", profile, 0) }
        // stitchable: the picture parameter set's initial quantizer is 26 whatever the rate factor, so the sets
        // are known before a run's quality is.
        av_dict_set(
            &options, "x264-params",
            "sps-id=\(parameterSetID):scenecut=0:bframes=0:repeat-headers=0:aud=0:stitchable=1", 0)
        try check(avcodec_open2(ctx, codec, &options), "open encoder")
    }

    /// x265's HDR10 options from a stream's mastering display and content light level (G, B, R, white point in
    /// 0.00002 units; luminance in 0.0001 cd/m2), as x265 writes them in SEI.
    static func hdr10(_ st: AVStream) -> [String] {
        var out: [String] = []
        var stream = st
        var size = 0
        if let data = lp_stream_side_data(&stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size),
            size >= MemoryLayout<AVMasteringDisplayMetadata>.size
        {
            let m = UnsafeRawPointer(data).load(as: AVMasteringDisplayMetadata.self)
            if m.has_primaries != 0 && m.has_luminance != 0 {
                func c(_ r: AVRational) -> Int { Int((Double(r.num) / Double(max(r.den, 1)) * 50000).rounded()) }
                func l(_ r: AVRational) -> Int { Int((Double(r.num) / Double(max(r.den, 1)) * 10000).rounded()) }
                let p = m.display_primaries
                out.append(
                    "master-display=G(\(c(p.1.0)),\(c(p.1.1)))B(\(c(p.2.0)),\(c(p.2.1)))R(\(c(p.0.0)),\(c(p.0.1)))"
                        + "WP(\(c(m.white_point.0)),\(c(m.white_point.1)))"
                        + "L(\(l(m.max_luminance)),\(l(m.min_luminance)))"
                )
            }
        }
        if let data = lp_stream_side_data(&stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size),
            size >= MemoryLayout<AVContentLightMetadata>.size
        {
            let l = UnsafeRawPointer(data).load(as: AVContentLightMetadata.self)
            out.append("max-cll=\(l.MaxCLL),\(l.MaxFALL)")
        }
        if !out.isEmpty { out.append("hdr10=1") }
        return out
    }

    /// HEVC: the encoder's VPS, SPS and PPS as it wrote them (Annex B extradata), ids 0.
    var hevcParameterSets: [[UInt8]] {
        guard codecID == AV_CODEC_ID_HEVC, let data = context.pointee.extradata, context.pointee.extradata_size > 0
        else { return [] }
        return annexBUnits(Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size))))
            .filter { (32...34).contains(HEVC.type($0)) }
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    static func profile(_ id: Int32) -> String? {
        switch id {
        case AV_PROFILE_H264_BASELINE, AV_PROFILE_H264_CONSTRAINED_BASELINE: "baseline"
        case AV_PROFILE_H264_MAIN: "main"
        case AV_PROFILE_H264_HIGH: "high"
        case AV_PROFILE_H264_HIGH_10: "high10"
        case AV_PROFILE_H264_HIGH_422: "high422"
        case AV_PROFILE_H264_HIGH_444_PREDICTIVE: "high444"
        default: nil
        }
    }

    /// The encoder's SPS and PPS (its extradata is Annex B; VP8 and VP9 have none).
    var parameterSets: (sps: [[UInt8]], pps: [[UInt8]]) {
        guard codecID == AV_CODEC_ID_H264, let data = context.pointee.extradata, context.pointee.extradata_size > 0
        else { return ([], []) }
        let units = annexBUnits(Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size))))
        return (units.filter { ($0.first ?? 0) & 0x1f == 7 }, units.filter { ($0.first ?? 0) & 0x1f == 8 })
    }

    /// The encoder's global header (its configuration record), nil where it writes none.
    var extradata: [UInt8]? {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }

    /// The output stream takes the encoder's parameters (a codec other than the source's).
    func configure(_ output: OutputFile, stream: Int) throws {
        let st = output.stream(stream)
        try check(avcodec_parameters_from_context(st.pointee.codecpar, context), "add stream")
        st.pointee.sample_aspect_ratio = context.pointee.sample_aspect_ratio
        // HEVC as hvc1 (parameter sets out of band), which Apple's players want; the muxer's default is hev1.
        let hvc1 =
            UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8 | UInt32(UInt8(ascii: "c")) << 16 | UInt32(
                UInt8(ascii: "1")) << 24
        st.pointee.codecpar.pointee.codec_tag = codecID == AV_CODEC_ID_HEVC && output.isISO ? hvc1 : 0
    }

    /// Sends a frame (nil flushes) and hands every packet to `emit`.
    func encode(_ frame: Frame?, _ emit: (Packet) throws -> Void) throws {
        try sendToEncoder(context, frame, emit)
    }
}
