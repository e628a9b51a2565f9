/// Which audio tracks a stitch joins when the clips do not all carry the same ones (a clip with English and
/// French joined to one with English only): the languages every clip has, in the first clip's order, each
/// clip's first track in that language; where no language is shared, each clip's first track. Every other
/// track is left out, and said.
package enum SharedAudio {
    public struct Choice: Equatable, Sendable {
        /// Per clip, the indices into its audio tracks to join, in lane order.
        public var kept: [[Int]]
        /// Per clip, the indices left out.
        public var left: [[Int]]
    }

    /// `languages[c]`: clip c's audio tracks' languages, in order (nil: none said). nil when the clips already
    /// agree track for track, or when some clip has no audio (nothing is shared).
    public static func choose(_ languages: [[String?]]) -> Choice? {
        guard let first = languages.first, languages.allSatisfy({ !$0.isEmpty }) else { return nil }
        let agree = languages.allSatisfy { $0.count == first.count && (first.count == 1 || $0 == first) }
        guard !agree else { return nil }
        func said(_ l: String?) -> String? { l.flatMap { $0 == "und" || $0.isEmpty ? nil : $0 } }
        var shared: [String] = []
        for l in first.compactMap(said) where !shared.contains(l) {
            if languages.allSatisfy({ $0.contains { said($0) == l } }) { shared.append(l) }
        }
        let kept =
            shared.isEmpty
            ? languages.map { _ in [0] }
            : languages.map { tracks in shared.compactMap { l in tracks.firstIndex { said($0) == l } } }
        let left = zip(languages, kept).map { tracks, keep in tracks.indices.filter { !keep.contains($0) } }
        return Choice(kept: kept, left: left)
    }
}
