import CFFmpeg
import LoopAnalysis
import LoopIndex

extension InputFile {
    /// Copies one stream's codec parameters into a plain value.
    func basics(_ index: Int) -> TrackBasics {
        let st = stream(index).pointee
        let par = st.codecpar.pointee
        // A cover picture (MP4 covr, Matroska attachment shown as a stream) is one still, not a video track.
        let attachedPicture = st.disposition & Int32(AV_DISPOSITION_ATTACHED_PIC) != 0
        let kind: TrackKind =
            switch par.codec_type {
            case AVMEDIA_TYPE_VIDEO: attachedPicture ? .attachment : .video
            case AVMEDIA_TYPE_AUDIO: .audio
            case AVMEDIA_TYPE_SUBTITLE: .subtitle
            case AVMEDIA_TYPE_DATA: .data
            case AVMEDIA_TYPE_ATTACHMENT: .attachment
            default: .unknown
            }
        let codec = String(cString: avcodec_get_name(par.codec_id))
        var profile: String?
        let profileID = par.profile != AV_PROFILE_UNKNOWN ? par.profile : Self.profileFromExtradata(par)
        if let profileID, let name = avcodec_profile_name(par.codec_id, profileID) { profile = String(cString: name) }
        // The stream's base rate (r_frame_rate: the rate every timestamp fits) before the average, which a
        // held or stretched frame pulls away from the nominal one (25 fps reads as 320000/12949).
        let rate = st.r_frame_rate.num > 0 && st.r_frame_rate.den > 0 ? st.r_frame_rate : st.avg_frame_rate
        var b = TrackBasics(index: index, trackID: Int(st.id), kind: kind, codec: codec, profile: profile)
        // The four-character code, where the container has one (MP4, MOV: the sample entry's name).
        if par.codec_tag != 0, readsISO {
            let t = par.codec_tag
            b.codecTag = String(
                decoding: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: t >> UInt32($0)) }, as: UTF8.self)
        }
        if kind == .video {
            b.width = Int(par.width)
            b.height = Int(par.height)
            b.rotation = rotation(index)
            if rate.num > 0 && rate.den > 0 { b.declaredFrameRate = Rational(Int64(rate.num), Int64(rate.den)) }
            if streamInfoRead { b.reorderDepth = Int(max(par.video_delay, 0)) }
            if par.codec_id == AV_CODEC_ID_H264 {
                b.beyondEntry = extradata(index).flatMap(AVCConfig.init)?.beyondRecord
            }
        }
        if kind == .audio { audio(par, into: &b) }
        if let tag = av_dict_get(st.metadata, Self.primingTag, nil, 0) {
            b.primingRemoved = Int64(String(cString: tag.pointee.value))
        }
        if let lang = av_dict_get(st.metadata, "language", nil, 0) {
            let value = String(cString: lang.pointee.value)
            if value != "und" { b.language = value }
        }
        return b
    }

    /// An audio stream's rate, channels and the delay its codec's header carries.
    private func audio(_ par: AVCodecParameters, into b: inout TrackBasics) {
        b.sampleRate = Int(par.sample_rate)
        b.channels = Int(par.ch_layout.nb_channels)
        if avcodec_find_encoder(par.codec_id) == nil { b.noEncoder = true }
        // The delay the codec's own header carries (Opus's pre-skip, or Matroska's CodecDelay for it). FFmpeg 9
        // also reports an MP4 AAC track's edit-list priming as initial_padding: that is the edit list's to say,
        // and read from it.
        guard par.codec_id == AV_CODEC_ID_OPUS else { return }
        // Opus decodes at 48 kHz whatever the rate its header or the container names (OpusHead's input rate,
        // Matroska's SamplingFrequency: what the encoder was fed, a note for a resampler): the track's clock is the
        // decoder's (RFC 7845 5.1).
        b.sampleRate = Int(Opus.rate)
        // An MP4's or MOV's is its dOps PreSkip: FFmpeg 9 reports the edit list's start as the padding there too (an
        // Opus cut kept 6144 samples of pre-roll, PreSkip 0, read as a pre-skip of 6144 said the wrong way round).
        b.codecDelay = par.initial_padding > 0 && !readsISO ? Int64(par.initial_padding) : Self.opusPreSkip(par)
    }

    /// Decoded samples the player drops at the start, as the container says them (Matroska's CodecDelay).
    func initialPadding(_ index: Int) -> Int64 { Int64(stream(index).pointee.codecpar.pointee.initial_padding) }

    /// Bytes per frame (all channels) of uncompressed PCM audio, or nil for any other codec.
    func pcmFrameBytes(_ index: Int) -> Int64? {
        let par = stream(index).pointee.codecpar.pointee
        guard par.codec_type == AVMEDIA_TYPE_AUDIO, String(cString: avcodec_get_name(par.codec_id)).hasPrefix("pcm_")
        else { return nil }
        let bits = Int64(av_get_bits_per_sample(par.codec_id))
        let channels = Int64(par.ch_layout.nb_channels)
        let bytes = par.block_align > 0 ? Int64(par.block_align) : bits * channels / 8
        return bytes > 0 ? bytes : nil
    }

    /// The Matroska tag fix writes on an AAC track whose priming it dropped with its packets.
    static let primingTag = "LOOPPREP_PRIMING"

    /// Clockwise degrees from the display matrix (FFmpeg reports counter-clockwise).
    private func rotation(_ index: Int) -> Int? {
        var size: Int = 0
        guard let data = lp_stream_side_data(stream(index), AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
            return nil
        }
        let ccw = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard ccw.isFinite else { return nil }
        let cw = (Int((-ccw).rounded()) % 360 + 360) % 360
        return cw
    }

    /// MP4 demuxing does not fill `profile`; the codec configuration record has it (avcC byte 1 is H.264's
    /// profile_idc, hvcC's general_profile_idc is byte 1's low 5 bits, AAC's object type is the top 5 bits).
    static func profileFromExtradata(_ par: AVCodecParameters) -> Int32? {
        guard let data = par.extradata, par.extradata_size >= 2 else { return nil }
        switch par.codec_id {
        case AV_CODEC_ID_H264 where data[0] == 1: return Int32(data[1])
        case AV_CODEC_ID_HEVC where data[0] == 1: return Int32(data[1] & 0x1f)
        case AV_CODEC_ID_AAC: return Int32(data[0] >> 3) - 1
        default: return nil
        }
    }

    /// H.264's level_idc as its avcC says it (FFmpeg's level is the same number).
    static func levelFromExtradata(_ par: AVCodecParameters) -> Int32? {
        guard par.codec_id == AV_CODEC_ID_H264, let data = par.extradata, par.extradata_size >= 4, data[0] == 1 else {
            return nil
        }
        return Int32(data[3])
    }

    /// OpusHead: "OpusHead", version, channels, pre-skip (u16 little-endian).
    private static func opusPreSkip(_ par: AVCodecParameters) -> Int64? {
        guard let d = par.extradata, par.extradata_size >= 12 else { return nil }
        return Int64(d[10]) | Int64(d[11]) << 8
    }
}

extension Rational {
    /// FFmpeg's form of a time base (numerator and denominator fit 32 bits for every clock loopprep reads).
    /// An FFmpeg time base (a zero denominator read as 1).
    init(_ r: AVRational) { self.init(Int64(r.num), Int64(Swift.max(r.den, 1))) }

    var avRational: AVRational { AVRational(num: Int32(clamping: numerator), den: Int32(clamping: denominator)) }
}
