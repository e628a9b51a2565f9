/// One H.264 or HEVC parameter set as a decoder configuration lists it (avcC, hvcC): its kind, its own id,
/// its bytes. The ids are read by the media layer (Codecs); what stitch decides with them is here.
public struct ParameterSet: Hashable, Sendable {
    public enum Kind: Int, Sendable, CaseIterable, Comparable {
        /// HEVC's video parameter set (H.264 has none).
        case video
        case sequence
        case picture

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }
    public var kind: Kind
    /// Its own id; nil where it could not be read (it then clashes with nothing).
    public var id: Int?
    public var bytes: [UInt8]

    public init(kind: Kind, id: Int?, bytes: [UInt8]) {
        self.kind = kind
        self.id = id
        self.bytes = bytes
    }
}

/// Which parameter sets the stitched stream carries: the first clip's, the others' where they fit beside them,
/// and each re-encoded run's own, with ids nothing else uses.
package enum ParameterSetPlan {
    /// Two configurations clash if an id of one kind means different bytes in each.
    public static func clash(_ a: [ParameterSet], _ b: [ParameterSet]) -> Bool {
        var mine: [ParameterSet.Kind: [Int: [UInt8]]] = [:]
        for set in a {
            guard let id = set.id, mine[set.kind]?[id] == nil else { continue }
            mine[set.kind, default: [:]][id] = set.bytes
        }
        return b.contains { set in set.id.flatMap { mine[set.kind]?[$0] }.map { $0 != set.bytes } ?? false }
    }

    /// The sets other clips add to the first clip's (in order, none twice), and the clips whose sets clash
    /// with those already there: they are re-encoded whole instead of copied. A clip without a configuration
    /// (parameter sets in the stream) adds nothing and clashes with nothing.
    public static func merge(_ clips: [[ParameterSet]?]) -> (added: [ParameterSet], clashing: Set<Int>) {
        guard var merged = clips.first ?? nil else { return ([], []) }
        var added: [ParameterSet] = []
        var clashing = Set<Int>()
        for (i, sets) in clips.enumerated().dropFirst() {
            guard let sets else { continue }
            if clash(merged, sets) {
                clashing.insert(i)
                continue
            }
            for kind in ParameterSet.Kind.allCases {
                for set in sets
                where set.kind == kind && !merged.contains(where: { $0.kind == kind && $0.bytes == set.bytes }) {
                    merged.append(set)
                    added.append(set)
                }
            }
        }
        return (added, clashing)
    }

    /// H.264: one id a run, for its SPS and PPS both (x264's sps-id sets both), from those no set uses.
    public static func h264IDs(runs: Int, taken: [ParameterSet]) throws -> [Int] {
        let used = Set(taken.compactMap(\.id))
        let free = (0...31).filter { !used.contains($0) }
        guard free.count >= runs else {
            throw PlanError("too many re-encoded runs: H.264 has no more parameter set ids")
        }
        return Array(free.prefix(runs))
    }

    /// HEVC: the encoder's VPS, SPS and PPS (x265 writes id 0) take the lowest ids their kind does not use yet
    /// (VPS and SPS below 16, PPS below 64).
    public static func hevcIDs(taken: [ParameterSet]) throws -> HEVCSetIDs {
        func free(_ kind: ParameterSet.Kind, below limit: Int) throws -> Int {
            let used = Set(taken.filter { $0.kind == kind }.compactMap(\.id))
            guard let id = (0..<limit).first(where: { !used.contains($0) }) else {
                throw PlanError("too many re-encoded runs: HEVC has no more parameter set ids")
            }
            return id
        }
        return HEVCSetIDs(
            video: try free(.video, below: 16), sequence: try free(.sequence, below: 16),
            picture: try free(.picture, below: 64))
    }
}

/// The ids one HEVC encoder's parameter sets are renumbered to.
public struct HEVCSetIDs: Hashable, Sendable, Codable {
    public var video: Int
    public var sequence: Int
    public var picture: Int
}
