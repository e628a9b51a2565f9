/// A reel joins pictures and sound: a clip's other tracks (a GoPro's gpmd telemetry, an MP4's mp4s or text data, a
/// timecode, subtitles) have no place in it, and each is named, as an audio track not every clip has is.
public enum DataLeftOut {
    /// One line per clip (its path and facts; a clip given twice once) and track that is neither audio nor video.
    public static func notes(_ clips: [(path: String, facts: ClipFacts)]) -> [String] {
        var seen = Set<String>()
        return clips.filter { seen.insert($0.path).inserted }.flatMap { clip in
            clip.facts.tracks.filter { $0.kind != .video && $0.kind != .audio && $0.kind != .attachment }.map { t in
                let what = t.codecTag.map { $0.trimmingCharacters(in: .whitespaces) } ?? t.codec
                return """
                    \(clip.path): track \(t.index) (\(what) \(t.kind.rawValue)) left out: a reel joins pictures and \
                    sound
                    """
            }
        }
    }
}
