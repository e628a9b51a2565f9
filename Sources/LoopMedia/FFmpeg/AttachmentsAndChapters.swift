import CFFmpeg
import LoopAnalysis
import LoopIndex

/// What a Matroska file carries beside its tracks: attached files (fonts, scripts) and chapters. FFmpeg's Matroska
/// muxer writes an attachment from a stream of type attachment (the file's bytes as its extradata, its name and MIME
/// type as tags) and chapters from the context's list, so a copy keeps both. An attached picture (a cover) is shown
/// by FFmpeg's demuxer as a one-frame video stream, which its 5.1 muxer writes back as a video track: it is left
/// out, and the plan says so.
extension InputFile {
    /// One chapter: its place in the file's list, and its span in seconds.
    struct Chapter {
        var index: Int
        var start: Rational
        var end: Rational
    }

    var chapters: [Chapter] {
        (0..<Int(context.pointee.nb_chapters)).compactMap { i in
            guard let c = context.pointee.chapters[i]?.pointee, c.time_base.den > 0 else { return nil }
            let tb = Rational(Int64(c.time_base.num), Int64(c.time_base.den))
            return Chapter(index: i, start: Rational(c.start) * tb, end: Rational(c.end) * tb)
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

    /// A stream's file name tag (an attachment's), else its index.
    func attachmentName(_ index: Int) -> String {
        av_dict_get(stream(index).pointee.metadata, "filename", nil, 0).map { String(cString: $0.pointee.value) }
            ?? "stream \(index)"
    }
}

extension OutputFile {
    /// Adds `input`'s attached file `index` (see InputFile.attachmentStreams) as an attachment stream.
    func addAttachment(from input: InputFile, stream index: Int) throws {
        let source = input.stream(index)
        guard let st = avformat_new_stream(context, nil) else { throw MediaError("add stream", code: lp_error_enomem) }
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "add stream")
        av_dict_copy(&st.pointee.metadata, source.pointee.metadata, 0)
    }

    /// Adds `input`'s chapter, placed at [start, end) seconds of the output (on a nanosecond clock, Matroska's).
    func addChapter(from input: InputFile, _ chapter: InputFile.Chapter, start: Rational, end: Rational) throws {
        let ns = Rational(1, 1_000_000_000)
        try check(
            lp_copy_chapter(
                context, input.context, UInt32(chapter.index), ns.avRational, (start / ns).rounded, (end / ns).rounded),
            "add chapter")
    }
}
