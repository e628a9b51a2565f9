import CFFmpeg
import LoopAnalysis
import LoopIndex

/// What a Matroska file carries beside its tracks: attached files (fonts, scripts), pictures and chapters. FFmpeg's
/// Matroska muxer writes an attachment from a stream of type attachment (the file's bytes as its extradata, its name
/// and MIME type as tags), so a copy keeps it. An attached picture (a cover) is shown by FFmpeg's demuxer as a
/// one-frame video stream, which its 5.1 muxer would write back as a video track: it is written as the attachment
/// it was (its bytes, name and MIME type), which the demuxer shows as a picture again.
extension InputFile {
    /// The chapters the file lists.
    var chapterCount: Int { Int(context.pointee.nb_chapters) }

    /// The file's chapters as FFmpeg reads them (an MP4's chapter track or Nero list, Matroska's editions): where
    /// each starts and ends on the presentation clock, in seconds, and its title. A chapter with no end (mkvmerge
    /// writes none; FFmpeg fills them in only while reading stream information) ends where the next starts, the
    /// last at the file's end (unbounded where the file states none: a cut ends it).
    func chapters() -> [(start: Rational, end: Rational, title: String)] {
        let read = (0..<Int(context.pointee.nb_chapters)).compactMap { i -> (Rational, Rational?, String)? in
            guard let chapter = context.pointee.chapters[i]?.pointee, chapter.time_base.den > 0,
                chapter.start != lp_nopts_value
            else { return nil }
            let tb = Rational(Int64(chapter.time_base.num), Int64(chapter.time_base.den))
            let title = av_dict_get(chapter.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) }
            let end = chapter.end != lp_nopts_value && chapter.end > chapter.start ? Rational(chapter.end) * tb : nil
            return (Rational(chapter.start) * tb, end, title ?? "Chapter \(i + 1)")
        }.sorted { $0.0 < $1.0 }
        let fileEnd = declaredDuration ?? Rational(Int64(Int32.max))
        return read.enumerated().map { i, c in
            (c.0, c.1 ?? (i + 1 < read.count ? read[i + 1].0 : Rational.max(fileEnd, c.0)), c.2)
        }
    }

    /// An attached picture's bytes (its one packet's), nil where it has none.
    func pictureBytes(_ index: Int) -> [UInt8]? {
        let picture = stream(index).pointee.attached_pic
        guard let data = picture.data, picture.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(picture.size)))
    }

    /// An attached picture's size from its bytes (PictureSize).
    func pictureSize(_ index: Int) -> (width: Int, height: Int)? { pictureBytes(index).flatMap(PictureSize.of) }

    /// The names of the file's own tags, in FFmpeg's words, in the order it lists them.
    var tagNames: [String] { tags().map(\.key) }

    /// The data streams beside a file's tracks (neither media nor attachments), each said as what it is: an Ogg's
    /// skeleton (a stream FFmpeg's Ogg demuxer reads no codec of), a DVD's navigation packets, another by its codec.
    func dataStreams() -> [(index: Int, name: String)] {
        (0..<streamCount).compactMap { i -> (index: Int, name: String)? in
            let par = stream(i).pointee.codecpar.pointee
            guard par.codec_type == AVMEDIA_TYPE_DATA || par.codec_type == AVMEDIA_TYPE_UNKNOWN else { return nil }
            if par.codec_id == AV_CODEC_ID_NONE, formatName == "ogg" { return (i, "the Ogg skeleton (stream \(i))") }
            if par.codec_id == AV_CODEC_ID_DVD_NAV { return (i, "the DVD navigation packets (stream \(i))") }
            return (i, "data stream \(i) (\(String(cString: avcodec_get_name(par.codec_id))))")
        }
    }

    /// The streams that are attached files; `pictures`: the attached pictures instead (a cover).
    func attachmentStreams(pictures: Bool = false) -> [Int] {
        (0..<streamCount).filter { i in
            let st = stream(i).pointee
            return pictures
                ? st.disposition & Int32(AV_DISPOSITION_ATTACHED_PIC) != 0
                : st.codecpar.pointee.codec_type == AVMEDIA_TYPE_ATTACHMENT
        }
    }

    /// A stream's file name tag (an attachment's), else what a picture is: its kind (ID3's and FLAC's picture type,
    /// as "Cover (front)"), codec and size.
    func attachmentName(_ index: Int) -> String {
        let st = stream(index).pointee
        func tag(_ key: String) -> String? {
            av_dict_get(st.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
        }
        if let file = tag("filename") { return file }
        let par = st.codecpar.pointee
        let size = par.width > 0 ? (width: Int(par.width), height: Int(par.height)) : pictureSize(index) ?? (0, 0)
        let what = "\(String(cString: avcodec_get_name(par.codec_id))) \(size.width)x\(size.height)"
        return "\(tag("comment") ?? "stream \(index)") (\(what))"
    }
}

extension OutputFile {
    /// The containers whose muxers write an attached picture back where the format keeps covers: MP3's ID3 APIC
    /// and FLAC's PICTURE block.
    static let keepsPictures: Set<Muxer> = [.mp3, .flac]

    /// Adds `input`'s attached picture `index` (a cover) as a picture stream; its one packet is written by
    /// `writePicture` once the header is.
    func addPicture(from input: InputFile, stream index: Int) throws -> Int {
        let source = input.stream(index)
        guard let st = avformat_new_stream(context, nil) else { throw MediaError("add stream", code: lp_error_enomem) }
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "add stream")
        st.pointee.codecpar.pointee.codec_tag = 0
        // A muxer wants the picture's size, which the demuxer leaves unread (an MP4's covr from Matroska's).
        if st.pointee.codecpar.pointee.width == 0, let size = input.pictureSize(index) {
            st.pointee.codecpar.pointee.width = Int32(size.width)
            st.pointee.codecpar.pointee.height = Int32(size.height)
        }
        st.pointee.disposition = source.pointee.disposition
        st.pointee.time_base = AVRational(num: 1, den: 90000)
        av_dict_copy(&st.pointee.metadata, source.pointee.metadata, 0)
        return Int(st.pointee.index)
    }

    /// The picture's bytes as the input's stream `index` holds them, written to `stream` (the muxer holds the
    /// sound back until every picture is written).
    func writePicture(from input: InputFile, stream index: Int, to stream: Int) throws {
        let picture = input.stream(index).pointee.attached_pic
        guard let data = picture.data, picture.size > 0 else {
            throw MediaError("write picture", reason: "the attached picture has no bytes")
        }
        let packet = try Packet(bytes: Array(UnsafeBufferPointer(start: data, count: Int(picture.size))))
        packet.pts = 0
        packet.dts = 0
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        try write(packet, stream: stream, timeBase: Rational(1, 90000))
    }

    /// Adds `input`'s attached file `index` (see InputFile.attachmentStreams) as an attachment stream; an attached
    /// picture as the attachment holding its bytes (named cover.png, cover.jpg where its file named none, as an
    /// MP3's or a FLAC's picture).
    func addAttachment(from input: InputFile, stream index: Int) throws {
        let source = input.stream(index)
        guard let st = avformat_new_stream(context, nil) else { throw MediaError("add stream", code: lp_error_enomem) }
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "add stream")
        av_dict_copy(&st.pointee.metadata, source.pointee.metadata, 0)
        guard source.pointee.disposition & Int32(AV_DISPOSITION_ATTACHED_PIC) != 0 else { return }
        guard let bytes = input.pictureBytes(index) else {
            throw MediaError("write picture", reason: "the attached picture has no bytes")
        }
        let par: UnsafeMutablePointer<AVCodecParameters> = st.pointee.codecpar
        par.pointee.codec_type = AVMEDIA_TYPE_ATTACHMENT
        par.pointee.width = 0
        par.pointee.height = 0
        try setExtradata(bytes, stream: Int(st.pointee.index))
        if av_dict_get(st.pointee.metadata, "filename", nil, 0) == nil {
            let id = par.pointee.codec_id
            let ext = id == AV_CODEC_ID_PNG ? "png" : id == AV_CODEC_ID_MJPEG ? "jpg" : "bin"
            av_dict_set(&st.pointee.metadata, "filename", "cover.\(ext)", 0)
        }
    }
}
