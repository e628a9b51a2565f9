import LoopAnalysis
import LoopIndex

/// What a Matroska or WebM reel keeps of its first clip's metadata, planned before writing. The reel takes the
/// first clip's tags as FFmpeg reads them (title, date, a location: Matroska tags); the rest of what an MP4 or MOV
/// says besides its timing (XMP, a camera maker's boxes, the display matrix, binary user data) has no place there
/// and is named, never dropped without a word. An MP4 or MOV reel keeps it all (MetadataGraft).
struct ReelMetadata: Equatable, Sendable {
    /// The first clip's text tags the reel carries, as values FFmpeg reads from the clip.
    var carried: [String]
    /// The places of the first clip's items the reel has no place for.
    var dropped: [String]

    /// nil where nothing is left out: an MP4 or MOV reel, or a first clip that is not one.
    static func plan(_ first: PreparedClip, format: Muxer) throws -> ReelMetadata? {
        guard Container(muxer: format).isMatroska, first.isISO else { return nil }
        let file = try ISOFile.source(first.path)
        guard let items = try KeptMetadata.items(of: file) else { return nil }
        let tags = try InputFile(path: first.path).tags()
        var plan = ReelMetadata(carried: [], dropped: [])
        for item in items where item.track == nil && !Self.tagTable(item.place) {
            if let text = KeptMetadata.text(item), let key = tags.first(where: { $0.value == text })?.key {
                // The encoding tool's name is the writer's to give.
                if key != "encoder" { plan.carried.append(text) }
            } else if item.place.hasSuffix(" udta loci"), let location = tags.first(where: { $0.key == "location" }) {
                // 3GPP's location box, which FFmpeg reads as the location tag.
                plan.carried.append(location.value)
            } else if item.place == "movie: header (times, rate, volume, matrix)" {
                // Its times are the creation_time tag; a rate, volume and matrix other than the defaults say
                // something Matroska has no place for.
                let (timed, other) = Self.movieHeader(item.bytes)
                if timed, let time = tags.first(where: { $0.key == "creation_time" }) {
                    plan.carried.append(time.value)
                }
                if other || (timed && !tags.contains(where: { $0.key == "creation_time" })) {
                    plan.dropped.append(item.place)
                }
            } else {
                plan.dropped.append(item.place)
            }
        }
        return plan.dropped.isEmpty && plan.carried.isEmpty ? nil : plan
    }

    /// Whether a movie header item (KeptMetadata's: flags, 64-bit creation and modification times, then the rate,
    /// volume, reserved bytes, matrix and pre-defined words) has times, and a rate, volume or matrix other than
    /// ISO/IEC 14496-12's defaults (1.0, 1.0, identity).
    static func movieHeader(_ bytes: [UInt8]) -> (timed: Bool, other: Bool) {
        let timed = bytes.count >= 19 && bytes[3..<19].contains { $0 != 0 }
        let identity: [UInt32] = [0x1_0000, 0, 0, 0, 0x1_0000, 0, 0, 0, 0x4000_0000]
        let defaults: [UInt8] =
            [0, 1, 0, 0, 1, 0] + Array(repeating: 0, count: 10) + identity.flatMap(be32)
            + Array(repeating: 0, count: 24)
        return (timed, bytes.count < 19 || Array(bytes[19...]) != defaults)
    }

    /// The boxes that lay out a tag table (its handler, its `mdta` keys) rather than say something themselves.
    static func tagTable(_ place: String) -> Bool {
        place.hasSuffix(" meta hdlr") || place.hasSuffix(" meta keys")
    }

    /// The report's sentence, nil where nothing is dropped.
    func note(container format: Muxer) -> String? {
        guard !dropped.isEmpty else { return nil }
        let name = format == .webm ? "WebM" : "Matroska"
        return """
            the first clip's \(dropped.joined(separator: ", ")) \(dropped.count == 1 ? "has" : "have") no place in \
            a \(name) reel and \(dropped.count == 1 ? "is" : "are") left out\
            \(carried.isEmpty ? "" : " (its tags are kept)"): an .mp4 or .mov reel keeps \
            \(dropped.count == 1 ? "it" : "them")
            """
    }

    /// Why the written reel is refused: a tag the plan keeps that FFmpeg does not read from it.
    func refusal(reel path: String) throws -> OutputRefusal? {
        let read = Set(try InputFile(path: path).tags().map(\.value))
        let lost = carried.filter { !read.contains($0) }
        guard !lost.isEmpty else { return nil }
        let tags = lost.map { "\"\($0)\"" }.joined(separator: ", ")
        return OutputRefusal(.metadataLost, "the reel does not keep the first clip's tags (\(tags))")
    }
}
