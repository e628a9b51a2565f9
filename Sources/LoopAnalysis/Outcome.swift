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

    /// Why nothing was written, in loopprep's words.
    public var reason: String? { refusal?.sentence }

    /// An input that was read, after its command's work: planned, written or unchanged, or refused.
    init(fix: FixOutcome) {
        switch fix.status {
        case .planned: self = .planned(output: fix.output)
        case .fixed: self = .written(output: fix.output)
        case .unchanged: self = .unchanged(output: fix.output)
        case .failed: self = .refused(fix.refusal ?? Refusal(.unrecorded, ""), output: fix.output)
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
        try c.encodeRefusal(refusal, reason: .reason, cause: .cause)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let output = try c.decodeIfPresent(String.self, forKey: .output)
        let refusal = try c.decodeRefusal(reason: .reason, cause: .cause) ?? Refusal(.unrecorded, "")
        switch try c.decode(Status.self, forKey: .status) {
        case .planned: self = .planned(output: output)
        case .written: self = .written(output: output)
        case .unchanged: self = .unchanged(output: output)
        case .refused: self = .refused(refusal, output: output)
        case .unreadable: self = .unreadable(refusal)
        }
    }
}

/// Why a command wrote nothing for an input: the cause, from a closed set a pipeline can act on (retry a write that
/// stopped, pass over an output a resumed run finds, send a refused file back to its maker), and the sentence that
/// says it, naming the cause and the remedy.
public struct Refusal: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Cause: String, Codable, Sendable, CaseIterable {
        /// The plan refused the input: what it needs is not something loopprep can do exactly (a rule's sentence).
        case plan
        /// loop found no repeat to cut at between --min and --max.
        case noLoop
        /// The output exists and differs from what this run writes (`--force` replaces it).
        case outputExists
        /// The output would be written over the input (or over one of stitch's clips).
        case outputIsInput
        /// Another input of the same run writes that output.
        case outputClaimed
        /// `apply`: the input is not what the plan read (or the plan cannot tell).
        case inputChanged
        /// Writing stopped: the disk, the folder, a muxer's or encoder's error (the written part removed).
        case write
        /// The written file failed its independent check (FFmpeg's reading, the plan's expectation): not kept.
        case check
        /// The web player beside the output could not be packaged (`--web-player`).
        case webPlayer
        /// The input could not be read (exit 2).
        case unreadable
        /// A report written before causes were recorded, read back.
        case unrecorded
    }

    public var cause: Cause
    public var sentence: String
    /// What the sentence goes on to list, a line each (the differences between clips stitch cannot join, each clip
    /// that could not be read after the first).
    public var details: [String]

    public init(_ cause: Cause, _ sentence: String, details: [String] = []) {
        self.cause = cause
        self.sentence = sentence
        self.details = details
    }

    /// The sentence and its details, a line each.
    public var lines: [String] { [sentence] + details }

    public var description: String { sentence }
}

extension KeyedEncodingContainer {
    /// A refusal as every report writes it: its sentence at `reason`, its cause at `cause`.
    mutating func encodeRefusal(_ refusal: Refusal?, reason: Key, cause: Key) throws {
        try encodeIfPresent(refusal?.sentence, forKey: reason)
        try encodeIfPresent(refusal?.cause, forKey: cause)
    }
}

extension KeyedDecodingContainer {
    /// A refusal as every report writes it; a reason without a cause (a report written before causes were recorded)
    /// is `unrecorded`; nil without a reason.
    func decodeRefusal(reason: Key, cause: Key) throws -> Refusal? {
        guard let sentence = try decodeIfPresent(String.self, forKey: reason) else { return nil }
        return Refusal(try decodeIfPresent(Refusal.Cause.self, forKey: cause) ?? .unrecorded, sentence)
    }
}

extension FileReport {
    /// What the command did with this input, in every command's words; nil for analyze (it writes nothing).
    public var outcome: Outcome? {
        if let error { return .unreadable(Refusal(.unreadable, error)) }
        return fix.map(Outcome.init(fix:))
    }
}
