import LoopAnalysis

/// What a file carries beside its tracks, held in the output as the plan says (FixPlanner.carriedNote): the
/// attached files by name, the pictures by their bytes (an MP4's covr names none), the file's tags where the
/// output's muxer has a place for them (by name, in any case: Matroska's and Ogg's are upper case), the chapters
/// within the cut and the subtitle tracks it keeps, each as FFmpeg's demuxer reads input and output. An MP4's or
/// MOV's own are held by the kept metadata (KeptMetadataExpectation); this is every other input's, written by FFmpeg's
/// muxer.
enum CarriedCheck {
    /// The containers whose muxers are known to write every tag FFmpeg reads back, or (MP4, MOV) those listed.
    static let tagsChecked: Set<Container> = [.matroska, .webm, .mp4, .mov, .ogg, .flac, .mp3]

    /// The refusal of `output` (in `container`) written by `plan` from `source` (its facts `input`), in a
    /// sentence; nil where it holds what the plan keeps.
    static func refusal(
        _ plan: FixPlan, input: ClipFacts, source: String, output: String, container: Container
    ) throws -> String? {
        guard !input.isISO, plan.writer != .copy else { return nil }
        let before = try InputFile(path: source)
        let after = try InputFile(path: output)
        var lost: [String] = []
        if container.keepsAttachedFiles {
            let written = after.attachmentStreams().map(after.attachmentName)
            lost += before.attachmentStreams().map(before.attachmentName).filter { !written.contains($0) }
                .map { "the attached file \($0)" }
        }
        if container.keepsAttachedPictures {
            let written = after.attachmentStreams(pictures: true).map(after.pictureBytes)
            lost += before.attachmentStreams(pictures: true).filter { !written.contains(before.pictureBytes($0)) }
                .map { "the attached picture \(before.attachmentName($0))" }
        }
        if Self.tagsChecked.contains(container) {
            let written = Set(after.tagNames.map { $0.lowercased() })
            let missing = before.tagNames.filter {
                !Container.writtenAnew($0) && container.keepsTag($0) && !written.contains($0.lowercased())
            }
            if !missing.isEmpty {
                lost.append("the tag\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", "))")
            }
        }
        if container.keepsChapters {
            let planned = plan.chapters(before.chapters())
            let written = after.chapters()
            if written.count != planned.count || zip(planned, written).contains(where: { $0.title != $1.title }) {
                lost.append("\(planned.count) chapter\(planned.count == 1 ? "" : "s") (it has \(written.count))")
            }
        }
        // The subtitle tracks the plan keeps, each with its cues inside the cut.
        let subtitles = plan.others.filter { $0.kind == .subtitle }.count
        let writtenSubtitles = (0..<after.streamCount).filter { after.basics($0).kind == .subtitle }.count
        if writtenSubtitles < subtitles {
            lost.append("\(subtitles) subtitle track\(subtitles == 1 ? "" : "s") (it has \(writtenSubtitles))")
        }
        guard !lost.isEmpty else { return nil }
        return """
            the output lacks what the plan keeps: \(lost.joined(separator: ", ")); nothing was written: please \
            report the input
            """
    }
}
