import CFFmpeg
import LoopAnalysis
import LoopIndex

/// What a Matroska file carries beside its tracks: attached files (fonts, scripts), pictures and chapters. FFmpeg's
/// Matroska muxer writes an attachment from a stream of type attachment (the file's bytes as its extradata, its name
/// and MIME type as tags), so a copy keeps it. An attached picture (a cover) is shown by FFmpeg's demuxer as a
/// one-frame video stream, which its 5.1 muxer writes back as a video track, and chapters copied into its context
/// were not always written: both are left out, and the plan says so.
extension InputFile {
    /// The chapters the file lists.
    var chapterCount: Int { Int(context.pointee.nb_chapters) }

    /// The file's chapters as FFmpeg reads them (an MP4's chapter track or Nero list, Matroska's editions): where
    /// each starts and ends on the presentation clock, in seconds, and its title.
    func chapters() -> [(start: Rational, end: Rational, title: String)] {
        (0..<Int(context.pointee.nb_chapters)).compactMap { i in
            guard let chapter = context.pointee.chapters[i]?.pointee, chapter.time_base.den > 0 else { return nil }
            let tb = Rational(Int64(chapter.time_base.num), Int64(chapter.time_base.den))
            let title = av_dict_get(chapter.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) }
            return (Rational(chapter.start) * tb, Rational(chapter.end) * tb, title ?? "Chapter \(i + 1)")
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
        let what = "\(String(cString: avcodec_get_name(par.codec_id))) \(par.width)x\(par.height)"
        return "\(tag("comment") ?? "stream \(index)") (\(what))"
    }
}

extension OutputFile {
    /// The containers whose muxers write an attached picture back where the format keeps covers: MP3's ID3 APIC
    /// and FLAC's PICTURE block.
    static let keepsPictures: Set<String> = ["mp3", "flac"]

    /// Adds `input`'s attached picture `index` (a cover) as a picture stream; its one packet is written by
    /// `writePicture` once the header is.
    func addPicture(from input: InputFile, stream index: Int) throws -> Int {
        let source = input.stream(index)
        guard let st = avformat_new_stream(context, nil) else { throw MediaError("add stream", code: lp_error_enomem) }
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "add stream")
        st.pointee.codecpar.pointee.codec_tag = 0
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

    /// Adds `input`'s attached file `index` (see InputFile.attachmentStreams) as an attachment stream.
    func addAttachment(from input: InputFile, stream index: Int) throws {
        let source = input.stream(index)
        guard let st = avformat_new_stream(context, nil) else { throw MediaError("add stream", code: lp_error_enomem) }
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "add stream")
        av_dict_copy(&st.pointee.metadata, source.pointee.metadata, 0)
    }
}
