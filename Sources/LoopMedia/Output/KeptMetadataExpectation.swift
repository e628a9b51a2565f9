import LoopAnalysis
import LoopIndex

/// What an MP4 or MOV output must keep of its input besides the timing: every `KeptMetadata` item of the input
/// (tags, XMP, header fields, handler names, languages, colour and HDR boxes) byte for byte, for each kept track in
/// the track written from it. Read from the output's own bytes, with none of the writers' code.
struct KeptMetadataExpectation {
    var items: [KeptMetadata.Item]
    /// Each kept input track's ID and the output's track written from it (tracks not listed were dropped by the
    /// plan, which says so); empty for a movie's metadata alone.
    var tracks: [Int: Int]
    /// The output's start timecode, where the input has a timecode track: the input's moved on by the frames cut
    /// before the start (both writers write it; the check reads the output's own sample).
    var timecode: String?

    /// fix's: the input's items and, by the writer the plan names, where each kept track went. nil where the
    /// input is no MP4 or MOV or the output a copy of it.
    static func fix(_ plan: FixPlan, facts: ClipFacts, iso: ISOFile?) -> KeptMetadataExpectation? {
        guard let iso, facts.isISO, !iso.moov.isEmpty else { return nil }
        let id = { (cut: TrackCut) in facts.tracks.first { $0.index == cut.index }?.trackID }
        var tracks: [Int: Int] = [:]
        switch plan.writer {
        case .copy, .remux: return nil
        case .index:
            for cut in plan.tracks + plan.others { if let id = id(cut) { tracks[id] = id } }
        case .remuxThenEdit:
            // FFmpeg's muxer numbers the tracks 1... in the plan's order.
            for (n, cut) in plan.tracks.enumerated() { if let id = id(cut) { tracks[id] = n + 1 } }
        }
        var expected = KeptMetadataExpectation(
            items: KeptMetadata.items(top: iso.otherBoxes, moov: iso.moov), tracks: tracks)
        expected.timecode = iso.startTimecode(facts, plan: plan)
        return expected
    }

    /// The refusal of the output at `path` when it lacks or changed an item, in a sentence; nil when all are kept.
    func refusal(output path: String, facts: ClipFacts) throws -> String? {
        guard let written = try KeptMetadata.items(of: try ISOFile.source(path)) else {
            return "the output has no movie box to hold the input's metadata"
        }
        if let timecode, facts.tracks.compactMap(\.timecode).first != timecode {
            let wrote = facts.tracks.compactMap(\.timecode).first.map { "starts at \($0)" } ?? "is missing"
            return """
                the output's timecode \(wrote), where the input's at the output's start is \(timecode); nothing was \
                written: please report the input
                """
        }
        let lost = KeptMetadata.differences(input: items, output: written, tracks: tracks)
        guard !lost.isEmpty else { return nil }
        let shown = lost.prefix(3).joined(separator: "; ") + (lost.count > 3 ? "; and \(lost.count - 3) more" : "")
        return """
            the output does not keep what the input says besides its timing (\(shown)); nothing was written: \
            please report the input
            """
    }
}
