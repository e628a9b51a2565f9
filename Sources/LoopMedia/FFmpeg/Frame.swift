import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Owns one AVFrame; the decoder refills it.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    public init() throws {
        guard let p = av_frame_alloc() else { throw MediaError("allocate frame", code: lp_error_enomem) }
        pointer = p
    }

    /// Takes ownership of an AVFrame (freed with this owner).
    init(adopting pointer: UnsafeMutablePointer<AVFrame>) { self.pointer = pointer }
    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
    }

    /// Presentation time in the stream's time base (best effort when the decoder reorders).
    public var pts: Int64? {
        let t = pointer.pointee.best_effort_timestamp
        if t != lp_nopts_value { return t }
        return pointer.pointee.pts == lp_nopts_value ? nil : pointer.pointee.pts
    }
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    /// Audio: the rate the decoder put out (HE-AAC's is twice its core rate).
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }

    /// FFmpeg's short name of each channel in order (FL, FR, FC, LFE...); "CH3" where the layout names none.
    public var channelNames: [String] {
        var layout = pointer.pointee.ch_layout
        return (0..<channelCount).map { c in
            let channel = av_channel_layout_channel_from_index(&layout, UInt32(c))
            var buffer = [CChar](repeating: 0, count: 32)
            guard channel.rawValue >= 0, layout.order != AV_CHANNEL_ORDER_UNSPEC,
                av_channel_name(&buffer, buffer.count, channel) > 0
            else { return "CH\(c + 1)" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// One audio sample as a float in [-1, 1], whatever the sample format.
    public func sample(channel: Int, index: Int) -> Float {
        let format = AVSampleFormat(rawValue: pointer.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        guard let base = pointer.pointee.extended_data[planar ? channel : 0] else { return 0 }
        let i = planar ? index : index * channelCount + channel
        switch av_get_packed_sample_fmt(format) {
        case AV_SAMPLE_FMT_U8: return (Float(base[i]) - 128) / 128
        case AV_SAMPLE_FMT_S16: return base.withMemoryRebound(to: Int16.self, capacity: i + 1) { Float($0[i]) / 32768 }
        case AV_SAMPLE_FMT_S32:
            return base.withMemoryRebound(to: Int32.self, capacity: i + 1) { Float($0[i]) / 2_147_483_648 }
        case AV_SAMPLE_FMT_S64:
            return base.withMemoryRebound(to: Int64.self, capacity: i + 1) {
                Float(Double($0[i]) / 9.223372036854775807e18)
            }
        case AV_SAMPLE_FMT_FLT: return base.withMemoryRebound(to: Float.self, capacity: i + 1) { $0[i] }
        case AV_SAMPLE_FMT_DBL: return base.withMemoryRebound(to: Double.self, capacity: i + 1) { Float($0[i]) }
        default: return 0
        }
    }

    func unref() { av_frame_unref(pointer) }

    /// A new reference to the same picture or samples (the buffers are shared, not copied).
    func clone() throws -> Frame {
        guard let copy = av_frame_clone(pointer) else { throw MediaError("allocate frame", code: lp_error_enomem) }
        return Frame(adopting: copy)
    }
}

extension Frame {
    /// The picture's colour, by FFmpeg's names (nil: unspecified).
    var colour: VideoColour {
        let f = pointer.pointee
        func name(_ c: UnsafePointer<CChar>?, unspecified: Bool) -> String? {
            unspecified ? nil : c.map { String(cString: $0) }
        }
        return VideoColour(
            primaries: name(
                av_color_primaries_name(f.color_primaries), unspecified: f.color_primaries == AVCOL_PRI_UNSPECIFIED),
            transfer: name(av_color_transfer_name(f.color_trc), unspecified: f.color_trc == AVCOL_TRC_UNSPECIFIED),
            matrix: name(av_color_space_name(f.colorspace), unspecified: f.colorspace == AVCOL_SPC_UNSPECIFIED),
            range: name(av_color_range_name(f.color_range), unspecified: f.color_range == AVCOL_RANGE_UNSPECIFIED))
    }
}

/// What a decoder read of one picture that its container may not say: aspect, chroma siting and colour.
struct PictureTags: Sendable {
    var sampleAspectRatio: AVRational
    var chromaLocation: AVChromaLocation
    var colorRange: AVColorRange
    var colorPrimaries: AVColorPrimaries
    var colorTransfer: AVColorTransferCharacteristic
    var colorSpace: AVColorSpace

    init(_ frame: Frame) {
        let f = frame.pointer.pointee
        sampleAspectRatio = f.sample_aspect_ratio
        chromaLocation = f.chroma_location
        colorRange = f.color_range
        colorPrimaries = f.color_primaries
        colorTransfer = f.color_trc
        colorSpace = f.colorspace
    }

    /// What a stream's parameters say (MP4's pasp and Matroska's display size are the stream's aspect, not its
    /// parameters': where these have none, the stream's).
    init(stream st: AVStream) {
        let par = st.codecpar.pointee
        sampleAspectRatio = par.sample_aspect_ratio.num > 0 ? par.sample_aspect_ratio : st.sample_aspect_ratio
        chromaLocation = par.chroma_location
        colorRange = par.color_range
        colorPrimaries = par.color_primaries
        colorTransfer = par.color_trc
        colorSpace = par.color_space
    }

    /// `picture`'s aspect, siting and colour where it knows them (a decoder's reading of the stream's own
    /// signalling, which a copied frame beside the encoded ones carries: a container's synonym, as smpte170m for the
    /// bitstream's bt470bg, would change what an encoder's bitstream says); the aspect only where this has none.
    mutating func take(_ picture: PictureTags) {
        let aspect = picture.sampleAspectRatio
        if sampleAspectRatio.num <= 0, aspect.num > 0 { sampleAspectRatio = aspect }
        if picture.chromaLocation != AVCHROMA_LOC_UNSPECIFIED { chromaLocation = picture.chromaLocation }
        if picture.colorRange != AVCOL_RANGE_UNSPECIFIED { colorRange = picture.colorRange }
        if picture.colorPrimaries != AVCOL_PRI_UNSPECIFIED { colorPrimaries = picture.colorPrimaries }
        if picture.colorTransfer != AVCOL_TRC_UNSPECIFIED { colorTransfer = picture.colorTransfer }
        if picture.colorSpace != AVCOL_SPC_UNSPECIFIED { colorSpace = picture.colorSpace }
    }

    /// `other`'s colour (range, primaries, transfer, matrix) in place of this one's.
    mutating func colour(of other: PictureTags) {
        (colorRange, colorPrimaries, colorTransfer, colorSpace) =
            (other.colorRange, other.colorPrimaries, other.colorTransfer, other.colorSpace)
    }

    /// An encoder's context told the picture's aspect, siting and colour.
    func describe(_ ctx: UnsafeMutablePointer<AVCodecContext>) {
        ctx.pointee.sample_aspect_ratio = sampleAspectRatio
        ctx.pointee.color_range = colorRange
        ctx.pointee.color_primaries = colorPrimaries
        ctx.pointee.color_trc = colorTransfer
        ctx.pointee.colorspace = colorSpace
        ctx.pointee.chroma_sample_location = chromaLocation
    }
}
