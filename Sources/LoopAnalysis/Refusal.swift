/// Why a command wrote nothing for an input: one case for each way loopprep refuses, with the data that says it, so
/// a pipeline acts on the case (retry a write that stopped, pass over an output a resumed run finds, send a refused
/// file back to its maker) and a newcomer who adds a refusal is told by the compiler to name its cause and its words.
/// Its `cause` (the closed set reports write) and its `sentence` (naming the cause and the remedy) are made here and
/// nowhere else. A rule's refusal (`plan`) and the loop search's (`noLoop`) carry their own sentence, as a rule's
/// finding carries its message.
public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
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

    /// The sentence and its details, a line each.
    public var lines: [String] { [sentence] + details }

    /// The same refusal as a report says it: its cause and sentence (one read back from a report, `worded`, equals
    /// the one written).
    public static func == (a: Refusal, b: Refusal) -> Bool { a.cause == b.cause && a.sentence == b.sentence }

    public var description: String { sentence }

    /// The refusal in loopprep's words, naming the cause and the remedy.
    public var sentence: String {
        switch self {
        case .plan(let words, _), .noLoop(let words), .unreadable(let words, _), .worded(_, let words): words
        case .write(let words), .check(let words): words
        case .stalePlan(let stale, let command): "\(stale.words): plan it again with \(command) --dry-run"
        case .outputExists(let output, differs: false):
            "\(output) exists: --force (or -y) replaces it (nothing written)"
        case .outputExists(let output, differs: true):
            "write output: \(output) exists and differs from what this run writes: --force (or -y) replaces it "
                + "(nothing written)"
        case .outputIsInput(let output, let input, let how): how.words(output: output, input: input)
        case .outputClaimed(let file, let first, let second): Self.clash(file, first, second)
        case .inputChanged(let path, let change, let command): change.words(path, command: command)
        case .webPlayer(let noGo): noGo.words
        case .crossfadedLoop(let inner):
            "the crossfaded loop could not be written: \(inner.lines.joined(separator: " "))"
        }
    }

    /// Two claims on one file, in one sentence naming both inputs (or both files of one input) and the file.
    static func clash(_ file: String, _ a: Claimant, _ b: Claimant) -> String {
        guard a.input != b.input else {
            return """
                \(a.input)'s \(a.what) and its \(b.what) would both be written to \(file), one replacing the other: \
                name one of them otherwise
                """
        }
        let what = a.what == b.what ? "" : " (\(a.input)'s \(a.what), \(b.input)'s \(b.what))"
        return """
            \(a.input) and \(b.input) would both be written to \(file)\(what), one replacing the other: rename \
            one of them, or write each folder with its own -o
            """
    }
}

extension Refusal.OverInput {
    func words(output: String, input: String) -> String {
        switch self {
        case .named: "the output \(output) is the input \(input) (nothing written)"
        case .converted(let container):
            "write output: the \(container.name.uppercased()) would overwrite the input \(input)"
        case .notInPlace: "write output: the output would overwrite the input (use --in-place)"
        case .planned: "write output: the plan's output \(output) is its input (apply never writes over one)"
        }
    }
}

extension Refusal.InputChange {
    func words(_ path: String?, command: String) -> String {
        let again = "plan it again with \(command) --dry-run"
        let name = path ?? "a clip"
        return switch self {
        case .changed: "\(name) changed since it was planned (its size, modification time or bytes): \(again)"
        case .gone: "\(name) is gone since it was planned: \(again)"
        case .remote: "\(name) is a URL, which apply cannot tell unchanged: write it with \(command) -o"
        case .unrecorded: "the plan does not say what it read of \(path ?? "its clips"): \(again)"
        case .blendUnrecorded: "the plan does not say how its blend is made: \(again)"
        }
    }
}

extension Refusal.StalePlan {
    var words: String {
        switch self {
        case .clipCount(let planned, let read): "the plan is for \(planned) clips, not \(read)"
        case .cutOtherwise(let path): "\(path) is cut otherwise than when it was planned"
        case .misfit(let how): "the plan does not fit its clips as they read (\(how))"
        }
    }
}

extension Refusal.WebPlayerNoGo {
    var words: String {
        switch self {
        case .container(let file, let remedy):
            """
            the web player needs an MP4, a MOV or a WebM: browsers append only ISO files (MP4, MOV) and WebM \
            through Media Source Extensions, and \(file) is not one; nothing written (\(remedy) for a web player, or \
            without --web-player)
            """
        case .codec(let kind, let index, let codec, let container, let takes):
            """
            \(takes); \(kind.rawValue) track \(index) (\(codec)) in \(container.name.uppercased()) is not one of \
            them; nothing written (without --web-player it is written as it is)
            """
        case .notPackaged(let output, let why): "\(output) is written and verified, but not its web player: \(why)"
        }
    }
}
