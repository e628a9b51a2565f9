/// What a command did with one input (stitch: with its one output), in the same words in every command's report:
/// `files[].outcome` in fix and loop, `outcome` in stitch's, beside the plan it carried out (`files[].plan`, stitch's
/// `timeline`). analyze writes nothing and has none.
public struct Outcome: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// A dry run: the plan, nothing written.
        case planned
        /// Written and checked.
        case written
        /// Already what the command would write: copied byte for byte (fix), or kept as it was.
        case unchanged
        /// Read, but not written: the plan refused it, or the written file failed its check (`reason` says which).
        case refused
        /// Not read (exit 2): `reason` says why.
        case unreadable
    }

    public var status: Status
    /// The file written, or to write (a dry run), or that would have been (a refusal after planning).
    public var output: String?
    /// Why nothing was written, in loopprep's words (a refusal, an unreadable input).
    public var reason: String?

    public init(_ status: Status, output: String? = nil, reason: String? = nil) {
        self.status = status
        self.output = output
        self.reason = reason
    }

    /// An input that was read, after its command's work: planned, written or unchanged, or refused.
    init(fix: FixOutcome) {
        switch fix.status {
        case .planned: self.init(.planned, output: fix.output)
        case .fixed: self.init(.written, output: fix.output)
        case .unchanged: self.init(.unchanged, output: fix.output)
        case .failed: self.init(.refused, output: fix.output, reason: fix.reason)
        }
    }

    /// Whether the command wrote nothing it was asked to (a refusal, an unreadable input).
    public var failed: Bool { status == .refused || status == .unreadable }
}

extension FileReport {
    /// What the command did with this input, in every command's words; nil for analyze (it writes nothing).
    public var outcome: Outcome? {
        if let error { return Outcome(.unreadable, reason: error) }
        return fix.map(Outcome.init(fix:))
    }
}
