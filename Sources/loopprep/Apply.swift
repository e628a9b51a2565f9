import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

/// `loopprep apply PLAN.json`: a plan `fix --dry-run --format json` saved, carried out later as it stands (a CI job
/// reviews the plan, a person approves it, another job applies it). Each planned input is written as the dry run
/// said, never planned again, and refused in one sentence where it changed since; the report is the write's.
struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Carry out a plan saved by fix, loop or stitch --dry-run --format json, as it was planned.",
        discussion: """
            Each input the plan writes is checked first: its size, modification time and the bytes at either end \
            must be what the dry run read, or it is refused (plan it again). Inputs the dry run refused stay refused. \
            The exit code and the report are those of the command that made the plan.
            """)

    @Argument(help: "The dry run's report (--format json).", completion: .file(extensions: ["json"]))
    var plan: String

    @Flag(name: [.customLong("force"), .customShort("y")], help: "Replace an output that exists (never an input).")
    var force = false

    @OptionGroup var report: ReportOptions

    func run() throws {
        let runner = CommandRunner(verbose: report.verbose, counts: true)
        let saved: ReportCommand.Shard
        do {
            saved = try ReportCommand.parse(ReportCommand.bytes(plan), name: plan == "-" ? "standard input" : plan)
        } catch let refusal as ReportCommand.Refusal {
            Console.stderr("loopprep: error: \(refusal.message)\n")
            throw ExitCode(ExitStatus.unreadable.rawValue)
        }
        if saved.command == "stitch" { try applyStitch(saved, runner: runner) }
        let commands = ["fix", "loop"]
        guard commands.contains(saved.command), saved.files.contains(where: { $0.fix?.status == .planned }) else {
            let what =
                commands.contains(saved.command)
                ? "a \(saved.command) report with nothing planned" : "a \(saved.command) report"
            Console.stderr("loopprep: error: \(plan) is \(what): \(Self.carries)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var exiting = report
        exiting.failOnGiven = report.failOnGiven ?? .never
        let stream = ReportStream(command: saved.command, options: saved.options, report: exiting)
        // Web players planned beside outputs of one stem in one folder are named in full, as fix names them.
        let qualified = WebPlayerOption.qualified(saved.files.compactMap { $0.fix?.output })
        var files: [FileReport] = []
        for file in saved.files {
            var applied = file
            if saved.command == "loop" {
                applied = LoopCut.apply(
                    file, analysis: saved.options, force: force, temporaries: runner.temporaries)
            } else if let fix = file.fix, fix.status == .planned, let planned = fix.plan, let output = fix.output {
                var request = FixRequest(to: output, analysis: saved.options, temporaries: runner.temporaries)
                request.force = force
                applied = ClipFix.apply(file.path, plan: planned, input: fix.input, request)
                applied.path = file.path
            }
            if let fix = file.fix, fix.status == .planned, fix.webPlayerPlanned == true, let output = fix.output {
                WebPlayerOption.add(
                    to: &applied, qualified: qualified.contains(output), temporaries: runner.temporaries)
            }
            if stream.take(applied) { files.append(applied) }
        }
        let full = try runner.emit(
            files, command: saved.command, options: saved.options, stream: stream, report: exiting)
        try runner.exit(full.exitStatus(failOn: exiting.failOn))
    }

    /// What apply takes, said where it is given something else.
    static let carries = "apply carries out what fix, loop or stitch --dry-run --format json planned"

    /// A stitch's dry run carried out (its reel's record: the plan and timeline): the reel written as planned (and its
    /// web player where the plan asked for one); the report and exit code are stitch's.
    func applyStitch(_ saved: ReportCommand.Shard, runner: CommandRunner) throws -> Never {
        let file = saved.files.first
        guard let fix = file?.fix, fix.status == .planned, let output = fix.output, let reel = file?.reel,
            let value = reel.plan
        else {
            let status = file?.outcome?.status
            let why =
                status != .planned
                ? "a stitch report with nothing planned (it was \(status?.rawValue ?? "empty"))"
                : "a stitch dry run that names no output (plan one with -o REEL.mp4)"
            Console.stderr("loopprep: error: \(plan) is \(why): \(Self.carries)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var result: StitchReport
        do {
            result = try Stitcher.apply(
                value, timeline: reel.timeline, to: output, force: force, temporaries: runner.temporaries)
        } catch { try Stitch.refuse(error, output: output, format: report.format) }
        if value.request.webPlayerRemedy != nil, result.refusal == nil {
            switch WebPlayerOption.package(output, temporaries: runner.temporaries) {
            case .success(let web): result.webPlayer = web
            case .failure(let failure): result.webPlayerRefusal = failure
            }
        }
        try Stitch.finish(result, analysis: saved.options, options: report, runner: runner)
    }
}
