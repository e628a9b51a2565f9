/// A picture's colour as its decoder reads it (the stream's own signalling, else the container's): primaries,
/// transfer, matrix and range by FFmpeg's names, nil where the file names none. Colour is a fact of a clip like its
/// codec: a reel that tags SDR pictures HLG, or the reverse, shows them in the wrong colour on every player.
public struct VideoColour: Codable, Sendable, Equatable, CustomStringConvertible {
    public var primaries: String?
    public var transfer: String?
    public var matrix: String?
    public var range: String?

    public init(primaries: String? = nil, transfer: String? = nil, matrix: String? = nil, range: String? = nil) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.range = range
    }

    /// PQ (HDR10, Dolby Vision's base) or HLG.
    public var isHDR: Bool { ["smpte2084", "arib-std-b67"].contains(transfer ?? "") }

    /// The transfers that are one curve (BT.709's, which BT.601 and BT.2020 at 10 and 12 bits restate) and the
    /// matrices that are one (BT.601's, as 525- and 625-line systems name it): a difference in name only.
    static let sameTransfer: [String: String] = [
        "smpte170m": "bt709", "bt2020-10": "bt709", "bt2020-12": "bt709", "bt470m": "bt709",
    ]
    static let sameMatrix: [String: String] = ["bt470bg": "smpte170m"]

    /// Whether a player shows the two otherwise: a field both name differently (up to the synonyms above), HDR beside
    /// SDR, or full range beside limited (a range not named is limited). A field one file leaves unnamed is taken
    /// as the other's: players guess it from the picture's size, as they would for the whole reel.
    public func differs(from other: VideoColour) -> Bool {
        func named(_ a: String?, _ b: String?, _ same: [String: String] = [:]) -> Bool {
            guard let a, let b else { return false }
            return (same[a] ?? a) != (same[b] ?? b)
        }
        return isHDR != other.isHDR || (range ?? "tv") != (other.range ?? "tv") || named(primaries, other.primaries)
            || named(transfer, other.transfer, Self.sameTransfer) || named(matrix, other.matrix, Self.sameMatrix)
    }

    /// "bt2020 / arib-std-b67 (HLG) / bt2020nc, limited range": primaries, transfer, matrix, range.
    public var description: String {
        let curve = transfer.map { $0 + ($0 == "arib-std-b67" ? " (HLG)" : $0 == "smpte2084" ? " (PQ)" : "") }
        let fields = [primaries, curve, matrix].map { $0 ?? "unnamed" }.joined(separator: " / ")
        return fields + ", " + (range == "pc" ? "full range" : "limited range")
    }
}
