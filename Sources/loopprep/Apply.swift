import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

/// `loopprep apply PLAN.json`: a plan `fix --dry-run --format json` saved, carried out later as it stands (a CI job
/// reviews the plan, a person approves it, another job applies it). Each planned input is written as the dry run
/// said, never planned again, and refused in one sentence where it changed since; the report is the write's.
struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Carry out a plan saved by fix --dry-run --format json, as it was planned.",
        discussion: """
            Each input the plan writes is checked first: its size, modification time and the bytes at either end \
            must be what the dry run read, or it is refused (plan it again). Inputs the dry run refused stay refused. \
            The exit code and the report are fix's.
            """)

    @Argument(help: "The dry run's report (--format json).", completion: .file(extensions: ["json"]))
    var plan: String

    @Flag(name: [.customLong("force"), .customShort("y")], help: "Replace an output that exists (never an input).")
    var force = false

    @OptionGroup var report: ReportOptions

    func run() throws {
        let runner = CommandRunner(verbose: report.verbose, counts: true)
        let saved: ReportCommand.Shard
        do { saved = try ReportCommand.read(plan) } catch let refusal as ReportCommand.Refusal {
            Console.stderr("loopprep: error: \(refusal.message)\n")
            throw ExitCode(ExitStatus.unreadable.rawValue)
        }
        guard saved.command == "fix", saved.files.contains(where: { $0.fix?.status == .planned }) else {
            let what = saved.command == "fix" ? "a fix report with nothing planned" : "a \(saved.command) report"
            Console.stderr(
                "loopprep: error: \(plan) is \(what): apply carries out what fix --dry-run --format json planned\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var exiting = report
        exiting.failOnGiven = report.failOnGiven ?? .never
        let stream = ReportStream(command: "fix", options: saved.options, report: exiting)
        // Web players planned beside outputs of one stem in one folder are named in full, as fix names them.
        let qualified = WebPlayerOption.qualified(saved.files.compactMap { $0.fix?.output })
        var files: [FileReport] = []
        for file in saved.files {
            var applied = file
            if let fix = file.fix, fix.status == .planned, let planned = fix.plan, let output = fix.output {
                applied = ClipFix.apply(
                    file.path, plan: planned, to: output, input: fix.input, analysis: saved.options, force: force,
                    temporaries: runner.temporaries)
                applied.path = file.path
                if fix.webPlayerPlanned == true {
                    WebPlayerOption.add(
                        to: &applied, qualified: qualified.contains(output), temporaries: runner.temporaries)
                }
            }
            if stream.take(applied) { files.append(applied) }
        }
        let full = try runner.emit(files, command: "fix", options: saved.options, stream: stream, report: exiting)
        try runner.exit(full.exitStatus(failOn: exiting.failOn))
    }
}
