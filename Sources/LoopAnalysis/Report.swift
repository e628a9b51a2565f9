import LoopRangeValues

/// What the report says about one input.
public struct FileReport: Codable, Sendable, Equatable {
    public var path: String
    public var facts: ClipFacts?
    public var findings: [Finding]
    /// Set when the file could not be read; then `findings` holds the `unreadable` finding.
    public var error: String?
    /// fix and loop: what was written of the file (loop: the loop), or planned, or why not.
    public var fix: FixOutcome?
    /// Rules not checked on this file by `.loopprep.json`'s `ignore` (sorted); nil: none.
    public var ignoredRules: [String]?
    /// What loopprep could not do on this file that is not a finding (a seam check it had to skip), in words.
    public var notes: [String]?
    /// analyze (and fix, for the input): the span a player loops the clip over as it is (LoopRanges); nil with
    /// `loopRangeReason` where none makes it loop (written as `null` then), nil alone where not measured.
    public var loopRange: LoopRange?
    public var loopRangeReason: String?
    /// loop: the candidates it ranked and the one it wrote (`fix` says what was written, as for fix).
    public var loop: LoopChoice?
    /// stitch (the reel's record): what the reel is made of (`fix` says what was written, as for fix).
    public var reel: ReelRecord?

    enum CodingKeys: String, CodingKey {
        case path, facts, findings, error, outcome, plan, fix, ignoredRules, notes, loopRange, loopRangeReason
        case candidates, chosen, blend, timeline
    }

    /// As every command's report gives a file: the outcome (derived, never read back) and the plan at the file's
    /// level, the plan no longer inside `fix` (a report written before, with it there, still reads); loop's choice on
    /// the file too, a crossfaded loop's plan its blend; a stitch's reel on the file, its plan stitch's.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encodeIfPresent(facts, forKey: .facts)
        try c.encode(findings, forKey: .findings)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(outcome, forKey: .outcome)
        if let reel {
            try reel.encode(to: encoder)
        } else if let blend = loop?.blend {
            // One object: the blend's timeline and, beside its keys, what stitch carries out.
            let plan = c.superEncoder(forKey: .plan)
            try blend.encode(to: plan)
            try loop?.blendPlan?.encode(to: plan)
        } else {
            try c.encodeIfPresent(fix?.plan, forKey: .plan)
        }
        try c.encodeIfPresent(fix, forKey: .fix)
        try c.encodeIfPresent(ignoredRules, forKey: .ignoredRules)
        try c.encodeIfPresent(notes, forKey: .notes)
        try c.encodeLoopRange(loopRange, reason: loopRangeReason, at: .loopRange, .loopRangeReason)
        if let loop {
            try c.encode(loop.candidates, forKey: .candidates)
            try c.encodeIfPresent(loop.chosen, forKey: .chosen)
            try c.encodeIfPresent(loop.blend, forKey: .blend)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decode(String.self, forKey: .path)
        facts = try c.decodeIfPresent(ClipFacts.self, forKey: .facts)
        findings = try c.decode([Finding].self, forKey: .findings)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        fix = try c.decodeIfPresent(FixOutcome.self, forKey: .fix)
        let blend = try c.decodeIfPresent(StitchTimeline.self, forKey: .blend)
        // A crossfaded loop's plan is its blend, a stitch's its reel's; neither is a fix plan.
        if c.contains(.timeline) {
            reel = try ReelRecord(from: decoder)
        } else if blend == nil, let plan = try c.decodeIfPresent(FixPlan.self, forKey: .plan) {
            fix?.plan = plan
        }
        ignoredRules = try c.decodeIfPresent([String].self, forKey: .ignoredRules)
        notes = try c.decodeIfPresent([String].self, forKey: .notes)
        loopRange = try c.decodeIfPresent(LoopRange.self, forKey: .loopRange)
        loopRangeReason = try c.decodeIfPresent(String.self, forKey: .loopRangeReason)
        if let candidates = try c.decodeIfPresent([LoopCandidate].self, forKey: .candidates) {
            var loop = LoopChoice()
            loop.candidates = candidates
            loop.chosen = try c.decodeIfPresent(Int.self, forKey: .chosen)
            loop.blend = blend
            if blend != nil { loop.blendPlan = try? c.decodeIfPresent(StitchPlanValue.self, forKey: .plan) }
            self.loop = loop
        }
    }

    public init(path: String, facts: ClipFacts?, findings: [Finding], error: String? = nil, fix: FixOutcome? = nil) {
        self.path = path
        self.facts = facts
        self.findings = findings
        self.error = error
        self.fix = fix
    }

    public var worst: Severity? { findings.map(\.severity).max() }

    /// A file that could not be read: the `unreadable` finding, with `reason` (one line, in loopprep's words) and
    /// the hint its cause calls for.
    public static func unreadable(path: String, reason: String) -> FileReport {
        FileReport(
            path: path, facts: nil,
            findings: [Finding(rule: .unreadable, severity: .error, message: reason, hint: unreadableHint(reason))],
            error: reason)
    }

    /// What to do about an unreadable file, by its cause: a missing or empty file, one cut short; none where the
    /// reason already says its remedy (after a semicolon: "...; download it and give the local file"); else the
    /// general check.
    static func unreadableHint(_ reason: String) -> String {
        if reason.hasSuffix("no such file") { return "check the path: no file has that name" }
        if reason.hasSuffix("empty file (0 bytes)") { return "copy, download or export the file again: it is empty" }
        if reason.contains("truncated") { return "the file is cut short: copy, download or export it again" }
        if reason.contains("; ") { return "" }
        return "check that the file is complete and is a video or audio file"
    }
}

public enum FailOn: String, Codable, Sendable, CaseIterable {
    case error, warning, never

    public func fails(_ severity: Severity) -> Bool {
        switch self {
        case .error: severity >= .error
        case .warning: severity >= .warning
        case .never: false
        }
    }
}

/// Exit codes, shared by every command.
public enum ExitStatus: Int32, Sendable {
    /// Nothing at or above --fail-on.
    case clean = 0
    /// Findings at or above --fail-on (fix: or a file could not be repaired).
    case findings = 1
    /// Some input could not be read.
    case unreadable = 2
    /// Usage error.
    case usage = 64
}

/// The versioned report every output format renders.
public struct Report: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 1
    /// loopprep's own version (--version prints it; every report carries it).
    public static let toolVersion = "0.1.0"

    public var schemaVersion: Int
    public var tool: String
    /// The loopprep version that wrote the report; absent in reports written before it was added.
    public var version: String?
    /// The FFmpeg libraries that read and wrote the files (set where the report is written).
    public var ffmpeg: String?
    public var command: String
    public var options: AnalysisOptions
    public var files: [FileReport]
    public var summary: Summary

    public struct Summary: Codable, Sendable, Equatable {
        public var files: Int
        public var unreadable: Int
        public var errors: Int
        public var warnings: Int
        public var infos: Int
        /// How many files each rule fired in.
        public var filesByRule: [String: Int]
        /// fix (not a dry run): outputs written and verified, or already there as written (nil elsewhere).
        public var written: Int?
        /// fix (not a dry run): files read but not written (a refusal, a failed check); nil elsewhere.
        public var notFixed: Int?
    }

    public init(command: String, options: AnalysisOptions, files: [FileReport]) {
        schemaVersion = Self.currentSchemaVersion
        tool = "loopprep"
        version = Self.toolVersion
        self.command = command
        self.options = options
        self.files = files.sorted { $0.path < $1.path }
        var tally = Tally()
        for file in files { tally.add(file) }
        summary = tally.summary
    }

    /// The summary and the exit status, counted file by file (a streamed report keeps no files).
    public struct Tally: Sendable {
        public private(set) var summary = Summary(
            files: 0, unreadable: 0, errors: 0, warnings: 0, infos: 0, filesByRule: [:])
        private var fixFailed = false
        private var severities = Set<Severity>()

        public init() {}

        public mutating func add(_ file: FileReport) {
            summary.files += 1
            if file.error != nil { summary.unreadable += 1 }
            if file.fix?.status == .failed { fixFailed = true }
            switch file.fix?.status {
            case .fixed, .unchanged: summary.written = (summary.written ?? 0) + 1
            case .failed where file.error == nil: summary.notFixed = (summary.notFixed ?? 0) + 1
            default: break
            }
            if file.fix.map({ $0.status != .planned }) ?? false {
                summary.written = summary.written ?? 0
                summary.notFixed = summary.notFixed ?? 0
            }
            // An unreadable file is counted once, as unreadable, not also as an error.
            for f in file.findings where f.ruleID != .unreadable {
                switch f.severity {
                case .error: summary.errors += 1
                case .warning: summary.warnings += 1
                case .info: summary.infos += 1
                }
                severities.insert(f.severity)
            }
            for rule in Set(file.findings.map(\.rule)) { summary.filesByRule[rule, default: 0] += 1 }
        }

        public func exitStatus(failOn: FailOn) -> ExitStatus {
            if summary.unreadable > 0 { return .unreadable }
            if fixFailed { return .findings }
            return severities.contains { failOn.fails($0) } ? .findings : .clean
        }
    }

    /// `--format ranges`: each clip is judged by its range, not by what the range cures. What
    /// the range leaves (`remains`) counts at its finding's severity (a seam the range itself makes, a warning); a
    /// clip with no range fails; an unreadable one is exit 2.
    public func rangeExitStatus(failOn: FailOn) -> ExitStatus {
        if summary.unreadable > 0 { return .unreadable }
        for file in files {
            guard let range = file.loopRange else { return .findings }
            for rule in range.remains {
                let severity = file.findings.first { $0.rule == rule }?.severity ?? .warning
                if failOn.fails(severity) { return .findings }
            }
        }
        return .clean
    }

    public func exitStatus(failOn: FailOn) -> ExitStatus {
        if summary.unreadable > 0 { return .unreadable }
        if files.contains(where: { $0.fix?.status == .failed }) { return .findings }
        return files.flatMap(\.findings).contains { failOn.fails($0.severity) } ? .findings : .clean
    }
}

public enum FixStatus: String, Codable, Sendable {
    /// Written and verified.
    case fixed
    /// Already what fix would write: copied byte for byte.
    case unchanged
    /// --dry-run: planned, nothing written.
    case planned
    /// Not written: the plan, the remux or the verification failed.
    case failed
}

/// The files `--web-player` wrote beside a loop-ready file, and its loop.
public struct WebPlayerOutput: Codable, Sendable, Equatable {
    public var page: String
    public var manifest: String
    public var media: [String]
    public var player: String
    public var loop: WebLoop
    /// What the page cannot do exactly, in words (Opus's restart at every wrap).
    public var notes: [String] = []

    public init(page: String, manifest: String, media: [String], player: String, loop: WebLoop) {
        self.page = page
        self.manifest = manifest
        self.media = media
        self.player = player
        self.loop = loop
    }
}

/// What a dry run read of its input: its size, modification time (seconds since 1970) and a digest (FNV-1a, 64 bits)
/// of its first and last mebibyte, where a probe reads the container's header and index. A plan carried out later is
/// refused where any of them differs.
public struct InputFingerprint: Codable, Sendable, Equatable {
    public var size: Int64
    public var modified: Double
    public var digest: String

    public init(size: Int64, modified: Double, digest: String) {
        self.size = size
        self.modified = modified
        self.digest = digest
    }
}

/// What `fix` (or `loop`) did to one file. The report's `facts` and `findings` describe the output when there is one
/// (`before` keeps the input's facts).
public struct FixOutcome: Codable, Sendable, Equatable {
    public var status: FixStatus
    public var output: String?
    /// `failed`: why, its cause and sentence.
    public var refusal: Refusal?
    public var plan: FixPlan?
    public var before: ClipFacts?
    /// `--web-player`: the page, manifest and media written beside the output.
    public var webPlayer: WebPlayerOutput?
    /// The output was already there, byte for byte what this run writes (a run resumed): kept, not written again.
    public var alreadyWritten: Bool?
    /// Beside a written output (whose range is the report's `loopRange`): the range a player would loop the input
    /// over as it is, without this rewrite, or why there is none.
    public var inputLoopRange: LoopRange?
    public var inputLoopRangeReason: String?
    /// A dry run's: what it read of the input, so the plan carried out later (`loopprep apply`) can tell it changed.
    public var input: InputFingerprint?
    /// A dry run's: the write packages a web player beside the output (`--web-player`), as `apply` does too.
    public var webPlayerPlanned: Bool?

    enum CodingKeys: String, CodingKey {
        case status, output, reason, cause, plan, before, webPlayer, alreadyWritten, inputLoopRange
        case inputLoopRangeReason, input, webPlayerPlanned
    }

    /// As synthesized, but for `plan`: its report's file carries it (`files[].plan`, where loop's is too).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(output, forKey: .output)
        try c.encodeRefusal(refusal, words: encoder.refusalWords, reason: .reason, cause: .cause)
        try c.encodeIfPresent(before, forKey: .before)
        try c.encodeIfPresent(webPlayer, forKey: .webPlayer)
        try c.encodeIfPresent(alreadyWritten, forKey: .alreadyWritten)
        try c.encodeIfPresent(inputLoopRange, forKey: .inputLoopRange)
        try c.encodeIfPresent(inputLoopRangeReason, forKey: .inputLoopRangeReason)
        try c.encodeIfPresent(input, forKey: .input)
        try c.encodeIfPresent(webPlayerPlanned, forKey: .webPlayerPlanned)
    }

    /// As encoded; a reason without a cause (a report written before causes were recorded) is `unrecorded`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decode(FixStatus.self, forKey: .status)
        output = try c.decodeIfPresent(String.self, forKey: .output)
        refusal = try c.decodeRefusal(reason: .reason, cause: .cause)
        plan = try c.decodeIfPresent(FixPlan.self, forKey: .plan)
        before = try c.decodeIfPresent(ClipFacts.self, forKey: .before)
        webPlayer = try c.decodeIfPresent(WebPlayerOutput.self, forKey: .webPlayer)
        alreadyWritten = try c.decodeIfPresent(Bool.self, forKey: .alreadyWritten)
        inputLoopRange = try c.decodeIfPresent(LoopRange.self, forKey: .inputLoopRange)
        inputLoopRangeReason = try c.decodeIfPresent(String.self, forKey: .inputLoopRangeReason)
        input = try c.decodeIfPresent(InputFingerprint.self, forKey: .input)
        webPlayerPlanned = try c.decodeIfPresent(Bool.self, forKey: .webPlayerPlanned)
    }

    public init(
        status: FixStatus, output: String? = nil, refusal: Refusal? = nil, plan: FixPlan? = nil,
        before: ClipFacts? = nil
    ) {
        self.status = status
        self.output = output
        self.refusal = refusal
        self.plan = plan
        self.before = before
    }
}

extension KeyedEncodingContainer {
    /// A loop range as analyze writes it, in every command's report: the range, or `null` beside the reason where
    /// none makes the clip loop; neither key where it was not measured.
    mutating func encodeLoopRange(_ range: LoopRange?, reason: String?, at rangeKey: Key, _ reasonKey: Key) throws {
        if let range {
            try encode(range, forKey: rangeKey)
        } else if reason != nil {
            try encodeNil(forKey: rangeKey)
        }
        try encodeIfPresent(reason, forKey: reasonKey)
    }
}
