import CFFmpeg
import Foundation
import LoopAnalysis
import LoopIndex

/// Owns a demuxer (an AVFormatContext opened for reading). Stream fields are copied out into plain values;
/// no pointer into the context leaves this type.
final class InputFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    public let path: String
    /// A remote or growing file's reader, kept as long as the demuxer reads through it.
    private var rangeIO: RangeIO?

    /// `options` are the demuxer's (e.g. `ignore_editlist` to see MP4 samples in raw media time).
    public init(path: String, options: [String: String] = [:]) throws {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dict, key, value, 0) }
        // A remote clip is read through loopprep's bounded range requests only (RangeIO): FFmpeg's own http
        // protocol would ask for the rest of the file at every seek. A file still being written (fix's output while
        // its media is copied) is read as its bytes arrive.
        var io: RangeIO?
        let source: (any ByteSource)? =
            RemoteFile.isRemote(path) ? try RemoteFile(path) : try GrowingFiles.source(path)
        if let source {
            let custom = try RangeIO(source)
            guard let allocated = avformat_alloc_context() else { throw MediaError("open", code: lp_error_enomem) }
            allocated.pointee.pb = custom.context
            allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            ctx = allocated
            io = custom
        }
        let opened = avformat_open_input(&ctx, path, nil, &dict)
        if opened < 0, let failure = io?.failure { throw failure }
        try check(opened, "open")
        guard let ctx else { throw MediaError("open", reason: "FFmpeg returned no context") }
        context = ctx
        self.path = path
        rangeIO = io
        // FLV and MPEG-PS declare streams only as packets arrive, and raw ADTS AAC says its sample rate only in
        // them: every opening of one must look, or a reopened file has no stream (or no rate) to write.
        if streamsComeWithPackets || streamCount == 0 || (0..<streamCount).contains(where: { !parametersComplete($0) })
            || StreamInfoFirst.required(path)
        {
            try findStreamInfo()
        }
    }

    deinit {
        // A custom AVIOContext is the caller's: rangeIO frees it after the demuxer is closed.
        var ctx: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&ctx)
    }

    /// FFmpeg's demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm".
    public var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    /// Read by FFmpeg's MP4/MOV demuxer (MP4, MOV, M4A, 3GP: one demuxer, `mov,mp4,m4a,3gp,3g2,mj2`).
    var readsISO: Bool { formatName.hasPrefix("mov,") }
    public var streamCount: Int { Int(context.pointee.nb_streams) }
    /// How sure FFmpeg was of the format (100: its header; 50: the file's extension; 25 or less: a guess from
    /// a few bytes, as random data sometimes passes for raw H.263).
    public var probeScore: Int { Int(context.pointee.probe_score) }
    /// The length the container itself declares (Matroska's Segment Duration), as the demuxer read it: nil where
    /// FFmpeg had to estimate one (from packets or the bit rate).
    var declaredDuration: Rational? {
        let d = context.pointee.duration
        // Before avformat_find_stream_info only the demuxer sets it (from the header); after, it says how it came.
        guard d != lp_nopts_value, d >= 0,
            !streamInfoRead || context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_STREAM
        else { return nil }
        return Rational(d, Int64(AV_TIME_BASE))
    }
    /// FLV and MPEG-PS (AVFMTCTX_NOHEADER) declare their streams only as packets arrive.
    var streamsComeWithPackets: Bool { context.pointee.ctx_flags & Int32(AVFMTCTX_NOHEADER) != 0 }

    /// Stream `index` (an index below nb_streams: FFmpeg's array always holds its pointer).
    // swift-format-ignore: NeverForceUnwrap
    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// An audio stream with a rate and channels, a video stream with a size and, for a codec whose configuration
    /// a muxer writes in its header (AV1, H.264, HEVC), that configuration: GStreamer's webmmux writes AV1 with no
    /// CodecPrivate, its sequence header only in the first packet, and FFmpeg's Matroska muxer will not copy such
    /// a stream until the packets have been looked at (any other kind needs nothing).
    private func parametersComplete(_ index: Int) -> Bool {
        // A cover (an attached picture) is not a track: its size is read from its bytes (PictureSize), and reading
        // stream information for it alone would change how every track's packets come (durations a parser made).
        if stream(index).pointee.disposition & Int32(AV_DISPOSITION_ATTACHED_PIC) != 0 { return true }
        let par = stream(index).pointee.codecpar.pointee
        switch par.codec_type {
        case AVMEDIA_TYPE_AUDIO: return par.sample_rate > 0 && par.ch_layout.nb_channels > 0
        case AVMEDIA_TYPE_VIDEO:
            let configured = [AV_CODEC_ID_AV1, AV_CODEC_ID_H264, AV_CODEC_ID_HEVC].contains(par.codec_id)
            return par.width > 0 && par.height > 0 && (!configured || par.extradata_size > 0)
        default: return true
        }
    }

    /// Reads codec parameters from the packets, for containers whose headers do not carry them all. Once: FFmpeg
    /// 5.1 crashes on a second call for some MPEG-PS files (found by the fuzzer).
    public func findStreamInfo() throws {
        guard !streamInfoRead else { return }
        streamInfoRead = true
        try check(avformat_find_stream_info(context, nil), "read stream info")
    }
    private(set) var streamInfoRead = false

    /// The next packet, or false at the end of the file. Errors other than EOF are thrown, never taken as EOF.
    public func read(into packet: Packet) throws -> Bool {
        packet.unref()
        let r = av_read_frame(context, packet.pointer)
        if r == lp_error_eof { return false }
        try check(r, "read packet")
        return true
    }

    /// Seeks so the next packets of `stream` start at the keyframe at or before `timestamp` (stream ticks).
    public func seek(stream: Int, to timestamp: Int64) throws {
        try check(av_seek_frame(context, Int32(stream), timestamp, AVSEEK_FLAG_BACKWARD), "seek")
    }

    /// The clock of a stream's packets and decoded frames (a track's timeline may be on a finer one).
    func timeBase(_ index: Int) -> Rational {
        let tb = stream(index).pointee.time_base
        return Rational(Int64(tb.num), Int64(max(tb.den, 1)))
    }

    /// The length the demuxer gives a stream, in its time base (an MP4 track's: its edit list's), if any.
    func streamDuration(_ index: Int) -> Int64? {
        let d = stream(index).pointee.duration
        return d != lp_nopts_value && d > 0 ? d : nil
    }

    /// One sample in the demuxer's own index (an MP4's sample table, after FFmpeg applied the edit list).
    struct IndexEntry: Sendable {
        /// Decode time, in the stream's time base.
        public var timestamp: Int64
        public var isKeyframe: Bool
        /// Outside the edit list: decoded for the frames after it, never shown.
        public var isDiscarded: Bool
    }

    /// The demuxer's index of a stream, read without touching a payload (empty where the format keeps none).
    func indexEntries(_ index: Int) -> [IndexEntry] {
        let st = stream(index)
        let count = Int(avformat_index_get_entries_count(st))
        var entries: [IndexEntry] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            guard let e = avformat_index_get_entry(st, Int32(i)) else { break }
            let flags = Int32(e.pointee.flags)
            entries.append(
                IndexEntry(
                    timestamp: e.pointee.timestamp, isKeyframe: flags & AVINDEX_KEYFRAME != 0,
                    isDiscarded: flags & AVINDEX_DISCARD_FRAME != 0))
        }
        return entries
    }

    /// A stream's codec configuration bytes (avcC, esds payload...).
    func extradata(_ index: Int) -> [UInt8]? {
        let par = stream(index).pointee.codecpar.pointee
        guard let data = par.extradata, par.extradata_size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(par.extradata_size)))
    }

    /// Every tag the demuxer gives the file (its format-level metadata), key and value.
    func tags() -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(context.pointee.metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
            out.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            entry = next
        }
        return out
    }

    public func metadata(_ key: String) -> String? {
        guard let entry = av_dict_get(context.pointee.metadata, key, nil, 0) else { return nil }
        return String(cString: entry.pointee.value)
    }
}

/// Files whose demuxer must read the streams' information before their packets: FFmpeg's Matroska demuxer moves
/// blocks that lie before 0 after 0 otherwise (ffprobe and ffmpeg always read it first). The importer that finds
/// such a file names it here, so every later reading of it (the seam, the copy, the second reading) gets the times
/// ffprobe gives. A file is known by its path and what stat says of it (device, inode, size, modification time): a
/// new file written at the same path is judged afresh.
enum StreamInfoFirst {
    private struct Identity: Hashable, Sendable {
        var path: String
        var device: Int
        var inode: Int
        var size: Int
        var modified: Double

        init?(_ path: String) {
            guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            self.path = path
            device = (a[.systemNumber] as? NSNumber)?.intValue ?? 0
            inode = (a[.systemFileNumber] as? NSNumber)?.intValue ?? 0
            size = (a[.size] as? NSNumber)?.intValue ?? 0
            modified = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        }
    }

    private static let files = Locked(Set<Identity>())

    static func require(_ path: String) {
        guard let id = Identity(path) else { return }
        files.withLock { _ = $0.insert(id) }
    }

    static func required(_ path: String) -> Bool {
        guard let id = Identity(path) else { return false }
        return files.withLock { $0.contains(id) }
    }
}
