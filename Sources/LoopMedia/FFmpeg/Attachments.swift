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
}
