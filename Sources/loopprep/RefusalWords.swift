import LoopAnalysis

/// Every refusal in loopprep's words, and nowhere else: the library says why it refused as data (Refusal), the
/// command line says it, naming the cause and the remedy (its options, its commands). A report's JSON takes these
/// words from its encoder (`Refusal.wordsKey`).
extension Refusal {
    /// The words every report encoder of the command line gives refusals.
    static let words: Refusal.Words = { $0.sentence }

    /// The refusal in loopprep's words, naming the cause and the remedy.
    var sentence: String {
        switch self {
        case .plan, .noLoop, .unreadable, .worded, .write, .check: carriedWords ?? ""
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
                + (inner.cause == .webPlayer ? " (loop it without --web-player)" : "")
        }
    }

    /// The sentence and its details, a line each.
    var lines: [String] { [sentence] + details }

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

extension Outcome {
    /// Why nothing was written, in loopprep's words.
    var reason: String? { refusal?.sentence }
}

extension FixOutcome {
    /// Why the file was not written, in loopprep's words.
    var reason: String? { refusal?.sentence }
}

extension Refusal: CustomStringConvertible {
    /// A refusal printed is its sentence.
    public var description: String { sentence }
}
