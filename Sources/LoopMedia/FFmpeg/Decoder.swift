import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Owns a decoder opened for one stream of an InputFile.
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    public let streamIndex: Int

    /// Pictures above 8K UHD with a margin (36 million pixels, 54 MB a 4:2:0 picture, hundreds of MB at 16K)
    /// are decoded on one thread: each frame thread holds pictures of its own, and a 16000x15000 picture decoded
    /// on three took 1.8 GB for three frames (a fuzzer's SPS made such a picture out of a 100 KB file).
    static let largestThreadedPicture = 36_000_000

    /// The thread count asked for, or 1 for a picture above `largestThreadedPicture`.
    static func threads(_ asked: Int, width: Int32, height: Int32) -> Int {
        Int64(width) * Int64(height) > Int64(largestThreadedPicture) ? 1 : asked
    }

    /// `fast`: for measurements on a thumbnail, skip in-loop filtering on pictures nothing refers to.
    /// `timingOnly`: pictures only counted and timed (the second reading), never looked at: in-loop filtering
    /// skipped on all of them (a third of a 1080p decode).
    /// `timeBase`: the clock of the packets it is given, when they were retimed (PacketRetimer) to a finer one
    /// than the stream's; frames come out on it.
    /// `quantizers`: the decoder exports each picture's quantizers (H.264), for `lp_frame_mean_qp`.
    public init(
        _ input: InputFile, stream index: Int, threads: Int = 1, fast: Bool = false, timingOnly: Bool = false,
        timeBase: Rational? = nil, quantizers: Bool = false
    ) throws {
        let stream = input.stream(index)
        guard let parameters = stream.pointee.codecpar else {
            throw MediaError("open decoder", reason: "the stream has no codec parameters")
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(
                "open decoder",
                reason: "no decoder for codec \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))",
                code: lp_error_decoder_not_found)
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError("open decoder", code: lp_error_enomem) }
        context = ctx
        streamIndex = index
        try check(avcodec_parameters_to_context(ctx, parameters), "open decoder")
        ctx.pointee.pkt_timebase = timeBase?.avRational ?? stream.pointee.time_base
        ctx.pointee.thread_count = Int32(
            Self.threads(threads, width: parameters.pointee.width, height: parameters.pointee.height))
        if quantizers { ctx.pointee.export_side_data |= Int32(AV_CODEC_EXPORT_DATA_VIDEO_ENC_PARAMS) }
        // Only on pictures nothing refers to: a reference decoded without its in-loop filter passes the error on
        // to every picture predicted from it, which grows over a GOP (over 250 frames, frames at different places
        // in their GOPs looked 4 luma levels apart where the footage repeats exactly).
        if fast {
            ctx.pointee.skip_loop_filter = AVDISCARD_NONREF
        }
        if timingOnly {
            ctx.pointee.skip_loop_filter = AVDISCARD_ALL
            ctx.pointee.flags2 |= AV_CODEC_FLAG2_FAST
        }
        try check(avcodec_open2(ctx, codec, nil), "open decoder")
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    /// Sends `packet` (nil flushes: the decoder's held-back frames are the clip's last, the loop seam) and hands
    /// every frame it gives back to `body`. Drains before returning, so EAGAIN on send cannot happen.
    /// An empty packet carries nothing to decode (VLC ends an Ogg Vorbis stream with one): it is not sent, as
    /// FFmpeg's decoders refuse it or take it for the end of the stream.
    public func decode(_ packet: Packet?, into frame: Frame, _ body: (Frame) throws -> Void) throws {
        if let packet, packet.size == 0 { return }
        let sent = avcodec_send_packet(context, packet?.pointer)
        if sent < 0 && sent != lp_error_eof { throw MediaError("decode", code: sent) }
        while true {
            let r = avcodec_receive_frame(context, frame.pointer)
            if r == lp_error_eagain || r == lp_error_eof { return }
            try check(r, "decode")
            defer { frame.unref() }
            try body(frame)
        }
    }

    /// Video: pictures nothing refers to are not decoded (no frame comes out for them) while this holds; the
    /// pictures others refer to decode exactly as before. Set between packets (frame threads take it up).
    public var skipsNonReference: Bool {
        get { context.pointee.skip_frame == AVDISCARD_NONREF }
        set { context.pointee.skip_frame = newValue ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }

    /// Bits a sample holds as the decoder reads the stream's configuration (a lossless codec's: FLAC's STREAMINFO,
    /// ALAC's cookie); 0 where it says none.
    public var rawBits: Int { Int(context.pointee.bits_per_raw_sample) }

    /// The profile the decoder found (AAC: HE-AAC or HE-AACv2 once it met SBR or parametric stereo).
    public var profileName: String? {
        avcodec_profile_name(context.pointee.codec_id, context.pointee.profile).map { String(cString: $0) }
    }

    /// Audio: how long before the first sample it is to put out a decoder started past a stream's beginning must
    /// be given packets, as a time (FFmpeg's `delay`: the samples a freshly opened decoder drops first, wherever
    /// it starts; FFmpeg 9.0's mov demuxer sets it from an audio edit list's leading skip). Zero for video.
    public var lead: Rational {
        let rate = Int64(context.pointee.sample_rate)
        guard context.pointee.codec_type == AVMEDIA_TYPE_AUDIO, rate > 0 else { return .zero }
        return Rational(Int64(max(context.pointee.delay, 0)), rate)
    }

    /// Forgets buffered frames after a seek.
    public func reset() { avcodec_flush_buffers(context) }
}
