import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

@main
struct LoopPrep: AsyncParsableCommand {
    /// `loopprep --version`: the version on its own line (as scripts read it), then the FFmpeg libraries it runs
    /// on (loaded to ask them their versions).
    static func main() async {
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print("\(Report.toolVersion)\nFFmpeg: \(FFmpegLibraries.loadedDescription)")
            return
        }
        // A mistyped command: the nearest one named, not "2 unexpected arguments".
        if let first = CommandLine.arguments.dropFirst().first, let nearest = Self.nearestCommand(to: first) {
            Console.stderr(
                "loopprep: no command '\(first)': did you mean 'loopprep \(nearest)'? (see loopprep --help)\n")
            Foundation.exit(64)
        }
        await main(nil)
    }

    /// The command `word` is one or two typing slips from (an insertion, a deletion, a change, two letters
    /// swapped), when it is not a command or an option itself.
    static func nearestCommand(to word: String) -> String? {
        let commands = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !word.hasPrefix("-"), !commands.contains(word) else { return nil }
        return commands.map { ($0, editDistance(word.lowercased(), $0)) }.filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }

    /// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
        var d = (0...x.count).map { i in (0...y.count).map { j in i == 0 ? j : j == 0 ? i : 0 } }
        for i in 1...x.count {
            for j in 1...y.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }

    static let configuration = CommandConfiguration(
        commandName: "loopprep",
        abstract: "Prepare video clips for gapless looping and stitched playlists.",
        discussion: """
            Exit codes (every command):
              0    nothing at or above --fail-on
              1    findings at or above --fail-on, or an output could not be made
              2    an input could not be read: a missing file, no media, a report shard
              64   usage error (a bad option, or a .loopprep.json that cannot be used)
              127  FFmpeg's libraries could not be loaded (one line says which)
              130  interrupted (SIGINT): temporary files removed, nothing partial left
              143  terminated (SIGTERM): the same

            Shell completion: loopprep --generate-completion-script bash (or zsh, fish).
            """,
        version: Report.toolVersion,
        subcommands: [Analyze.self, Fix.self, Stitch.self, Loop.self, ReportCommand.self, Apply.self]
    )
}

extension Target: ExpressibleByArgument {}

/// Every option that takes a length reads the same units: 0.5 or 0.5s, 500ms, 12f.
extension TimeAmount: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public static var defaultCompletionKind: CompletionKind { .default }
}
extension FailOn: ExpressibleByArgument {}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, jsonl, junit, github, sarif, gitlab, ranges
}

/// `--report FORMAT=PATH`: one more report, written to a file.
struct ExtraReport: ExpressibleByArgument, Sendable {
    var format: OutputFormat
    var path: String
    init?(argument: String) {
        guard let eq = argument.firstIndex(of: "="), let f = OutputFormat(rawValue: String(argument[..<eq])) else {
            return nil
        }
        format = f
        path = String(argument[argument.index(after: eq)...])
        guard !path.isEmpty else { return nil }
    }
}

/// The files and folders analyze and fix take.
struct InputPaths: ParsableArguments {
    @Argument(
        help: "Files and folders (folders are searched recursively; hidden files are skipped).", completion: .file())
    var paths: [String]

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("name at least one file or folder") }
        try Self.refuseStandardInput(paths)
    }

    /// `-` is not a clip: loopprep seeks in what it reads (an MP4's index may be at its end), which a pipe cannot do.
    static func refuseStandardInput(_ paths: [String]) throws {
        guard !paths.contains("-") else {
            throw ValidationError(
                """
                '-' (standard input) cannot be read: loopprep seeks in its inputs; save the stream to a file and \
                name it
                """)
        }
    }
}

/// What the commands that write take: a dry run, and leave to replace an existing output.
struct WriteOptions: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Report what would be written (the plan) and write nothing.")
    var dryRun = false

    @Flag(name: [.customLong("force"), .customShort("y")], help: "Replace an output that exists.")
    var force = false
}

/// Where analyze and fix find the project's `.loopprep.json`, and the target its settings (or this option) name.
struct ConfigOptions: ParsableArguments {
    @Option(
        help:
            """
            Where the loops play: apple (AVFoundation; trims are edit lists), chrome, firefox, safari, or web \
            (all three browsers), whose codecs and containers count as playable; for a browser fix also bakes the \
            video's trims into the media for players that ignore edit lists (re-encoding the last GOP when frames \
            outlive the cut). Default: .loopprep.json's, else apple.
            """
    )
    var target: Target?

    @Option(
        help: ArgumentHelp(
            """
            Read the project's settings from this file instead of the first .loopprep.json found in the working \
            folder or above it.
            """,
            valueName: "file"), completion: .file(extensions: ["json"]))
    var config: String?

    @Flag(name: .customLong("no-config"), help: "Ignore any .loopprep.json.")
    var noConfig = false

    func validate() throws {
        if config != nil && noConfig { throw ValidationError("use either --config FILE or --no-config, not both") }
    }

    /// The project's settings; a file that cannot be used is a usage error, exit 64.
    func settings(verbose: Bool) throws -> ProjectSettings {
        do {
            let settings = try ProjectSettings.load(explicit: config, search: !noConfig)
            if verbose, let file = settings.file { Console.stderr("loopprep: settings from \(file)\n") }
            return settings
        } catch {
            Console.stderr("loopprep: error: \(error.message)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
    }
}

/// Options of the commands that take a batch of files (analyze, fix, loop).
struct BatchOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Take only shard K of N of the inputs (K from 0): a stable split by each file's path relative to its \
            argument.
            """,
            valueName: "K/N"),
        transform: Shard.parse)
    var shard: Shard?

    @Option(
        name: [.customLong("jobs"), .customShort("j")],
        help: ArgumentHelp("Files processed in parallel (default: the number of cores).", valueName: "n"))
    var jobsGiven: Int?

    /// --jobs, else the number of cores.
    var jobs: Int { jobsGiven ?? ProcessInfo.processInfo.activeProcessorCount }

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    /// The items of this shard.
    func keeps(_ item: Inputs.Item) -> Bool { shard?.keeps(item) ?? true }
}

/// Options every reporting command shares (analyze, fix, stitch, loop, report).
struct ReportOptions: ParsableArguments {
    @Option(
        help: """
            Report format on stdout: text, json, jsonl (a line a file, as each is done), junit, github, sarif, \
            gitlab (GitLab's Code Quality report) or ranges (a line a file: its path and the loop range a player \
            takes, for a back end that checks uploads).
            """)
    var format: OutputFormat = .text

    @Option(
        name: .customLong("report"),
        help: ArgumentHelp(
            """
            Also write a report in FORMAT to PATH (repeatable): --report junit=loopprep.xml --report \
            sarif=loopprep.sarif.
            """,
            valueName: "format=path"))
    var reports: [ExtraReport] = []

    @Option(
        name: .customLong("disable"),
        help: ArgumentHelp(
            "Do not report this rule (repeatable). fix still verifies its outputs against every rule.",
            valueName: "rule"), completion: .list(Analyzer.allIDs))
    var disabled: [String] = []

    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            """
            Exit 1 when a finding is at or above this severity: error (the default; for what fix and stitch \
            write: never), warning or never.
            """,
            valueName: "severity"))
    var failOnGiven: FailOn?

    /// --fail-on, else error.
    var failOn: FailOn { failOnGiven ?? .error }

    @Flag(help: "Show FFmpeg's own log on stderr.")
    var verbose = false

    @Flag(name: .customLong("quiet"), help: "No per-finding diagnostics on stderr.")
    var quiet = false

    /// The analysis options: the command line's, then the project's file, then the defaults; --disable added.
    func applied(
        _ options: AnalysisOptions, settings: ProjectSettings = ProjectSettings(), target: Target? = nil,
        minimumLoopSeconds: Rational? = nil
    ) -> AnalysisOptions {
        settings.applied(to: options, target: target, minimumLoopSeconds: minimumLoopSeconds).disabling(disabled)
    }

    func validate() throws {
        if let unknown = disabled.first(where: { !Analyzer.allIDs.contains($0) }) {
            throw ValidationError(
                "--disable \(unknown): no such rule (rules: \(Analyzer.allIDs.joined(separator: ", ")))")
        }
    }
}
