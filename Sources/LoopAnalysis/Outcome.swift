/// What a command did with one input (stitch: with its one output), in the same words in every command's report:
/// `files[].outcome` in fix and loop, `outcome` in stitch's, beside the plan it carried out (`files[].plan`, stitch's
/// `timeline`). analyze writes nothing and has none. Each case carries what it needs and nothing else: a refusal its
/// cause, an unreadable input no output.
public enum Outcome: Sendable, Equatable {
    /// A dry run: the plan, nothing written (the output it would write; none where none was named).
    case planned(output: String?)
    /// Written and checked.
    case written(output: String?)
    /// Already what the command would write: copied byte for byte (fix), or kept as it was.
    case unchanged(output: String?)
    /// Read, but not written: the plan refused it, or the written file failed its check (the refusal says which);
    /// the output that would have been.
    case refused(Refusal, output: String?)
    /// Not read (exit 2).
    case unreadable(Refusal)

    /// The case's name, as reports write it (`outcome.status`).
    public enum Status: String, Codable, Sendable {
        case planned, written, unchanged, refused, unreadable
    }

    public var status: Status {
        switch self {
        case .planned: .planned
        case .written: .written
        case .unchanged: .unchanged
        case .refused: .refused
        case .unreadable: .unreadable
        }
    }

    /// The file written, or to write (a dry run), or that would have been (a refusal after planning).
    public var output: String? {
        switch self {
        case .planned(let output), .written(let output), .unchanged(let output), .refused(_, let output): output
        case .unreadable: nil
        }
    }

    /// Why nothing was written: its cause and sentence (a refusal, an unreadable input).
    public var refusal: Refusal? {
        switch self {
        case .refused(let refusal, _), .unreadable(let refusal): refusal
        case .planned, .written, .unchanged: nil
        }
    }

    /// An input that was read, after its command's work: planned, written or unchanged, or refused.
    init(fix: FixOutcome) {
        switch fix.status {
        case .planned: self = .planned(output: fix.output)
        case .fixed: self = .written(output: fix.output)
        case .unchanged: self = .unchanged(output: fix.output)
        case .failed: self = .refused(fix.refusal ?? .worded(.unrecorded, ""), output: fix.output)
        }
    }

    /// Whether the command wrote nothing it was asked to (a refusal, an unreadable input).
    public var failed: Bool { refusal != nil }
}

extension Outcome: Codable {
    enum CodingKeys: String, CodingKey { case status, output, reason, cause }

    /// `{status, output, reason, cause}`: the status always, the rest where the case has it.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(output, forKey: .output)
        try c.encodeRefusal(refusal, words: encoder.refusalWords, reason: .reason, cause: .cause)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let output = try c.decodeIfPresent(String.self, forKey: .output)
        let refusal = try c.decodeRefusal(reason: .reason, cause: .cause) ?? .worded(.unrecorded, "")
        switch try c.decode(Status.self, forKey: .status) {
        case .planned: self = .planned(output: output)
        case .written: self = .written(output: output)
        case .unchanged: self = .unchanged(output: output)
        case .refused: self = .refused(refusal, output: output)
        case .unreadable: self = .unreadable(refusal)
        }
    }
}

extension KeyedEncodingContainer {
    /// A refusal as every report writes it: its words at `reason` (the front end's `words`, or the words a report
    /// read back kept), its cause at `cause`.
    mutating func encodeRefusal(_ refusal: Refusal?, words: Refusal.Words?, reason: Key, cause: Key) throws {
        guard let refusal else { return }
        // (A report read back keeps its words, in every front end's.)
        if let said = words?(refusal) ?? refusal.carriedWords, !said.isEmpty { try encode(said, forKey: reason) }
        try encode(refusal.cause, forKey: cause)
    }
}

extension KeyedDecodingContainer {
    /// A refusal as every report writes it, as its words: a reason without a cause (a report written before causes
    /// were recorded) is `unrecorded`, a cause without a reason (a report encoded without words) has none; nil
    /// without either.
    func decodeRefusal(reason: Key, cause: Key) throws -> Refusal? {
        let (sentence, cause) = (
            try decodeIfPresent(String.self, forKey: reason), try decodeIfPresent(Refusal.Cause.self, forKey: cause)
        )
        guard sentence != nil || cause != nil else { return nil }
        return .worded(cause ?? .unrecorded, sentence ?? "")
    }
}

extension FileReport {
    /// What the command did with this input, in every command's words; nil for analyze (it writes nothing).
    public var outcome: Outcome? {
        if let error { return .unreadable(.unreadable(error)) }
        return fix.map(Outcome.init(fix:))
    }
}
