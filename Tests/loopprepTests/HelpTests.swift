import ArgumentParser
import Foundation
import Testing

@testable import loopprep

/// Help that reads well at any width, and shell completion that completes paths.
@Suite struct HelpTests {
    static let commands: [any ParsableCommand.Type] = [
        LoopPrep.self, Analyze.self, Fix.self, Stitch.self, Loop.self, ReportCommand.self,
    ]

    /// The parser wraps discussions itself: a paragraph must be one source line (or `\`-joined), and only an
    /// indented list line may be kept as written, short enough not to wrap at 80 columns.
    @Test(arguments: commands.map { ObjectIdentifier($0) })
    func discussionsAreParagraphsTheParserCanWrap(_ id: ObjectIdentifier) {
        let command = Self.commands.first { ObjectIdentifier($0) == id }!
        let discussion = command.configuration.discussion
        for paragraph in discussion.components(separatedBy: "\n\n") {
            let lines = paragraph.split(separator: "\n", omittingEmptySubsequences: false)
            guard lines.count > 1 else { continue }
            // A heading line, then indented items: a list.
            for line in lines.dropFirst() {
                #expect(line.hasPrefix("  "), "\(command): a paragraph broken by hand: \(line)")
                #expect(line.count <= 78, "\(command): a list line that will wrap: \(line)")
            }
        }
    }

    @Test(arguments: [40, 80, 120])
    func helpFitsTheWidthItIsGiven(columns: Int) {
        for command in Self.commands {
            let text = LoopPrep.helpMessage(for: command, columns: columns)
            // Option names, value names and usage lines may run over at 40; prose never does at 80 and up.
            if columns >= 80 {
                for line in text.split(separator: "\n") where !line.hasPrefix("USAGE:") {
                    #expect(line.count <= columns, "\(command) at \(columns): \(line)")
                }
            }
            #expect(text.contains("USAGE: loopprep"))
        }
    }

    /// bash's completion, run as bash runs it: file names for the inputs, folders for -o, rule names for --disable.
    @Test func bashCompletesPathsFoldersAndRules() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("shots"), withIntermediateDirectories: true)
        for name in ["clip-a.mp4", "clip-b.mov", "notes.txt"] {
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: nil)
        }
        let script = dir.appendingPathComponent("loopprep.bash")
        try Data(try Run.loopprep(["--generate-completion-script", "bash"]).stdout.utf8).write(to: script)
        func complete(_ words: [String]) throws -> [String] {
            let line = words.joined(separator: " ")
            let body = """
                source '\(script.path)' 2>/dev/null
                COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1)
                COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
                _loopprep loopprep '\(words.last!)' '\(words[words.count - 2])' 2>/dev/null
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let run = try Run.launch(URL(fileURLWithPath: "/bin/bash"), ["-c", body], in: dir)
            return run.stdout.split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete(["loopprep", "analyze", "cl"]) == ["clip-a.mp4", "clip-b.mov"])
        #expect(try complete(["loopprep", "fix", "--dry-run", "n"]) == ["notes.txt"])
        #expect(try complete(["loopprep", "fix", "-o", "s"]) == ["shots"])
        #expect(try complete(["loopprep", "analyze", "--disable", "moov"]) == ["moov-at-end"])
        #expect(try complete(["loopprep", "stitch", "clip-a"]) == ["clip-a.mp4"])
        // zsh and fish scripts complete files for the same arguments.
        let zsh = try Run.loopprep(["--generate-completion-script", "zsh"]).stdout
        #expect(zsh.contains("'*:paths:_files'"))
        let fish = try Run.loopprep(["--generate-completion-script", "fish"]).stdout
        #expect(fish.contains("\"loopprep analyze\" -ge 1' -F"))
    }
}

extension HelpTests {
    /// The man page is written from the commands' help (scripts/man.sh): every long option a command's help
    /// lists is in it, so a stale page fails here.
    @Test func theManPageHasEveryOption() throws {
        let page = try String(contentsOf: Run.repository.appendingPathComponent("docs/man/loopprep.1"), encoding: .utf8)
        for command in ["analyze", "fix", "stitch", "loop", "report", "apply"] {
            let help = try Run.loopprep([command, "--help"]).stdout
            let options = Set(help.matches(of: /(?m)^  (?:-[a-z], )?--([a-z][a-z0-9-]*)/).map { String($0.output.1) })
            #expect(options.count > 3, "\(command)")
            for option in options where option != "help" && option != "version" {
                // mdoc writes `.It Fl -name` or, with a short name, `.It Fl o , -name`.
                #expect(
                    page.contains("Fl -\(option)")
                        || page.range(of: "Fl [a-z] , -\(option)", options: .regularExpression) != nil,
                    "man page lacks \(command) --\(option): run scripts/man.sh")
            }
        }
        let license = try String(contentsOf: Run.repository.appendingPathComponent("LICENSE"), encoding: .utf8)
        #expect(license.hasPrefix("MIT License"))
    }

    /// The man page has loopprep's exit-code table, examples and SEE ALSO, and mandoc finds nothing to warn about
    ///; every option an example uses is its command's.
    @Test func theManPageHasExitCodesExamplesAndNoWarnings() throws {
        let path = Run.repository.appendingPathComponent("docs/man/loopprep.1").path
        let page = try String(contentsOfFile: path, encoding: .utf8)
        for section in [".Sh EXIT STATUS", ".Sh EXAMPLES", ".Sh SEE ALSO"] { #expect(page.contains(section)) }
        for code in [0, 1, 2, 64, 127, 130, 143] { #expect(page.contains(".It \(code)\n"), "exit \(code)") }
        let examples = page.split(separator: "\n").filter { $0.hasPrefix(".Dl loopprep ") }
        #expect(examples.count >= 5)
        for example in examples {
            let words = example.split(separator: " ").map(String.init)
            let help = try Run.loopprep([words[2], "--help"]).stdout
            for option in words.dropFirst(3) where option.hasPrefix("--") {
                #expect(help.contains(option), "\(example): \(option)")
            }
        }
        let mandoc = ["/usr/bin/mandoc", "/usr/local/bin/mandoc"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let lint = try mandoc.map { try Run.launch(URL(fileURLWithPath: $0), ["-Tlint", "-Wwarning", path]) }
        #expect(lint.map { $0.status == 0 && $0.stdout.isEmpty && $0.stderr.isEmpty } ?? true, "\(lint?.stdout ?? "")")
    }

    /// A mistyped command names the nearest one, exit 64 (a usage error); a file name or an
    /// unknown word far from every command is left to the parser's own message.
    @Test func aMistypedCommandGetsASuggestion() throws {
        for (typed, meant) in [("anlyze", "analyze"), ("analyse", "analyze"), ("fxi", "fix"), ("stich", "stitch")] {
            let run = try Run.loopprep([typed, "clip.mp4"])
            #expect(run.status == 64)
            #expect(
                run.stderr
                    == "loopprep: no command '\(typed)': did you mean 'loopprep \(meant)'? (see loopprep --help)\n")
        }
        #expect(LoopPrep.nearestCommand(to: "fix.mp4") == nil && LoopPrep.nearestCommand(to: "loop") == nil)
        #expect(LoopPrep.editDistance("reprot", "report") == 1 && LoopPrep.editDistance("abc", "") == 3)
    }
}
