/// Why a command wrote nothing for an input: one case for each way loopprep refuses, with the data that says it, so
/// a pipeline acts on the case (retry a write that stopped, pass over an output a resumed run finds, send a refused
/// file back to its maker) and a newcomer who adds a refusal is told by the compiler to name its cause here and its
/// words in the command line's RefusalWords. The library words none of it: a report carries its words where the
/// front end's encoder gives them (`wordsKey`). A rule's refusal (`plan`) and the loop search's (`noLoop`) carry the
/// rule's own sentence, as a rule's finding carries its message.
public enum Refusal: Error, Sendable, Equatable {
    /// What the plan cannot do exactly, in the words of the rule that refused it, and the lines it goes on to list
    /// (the differences between clips stitch cannot join).
    case plan(String, details: [String] = [])
    /// A saved plan (`loopprep apply`) no longer fits its inputs as they read; `command` plans it again.
    case stalePlan(StalePlan, command: String)
    /// loop found no repeat to cut at between --min and --max, in the search's words.
    case noLoop(String)
    /// The output is there already; `differs`: a resumed run found one that is not what it writes.
    case outputExists(String, differs: Bool = false)
    /// The output would be written over the input.
    case outputIsInput(output: String, input: String, OverInput)
    /// Another input of the same run (or another file of this one) writes `file`: the first claimant, then this one.
    case outputClaimed(file: String, first: Claimant, second: Claimant)
    /// `apply`: the input is not what the plan read, or the plan cannot tell; `command` plans it again.
    case inputChanged(path: String?, InputChange, command: String)
    /// Writing stopped: what stopped it, in loopprep's words (the written part removed).
    case write(String)
    /// The written file failed its independent check: what differs (not kept).
    case check(String)
    /// The web player (`--web-player`) the output cannot have, or could not be packaged beside it.
    case webPlayer(WebPlayerNoGo)
    /// The input could not be read: why, in loopprep's words, and the other clips that could not be read.
    case unreadable(String, details: [String] = [])
    /// A loop blended with stitch's machinery (`loop --crossfade`) that stitch refused.
    indirect case crossfadedLoop(Refusal)
    /// A refusal known only by its words: read back from a report, or put in one line.
    case worded(Cause, String)

    /// The refusal's name in reports (`outcome.cause`), from a closed set a pipeline can act on.
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

    /// How an output would land on its input.
    public enum OverInput: Sendable, Equatable {
        /// Named so (an output path that is the input, or one of stitch's clips).
        case named
        /// fix converting to another container names the input itself (`hero.mov --to mov`).
        case converted(Container)
        /// fix writing beside its input without --in-place.
        case notInPlace
        /// A saved plan's output is its input.
        case planned
    }

    /// An input of a run and what of it a file would be (its output, its web player's page).
    public struct Claimant: Sendable, Equatable {
        public var input: String
        public var what: String
        public init(input: String, what: String) {
            self.input = input
            self.what = what
        }
    }

    /// How an input differs from what a saved plan read.
    public enum InputChange: Sendable, Equatable {
        /// Its size, modification time or bytes.
        case changed
        /// It is no longer there.
        case gone
        /// A URL: apply cannot tell it unchanged.
        case remote
        /// The plan does not say what it read (of this input; nil path: of its clips).
        case unrecorded
        /// A crossfaded loop's plan that does not say how its blend is made.
        case blendUnrecorded
    }

    /// How a saved plan no longer fits its clips as they read.
    public enum StalePlan: Sendable, Equatable {
        case clipCount(planned: Int, read: Int)
        /// The clip's reading cuts it otherwise than when it was planned (another loopprep's).
        case cutOtherwise(String)
        /// The render plan does not fit the clips' frames or joins: how.
        case misfit(String)
    }

    /// Why there is no web player beside the output.
    public enum WebPlayerNoGo: Sendable, Equatable {
        /// The output's container is not one browsers append (`remedy`: what the command does instead).
        case container(file: String, remedy: String)
        /// A track browsers do not take in the output's container (`takes`: the codecs they do).
        case codec(kind: TrackKind, index: Int, codec: String, container: Container, takes: String)
        /// The output is written and verified, but packaging its web player failed: why.
        case notPackaged(output: String, why: String)
    }

    public var cause: Cause {
        switch self {
        case .plan, .stalePlan: .plan
        case .noLoop: .noLoop
        case .outputExists: .outputExists
        case .outputIsInput: .outputIsInput
        case .outputClaimed: .outputClaimed
        case .inputChanged: .inputChanged
        case .write: .write
        case .check: .check
        case .webPlayer: .webPlayer
        case .unreadable: .unreadable
        case .crossfadedLoop(let inner): inner.cause
        case .worded(let cause, _): cause
        }
    }

    /// What the sentence goes on to list, a line each.
    public var details: [String] {
        switch self {
        case .plan(_, let details), .unreadable(_, let details): details
        default: []
        }
    }
}

extension Refusal {
    /// The refusal's words as a front end gives them (its sentence, naming the cause and the remedy).
    public typealias Words = @Sendable (Refusal) -> String

    /// The sentence a case carries as its data, not loopprep's to word: a rule's, the loop search's, what stopped a
    /// write or failed a check, why an input could not be read (in FFmpeg's terms put in loopprep's), a report's.
    /// nil for the refusals the front end words.
    public var carriedWords: String? {
        switch self {
        case .plan(let words, _), .noLoop(let words), .write(let words), .check(let words), .unreadable(let words, _),
            .worded(_, let words):
            words
        case .stalePlan, .outputExists, .outputIsInput, .outputClaimed, .inputChanged, .webPlayer, .crossfadedLoop:
            nil
        }
    }

    /// Where a report's encoder finds the front end's `Words` (`outcome.reason`, `fix.reason`); without them a
    /// report carries the words a case carries (`carriedWords`) and else the cause alone.
    // swift-format-ignore: NeverForceUnwrap
    // (A constant key: CodingUserInfoKey's initializer fails on no string.)
    public static let wordsKey = CodingUserInfoKey(rawValue: "loopprep.refusalWords")!
}

extension Encoder {
    /// The words this encoder gives refusals (the front end's), if any.
    var refusalWords: Refusal.Words? { userInfo[Refusal.wordsKey] as? Refusal.Words }
}
