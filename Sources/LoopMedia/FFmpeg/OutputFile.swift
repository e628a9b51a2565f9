import CFFmpeg
import Foundation
import LoopAnalysis
import LoopIndex

/// Owns a muxer (an AVFormatContext for writing) and the file it writes. Freed differently from an input,
/// hence its own type.
final class OutputFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    public let path: String
    private var ioOpen = false
    /// Per stream, what the muxer adds to each Opus block's time itself (libavformat after 5.1; see writeHeader).
    private var muxerShift: [Int32: Int64] = [:]

    /// `format`: FFmpeg's muxer.
    public init(path: String, format: Muxer) throws {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, nil, format.rawValue, path), "create output")
        guard let ctx else { throw MediaError("create output", reason: "FFmpeg returned no context") }
        context = ctx
        self.path = path
        if ctx.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try check(avio_open(&ctx.pointee.pb, path, AVIO_FLAG_WRITE), "open output")
            ioOpen = true
        }
        // Bit-exact: no encoder version strings or random ids, so two runs give the same bytes.
        ctx.pointee.flags |= AVFMT_FLAG_BITEXACT
    }

    /// Stream `index` of the muxer (an index below nb_streams: FFmpeg's array always holds its pointer).
    // swift-format-ignore: NeverForceUnwrap
    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    deinit {
        if ioOpen { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// Adds a stream that carries `input`'s stream `index` unchanged: codec parameters (color, tags, extradata),
    /// time base, metadata (language, handler), disposition and side data (display matrix).
    /// A stream's tag (Matroska SimpleTag, MP4 user data where the muxer keeps one).
    func setMetadata(_ key: String, _ value: String, stream: Int) {
        av_dict_set(&self.stream(stream).pointee.metadata, key, value, 0)
    }

    /// The time base a stream asks the muxer for (before the header is written).
    func setTimeBase(_ tb: Rational, stream: Int) {
        self.stream(stream).pointee.time_base = tb.avRational
    }

    /// The sample rate a stream's sample entry states (MP4: its media clock too).
    func setSampleRate(_ rate: Int, stream: Int) {
        self.stream(stream).pointee.codecpar.pointee.sample_rate = Int32(rate)
    }

    /// Whether FFmpeg's `format` muxer can hold `codec` (FFmpeg's codec name).
    public static func accepts(format: Muxer, codec: String) -> Bool {
        guard let muxer = av_guess_format(format.rawValue, nil, nil),
            let descriptor = avcodec_descriptor_get_by_name(codec)
        else { return false }
        return avformat_query_codec(muxer, descriptor.pointee.id, FF_COMPLIANCE_NORMAL) == 1
    }

    /// Whether `format`'s muxer takes `codec` as the file at `path` has it: its tag known (`accepts`) and its header
    /// written for that stream (FFmpeg's MOV muxer knows Opus's, VP9's and AV1's tags from MP4's list but refuses them
    /// at its header; FFmpeg 5.1's MP4 calls FLAC experimental there). The file is opened once, when first asked.
    static func takes(_ path: String) -> (_ format: Muxer, _ codec: String) -> Bool {
        final class Opened {
            let path: String
            lazy var input = try? InputFile(path: path)
            init(_ path: String) { self.path = path }
        }
        let opened = Opened(path)
        return { format, codec in
            guard accepts(format: format, codec: codec) else { return false }
            guard let input = opened.input,
                let index = (0..<input.streamCount).first(where: { input.basics($0).codec == codec })
            else { return true }
            return writesHeader(format: format, copying: input, stream: index)
        }
    }

    /// Whether FFmpeg's `format` muxer writes a header for `input`'s stream `index` (FFmpeg 5.1 knows FLAC's tag in
    /// an MP4 but refuses the header as experimental): a header written to a scratch file, then removed.
    static func writesHeader(format: Muxer, copying input: InputFile, stream index: Int) -> Bool {
        let scratch = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "loopprep-\(getpid())-\(UUID().uuidString).\(format.rawValue)")
        defer { unlink(scratch) }
        // No scratch file to try it in (a read-only temporary folder): not known here, the write will say.
        guard let file = try? OutputFile(path: scratch, format: format) else { return true }
        do {
            _ = try file.addStream(copying: input, stream: index, keepTag: false)
            try file.writeHeader(options: [:])
            return true
        } catch { return false }
    }

    public func addStream(copying input: InputFile, stream index: Int, keepTag: Bool) throws -> Int {
        let source = input.stream(index)
        guard let st = avformat_new_stream(context, nil) else { throw MediaError("add stream", code: lp_error_enomem) }
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "add stream")
        // A tag is kept where this muxer reads it as the same codec (MP4's 'mp4a' MP3 is MOV's '.mp3'; MOV's 'jpeg'
        // is no MP4 tag): the muxer picks its own otherwise, as ffmpeg's copy does.
        let tag = st.pointee.codecpar.pointee.codec_tag
        if !keepTag
            || av_codec_get_id(context.pointee.oformat.pointee.codec_tag, tag) != st.pointee.codecpar.pointee.codec_id
        {
            st.pointee.codecpar.pointee.codec_tag = 0
        }
        // Opus plays at 48 kHz whatever rate its source's header names (an encoder's input rate): the muxers turn
        // skip samples into their own units by the stream's rate (Matroska's DiscardPadding in ns), which a
        // copied 24000 would double.
        if source.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_OPUS {
            st.pointee.codecpar.pointee.sample_rate = Int32(Opus.rate)
        }
        // FFmpeg 5.1's Matroska muxer writes CodecDelay from initial_padding but does not add it to the block
        // timestamps, while its demuxer subtracts it. A copy starts with none; where Opus is cut, the remuxer sets
        // the new pre-skip (setInitialPadding) and places the blocks itself (OpusTrim), as for 5.1: write() takes
        // back what a later muxer adds.
        if isMatroska {
            st.pointee.codecpar.pointee.initial_padding = 0
        }
        st.pointee.time_base = source.pointee.time_base
        // The pixel aspect: MP4's pasp and Matroska's display size are the stream's, not its parameters' (a
        // file opened without reading frames has it there alone); the muxers write the parameters'.
        let par: UnsafeMutablePointer<AVCodecParameters> = st.pointee.codecpar
        if par.pointee.sample_aspect_ratio.num <= 0, source.pointee.sample_aspect_ratio.num > 0 {
            par.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        }
        st.pointee.sample_aspect_ratio = par.pointee.sample_aspect_ratio
        // The frame rate: Matroska writes it as DefaultDuration, so a copy still reads as 30 fps, not 1000/33.
        st.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        st.pointee.r_frame_rate = source.pointee.r_frame_rate
        st.pointee.disposition = source.pointee.disposition
        av_dict_copy(&st.pointee.metadata, source.pointee.metadata, 0)
        try check(lp_stream_copy_side_data(st, source), "add stream")
        return Int(st.pointee.index)
    }

    /// A stream's frame rate as it was copied (r_frame_rate), nil where none is set.
    func frameRate(_ stream: Int) -> Rational? {
        let r = self.stream(stream).pointee.r_frame_rate
        return r.num > 0 && r.den > 0 ? Rational(Int64(r.num), Int64(r.den)) : nil
    }

    /// The frame rate a muxer may write (Matroska's DefaultDuration), average and base alike.
    func setFrameRate(_ rate: Rational, stream: Int) {
        self.stream(stream).pointee.avg_frame_rate = rate.avRational
        self.stream(stream).pointee.r_frame_rate = rate.avRational
    }

    /// The stream's four-character code (MP4's sample entry: hvc1 for HEVC whose parameter sets are all in it).
    func setCodecTag(_ tag: String, stream: Int) {
        let b = Array(tag.utf8)
        guard b.count == 4 else { return }
        self.stream(stream).pointee.codecpar.pointee.codec_tag =
            UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    /// The pixel format a stream's frames decode to, where the copied parameters do not say it.
    /// The picture's aspect and chroma siting as its decoder read them, where the copied parameters leave them
    /// unsaid (the muxers write both: MP4's pasp, Matroska's display size and chroma siting).
    func describePicture(_ picture: PictureTags, stream: Int) {
        let st = self.stream(stream)
        let par: UnsafeMutablePointer<AVCodecParameters> = st.pointee.codecpar
        if par.pointee.sample_aspect_ratio.num <= 0, picture.sampleAspectRatio.num > 0 {
            par.pointee.sample_aspect_ratio = picture.sampleAspectRatio
            st.pointee.sample_aspect_ratio = picture.sampleAspectRatio
        }
        if par.pointee.chroma_location == AVCHROMA_LOC_UNSPECIFIED {
            par.pointee.chroma_location = picture.chromaLocation
        }
    }

    func setPixelFormat(_ format: Int32, stream: Int) {
        let par: UnsafeMutablePointer<AVCodecParameters> = self.stream(stream).pointee.codecpar
        if par.pointee.format < 0 { par.pointee.format = format }
    }

    /// Decoded samples the player drops at the start (Matroska writes it as CodecDelay; see addStream).
    func setInitialPadding(_ samples: Int64, stream: Int) {
        self.stream(stream).pointee.codecpar.pointee.initial_padding = Int32(samples)
    }

    /// The container the muxer writes.
    var container: Container {
        Muxer(rawValue: String(cString: context.pointee.oformat.pointee.name))?.container ?? .other("")
    }
    /// A Matroska or WebM muxer.
    var isMatroska: Bool { container.isMatroska }
    /// An MP4 or MOV muxer (mp4, mov, ipod).
    var isISO: Bool { container.isISO }

    /// MP4/MOV want codec headers out of band (avcC, esds): encoders must be opened with GLOBAL_HEADER.
    var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// A stream's codec configuration bytes, as set so far.
    func extradata(_ stream: Int) -> [UInt8]? {
        let par = self.stream(stream).pointee.codecpar.pointee
        guard let data = par.extradata, par.extradata_size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(par.extradata_size)))
    }

    /// Replaces a stream's codec configuration (e.g. an avcC holding a second SPS/PPS pair).
    func setExtradata(_ bytes: [UInt8], stream: Int) throws {
        let par: UnsafeMutablePointer<AVCodecParameters> = self.stream(stream).pointee.codecpar
        av_freep(&par.pointee.extradata)
        guard
            let buffer = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(
                to: UInt8.self)
        else {
            throw MediaError("add stream", code: lp_error_enomem)
        }
        buffer.update(from: bytes, count: bytes.count)
        par.pointee.extradata = buffer
        par.pointee.extradata_size = Int32(bytes.count)
    }

    /// Chapters, each [start, end) in ticks of `timeBase` with a title, in order (before the header).
    func setChapters(_ chapters: [(start: Int64, end: Int64, title: String)], timeBase: Rational) throws {
        guard !chapters.isEmpty else { return }
        guard
            let array = av_calloc(chapters.count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        else { throw MediaError("add chapters", code: lp_error_enomem) }
        // The context owns the array from here, and each chapter as it is counted in nb_chapters.
        context.pointee.chapters = array
        for (i, entry) in chapters.enumerated() {
            guard let chapter = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self) else {
                throw MediaError("add chapters", code: lp_error_enomem)
            }
            chapter.pointee.id = Int64(i + 1)
            chapter.pointee.time_base = timeBase.avRational
            chapter.pointee.start = entry.start
            chapter.pointee.end = entry.end
            av_dict_set(&chapter.pointee.metadata, "title", entry.title, 0)
            array[i] = chapter
            context.pointee.nb_chapters = UInt32(i + 1)
        }
    }

    public func copyMetadata(from input: InputFile) {
        av_dict_copy(&context.pointee.metadata, input.context.pointee.metadata, 0)
    }

    public func writeHeader(options: [String: String]) throws {
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dict, key, value, 0) }
        try check(avformat_write_header(context, &dict), "write header")
        // Callers place Opus blocks where FFmpeg 5.1's Matroska muxer writes them (times already counting the
        // codec delay); a later muxer adds the delay itself, so write() takes its amount back off first.
        if isMatroska {
            for i in 0..<Int(context.pointee.nb_streams) {
                let shift = lp_matroska_codec_delay_ticks(stream(i))
                if shift != 0 { muxerShift[Int32(i)] = shift }
            }
        }
    }

    /// Moves every later packet's decode time on `stream` earlier by `seconds` (whole ticks of the stream's clock,
    /// rounded up), after the header: presentation times stay.
    func leadDecodeTimes(stream: Int, by seconds: Rational) {
        decodeLead[Int32(stream)] = (seconds / timeBase(stream)).ceiling
    }
    private var decodeLead: [Int32: Int64] = [:]

    /// The stream's time base after the header (muxers may change it).
    func timeBase(_ stream: Int) -> Rational {
        let tb = self.stream(stream).pointee.time_base
        return Rational(Int64(tb.num), Int64(max(tb.den, 1)))
    }

    /// The one write call of every pipeline: the packet goes to `stream`, its times (pts, dts, duration, on the
    /// clock `timeBase`) rescaled to the stream's, and is interleaved. The payload is taken (the packet is empty
    /// afterwards).
    func write(_ packet: Packet, stream: Int, timeBase: Rational) throws {
        packet.streamIndex = stream
        // A copied packet's byte position means nothing in the new file.
        packet.pointer.pointee.pos = -1
        packet.rescale(from: timeBase, to: self.timeBase(stream))
        if let lead = decodeLead[Int32(stream)] { packet.dts = packet.dts.map { $0 - lead } }
        if let shift = muxerShift[Int32(stream)] {
            packet.pts = packet.pts.map { $0 - shift }
            packet.dts = packet.dts.map { $0 - shift }
        }
        try check(av_interleaved_write_frame(context, packet.pointer), "write packet")
    }

    /// An encoder's packet, written as `write` writes a copied one. Matroska: the encoder's delay (Opus's
    /// pre-skip) is the track's CodecDelay, which FFmpeg 5.1's muxer writes but does not add to the block times;
    /// the first block must sit at 0, its first presented sample after the pre-skip (a WebM's
    /// re-encoded Opus started a pre-skip early, 6.5 ms).
    func write(encoded packet: Packet, stream: Int, by encoder: AudioEncoder) throws {
        if isMatroska, encoder.delay > 0 {
            packet.pts = packet.pts.map { $0 + encoder.delay }
            packet.dts = packet.dts.map { $0 + encoder.delay }
        }
        try write(packet, stream: stream, timeBase: encoder.timeBase)
    }

    public func finish() throws {
        try check(av_write_trailer(context), "finish output")
        if ioOpen {
            avio_closep(&context.pointee.pb)
            ioOpen = false
        }
    }
}
