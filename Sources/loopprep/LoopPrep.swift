import ArgumentParser
import LoopAnalysis

@main
struct LoopPrep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loopprep",
        abstract: "Prepare video clips for gapless looping and stitched playlists.",
        discussion: """
        Exit codes (every command):
          0   nothing at or above --fail-on
          1   findings at or above --fail-on, or an output could not be made
          2   some input could not be read
          64  usage error
          130 interrupted (SIGINT), 143 terminated (SIGTERM): temporary files removed, nothing partial left
        """,
        version: "0.1.0",
        subcommands: [Analyze.self, Fix.self, Stitch.self, Loop.self]
    )
}

extension Target: ExpressibleByArgument {}
extension FailOn: ExpressibleByArgument {}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, junit, github
}

/// Options every reporting command shares.
struct ReportOptions: ParsableArguments {
    @Option(help: "Report format: text, json, junit or github.")
    var format: OutputFormat = .text

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding is at or above this severity: error, warning or never.")
    var failOn: FailOn = .error

    @Option(help: "Files processed in parallel (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Show FFmpeg's own log on stderr.")
    var verbose = false

    @Flag(name: .customLong("quiet"), help: "No per-finding diagnostics on stderr.")
    var quiet = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }
}

import Foundation
