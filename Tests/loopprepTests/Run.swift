import Foundation
import TestSupport

/// Runs the built `loopprep` binary and captures what a user or CI sees.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String

    static let repository = Repository.root
    static let fixtures = Repository.fixtures

    /// The binary sits beside the test bundle in SwiftPM's build folder.
    static let binary: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "loopprep")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return repository.appendingPathComponent(".build/debug/loopprep")
    }()

    static func fixture(_ name: String) -> String { Repository.fixture(name) }

    @discardableResult
    static func loopprep(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws
        -> Run
    {
        // The diagnostics follow the log they print to; a test runs as on a plain machine, whatever CI it is in.
        try launch(binary, arguments, environment: ["GITHUB_ACTIONS": ""].merging(environment) { $1 }, in: directory)
    }

    /// A test tool from PATH (ffmpeg, ffprobe).
    @discardableResult
    static func tool(_ arguments: [String]) throws -> Run {
        try launch(URL(fileURLWithPath: "/usr/bin/env"), arguments)
    }

    static func launch(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil
    ) throws -> Run {
        let (out, err, status) = try Subprocess.run(executable, arguments, environment: environment, in: directory)
        return Run(
            status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL { try Repository.temporaryDirectory() }

    /// A report that is not JSON, or has no file.
    struct NotAReport: Error, CustomStringConvertible {
        var text: String
        var description: String { "not a report with a file: \(text.prefix(300))" }
    }

    /// The first file of a JSON report on stdout (stitch's: the reel's record), as a JSON object.
    func file() throws -> [String: Any] {
        let report = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        guard let first = (report?["files"] as? [[String: Any]])?.first else { throw NotAReport(text: stdout) }
        return first
    }

    /// Copies of a fixture named NAME.mp4 in `dir`, for tests that must not touch the fixtures themselves.
    static func copies(of fixture: String, _ names: [String], in dir: URL) throws -> [String] {
        try names.map { name in
            let path = dir.appendingPathComponent("\(name).mp4").path
            try FileManager.default.copyItem(atPath: Run.fixture(fixture), toPath: path)
            return path
        }
    }

    /// The binary started in the background (stderr discarded unless given), for tests that act on it mid-run.
    static func start(
        _ arguments: [String], stdout: Any = FileHandle.nullDevice, stderr: Any = FileHandle.nullDevice
    ) throws -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return process
    }

    /// Polls a folder's listing until `ready` says so, for as long as `process` runs: true once the state is there,
    /// false where the process ended first. No clock decides: a busy machine only makes the wait longer. (A run still
    /// going after `bound` seconds is taken as hung, ended, and false.) A test that needs the state requires true, a
    /// verdict of its own ("the run never reached ...") apart from the behaviour under test.
    static func wait(
        for folder: URL, while process: Process, bound: TimeInterval = 1800, until ready: ([String]) -> Bool
    ) -> Bool {
        let hung = Date().addingTimeInterval(bound)
        while true {
            if ready((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []) { return true }
            guard process.isRunning else { return false }
            if Date() > hung {
                process.terminate()
                return false
            }
            usleep(5_000)
        }
    }
}
