import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Owns an audio encoder. Takes planar float samples in any amount; hands out packets of the encoder's frame
/// size (the last one shorter), in whatever sample format the encoder wants.
final class AudioEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    private let frame: Frame
    private var pending: [[Float]]
    /// Samples sent so far: the next frame's pts (the encoder's own delay shows as negative packet pts).
    private var sent: Int64 = 0

    public var frameSize: Int { context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : 1024 }
    public var channelCount: Int { Int(context.pointee.ch_layout.nb_channels) }
    /// The clock of the packets it gives (1 / sample rate).
    var timeBase: Rational { Rational(1, Int64(max(context.pointee.sample_rate, 1))) }
    /// Encoder delay in samples (AAC priming), signalled by the edit list.
    public var delay: Int64 { Int64(context.pointee.initial_padding) }

    /// What an encoder is told beyond its source's parameters.
    struct Settings {
        /// Another rate than the source's (the samples given are resampled to it).
        var sampleRate: Int? = nil
        /// Where the container does not say the source's (Matroska), what its packets came to.
        var bitRate: Int64? = nil
        /// The encoder's private options (libopus's frame_duration).
        var options: [String: String] = [:]
        /// The channels the stream's frames decode to, where its header says otherwise (the default layout for
        /// that count).
        var channels: Int? = nil
        /// The source is HE-AAC where its header does not say (frames of 2048 samples).
        var sbr = false
    }

    /// Encodes `codec` like the source stream `index` of `input`: same rate and channel layout; bit rate from
    /// the source when it says, else 64 kb/s a channel; `settings` where the output differs.
    init(like input: InputFile, stream index: Int, globalHeader: Bool, settings: Settings = .init()) throws {
        let (bitRate, options, channels, sbr) = (settings.bitRate, settings.options, settings.channels, settings.sbr)
        let par = input.stream(index).pointee.codecpar.pointee
        let rate = settings.sampleRate.map { Int32($0) } ?? par.sample_rate
        guard let codec = avcodec_find_encoder(par.codec_id) else {
            throw MediaError(
                "open encoder", reason: "no encoder for codec \(String(cString: avcodec_get_name(par.codec_id)))")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError("open encoder", code: lp_error_enomem) }
        context = ctx
        ctx.pointee.sample_rate = rate
        var layout = par.ch_layout
        if let channels, channels > 0, channels != Int(layout.nb_channels) {
            av_channel_layout_default(&ctx.pointee.ch_layout, Int32(channels))
        } else if layout.order == AV_CHANNEL_ORDER_UNSPEC {
            // MP4 often says only how many channels; encoders want a layout. The default for the count is
            // what the decoder assumes too.
            av_channel_layout_default(&ctx.pointee.ch_layout, layout.nb_channels)
        } else {
            try check(av_channel_layout_copy(&ctx.pointee.ch_layout, &layout), "open encoder")
        }
        // The source's sample size where the encoder takes it (a 16-bit ALAC track stays 16-bit, not 24).
        let bits = Self.sourceBits(input, stream: index)
        ctx.pointee.sample_fmt = Self.preferredFormat(codec, bits: Int(bits))
        if bits > 16, [AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P].contains(ctx.pointee.sample_fmt) {
            ctx.pointee.bits_per_raw_sample = bits
        }
        ctx.pointee.time_base = AVRational(num: 1, den: rate)
        ctx.pointee.bit_rate =
            par.bit_rate > 0 ? par.bit_rate : bitRate ?? 64_000 * Int64(max(layout.nb_channels, 1))
        // HE-AAC (SBR: it plays at twice its core's rate, or its header names its profile) is written as AAC-LC,
        // which needs about twice the bits for the same sound.
        let played = Int64(max(ctx.pointee.ch_layout.nb_channels, 1))
        if par.codec_id == AV_CODEC_ID_AAC,
            sbr || rate > par.sample_rate || [AV_PROFILE_AAC_HE, AV_PROFILE_AAC_HE_V2].contains(par.profile)
        {
            ctx.pointee.bit_rate = max(ctx.pointee.bit_rate, 64_000 * played)
        }
        ctx.pointee.thread_count = 1
        // Bit-exact: the same samples give the same bytes on every run.
        ctx.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dict, key, value, 0) }
        try check(avcodec_open2(ctx, codec, &dict), "open encoder")
        frame = try Frame()
        pending = Array(repeating: [], count: Int(ctx.pointee.ch_layout.nb_channels))
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    /// The bits of the source's samples: the demuxer's word, else the decoder's (an ALAC or FLAC header says them:
    /// a 24-bit ALAC in MOV whose sample entry says 16 stays 24-bit), else the sample entry's.
    static func sourceBits(_ input: InputFile, stream index: Int) -> Int32 {
        let par = input.stream(index).pointee.codecpar.pointee
        if par.bits_per_raw_sample > 0 { return par.bits_per_raw_sample }
        if [AV_CODEC_ID_ALAC, AV_CODEC_ID_FLAC].contains(par.codec_id),
            let decoder = try? Decoder(input, stream: index), decoder.rawBits > 0
        {
            return Int32(decoder.rawBits)
        }
        return par.bits_per_coded_sample
    }

    /// Planar float first (AAC); for a source of 16 bits or fewer (`bits`, 0 unknown) a 16-bit format, of more a
    /// 32-bit one; then what the encoder lists first.
    static func preferredFormat(_ codec: UnsafePointer<AVCodec>, bits: Int = 0) -> AVSampleFormat {
        guard let list = lp_codec_sample_formats(codec) else { return AV_SAMPLE_FMT_FLTP }
        var formats: [AVSampleFormat] = []
        while list[formats.count] != AV_SAMPLE_FMT_NONE { formats.append(list[formats.count]) }
        if formats.contains(AV_SAMPLE_FMT_FLTP) { return AV_SAMPLE_FMT_FLTP }
        let short = formats.first { [AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S16].contains($0) }
        if (1...16).contains(bits), let short { return short }
        // More than 16 bits (a 24-bit FLAC, whose encoder lists 16 first): a 32-bit format, told the bits.
        let long = formats.first { [AV_SAMPLE_FMT_S32P, AV_SAMPLE_FMT_S32].contains($0) }
        if bits > 16, let long { return long }
        return formats.first ?? AV_SAMPLE_FMT_FLTP
    }

    /// The encoder's global header (Opus's OpusHead, AAC's AudioSpecificConfig), nil where it writes none.
    var extradata: [UInt8]? {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }

    /// Copies the encoder's parameters (and extradata) onto an output stream.
    func configure(_ output: OutputFile, stream: Int) throws {
        let st = output.stream(stream)
        try check(avcodec_parameters_from_context(st.pointee.codecpar, context), "add stream")
        st.pointee.time_base = context.pointee.time_base
    }

    /// Queues samples (one array per channel, equal lengths) and emits every whole frame.
    func encode(_ samples: [[Float]], _ emit: (Packet) throws -> Void) throws {
        // A stream whose header names more channels than its frames decode to (an MP3 in MP4 says 2 for any MP3):
        // the channels the samples lack repeat their last, so every channel has every sample.
        guard let last = samples.last else { return }
        for c in pending.indices { pending[c].append(contentsOf: c < samples.count ? samples[c] : last) }
        while (pending.first?.count ?? 0) >= frameSize { try sendFrame(frameSize, emit) }
    }

    /// Sends what is left (a short last frame) and drains the encoder. An encoder with a delay that it does not
    /// flush (AC-3: 256 samples, no delayed frames to drain) is given that much silence after the last sample,
    /// or the content's last samples never come out; the edit list ends before the silence.
    func finish(_ emit: (Packet) throws -> Void) throws {
        let flushes = (context.pointee.codec?.pointee.capabilities ?? 0) & AV_CODEC_CAP_DELAY != 0
        if !flushes, delay > 0 {
            for c in pending.indices { pending[c].append(contentsOf: repeatElement(0, count: Int(delay))) }
            while (pending.first?.count ?? 0) >= frameSize { try sendFrame(frameSize, emit) }
        }
        if let left = pending.first?.count, left > 0 { try sendFrame(left, emit) }
        try drain(nil, emit)
    }

    private func sendFrame(_ count: Int, _ emit: (Packet) throws -> Void) throws {
        let f = frame.pointer
        av_frame_unref(f)
        f.pointee.nb_samples = Int32(count)
        f.pointee.format = context.pointee.sample_fmt.rawValue
        f.pointee.sample_rate = context.pointee.sample_rate
        try check(av_channel_layout_copy(&f.pointee.ch_layout, &context.pointee.ch_layout), "encode")
        try check(av_frame_get_buffer(f, 0), "encode")
        // (Every channel holds as many samples as the first; a shorter one would be a fault upstream: silence.)
        for c in pending.indices {
            let have = min(count, pending[c].count)
            for i in 0..<count { frame.setSample(i < have ? pending[c][i] : 0, channel: c, index: i) }
            pending[c].removeFirst(have)
        }
        f.pointee.pts = sent
        sent += Int64(count)
        try drain(frame, emit)
    }

    private func drain(_ frame: Frame?, _ emit: (Packet) throws -> Void) throws {
        try sendToEncoder(context, frame, emit)
    }
}

/// Sends a frame (nil flushes) to an encoder and hands every packet it gives back to `emit`. EAGAIN and EOF
/// end the loop; other errors are thrown.
func sendToEncoder(_ context: UnsafeMutablePointer<AVCodecContext>, _ frame: Frame?, _ emit: (Packet) throws -> Void)
    throws
{
    let r = avcodec_send_frame(context, frame?.pointer)
    if r < 0 && r != lp_error_eof { throw MediaError("encode", code: r) }
    let packet = try Packet()
    while true {
        let got = avcodec_receive_packet(context, packet.pointer)
        if got == lp_error_eagain || got == lp_error_eof { return }
        try check(got, "encode")
        try emit(packet)
        packet.unref()
    }
}

extension Frame {
    /// Writes one sample, converting from float to the frame's format (clipping for integer formats) on the scale
    /// FFmpeg's decoders and resampler use (2^15 for 16 bits, 2^31 for 32): a lossless track's samples come back as
    /// they were decoded. (At 32767 every 16-bit sample was scaled by 32767/32768, off by one step in two.)
    func setSample(_ value: Float, channel: Int, index: Int) {
        let format = AVSampleFormat(rawValue: pointer.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        guard let base = pointer.pointee.extended_data[planar ? channel : 0] else { return }
        let i = planar ? index : index * channelCount + channel
        let v = max(-1, min(1, value))
        switch av_get_packed_sample_fmt(format) {
        case AV_SAMPLE_FMT_U8: base[i] = UInt8(clamping: Int((v * 128).rounded()) + 128)
        case AV_SAMPLE_FMT_S16:
            base.withMemoryRebound(to: Int16.self, capacity: i + 1) {
                $0[i] = Int16(clamping: Int((v * 32768).rounded()))
            }
        case AV_SAMPLE_FMT_S32:
            base.withMemoryRebound(to: Int32.self, capacity: i + 1) {
                $0[i] = Int32(clamping: Int64((Double(v) * 2_147_483_648).rounded()))
            }
        case AV_SAMPLE_FMT_FLT: base.withMemoryRebound(to: Float.self, capacity: i + 1) { $0[i] = value }
        case AV_SAMPLE_FMT_DBL: base.withMemoryRebound(to: Double.self, capacity: i + 1) { $0[i] = Double(value) }
        default: break
        }
    }
}
