import Dispatch
import Foundation
import LoopMedia

/// stdout is the result; stderr is everything else. Colour and progress only on a terminal (a non-empty NO_COLOR
/// and TERM=dumb turn colour off).
enum Console {
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1

    /// NO_COLOR turns colour off when it is set and not empty (no-color.org: an empty one does not count).
    static var colorAllowed: Bool {
        let env = ProcessInfo.processInfo.environment
        return (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb"
    }

    /// stdout and stderr end in the same place: one terminal, or one file or pipe (`2>&1 | tee`, a CI log).
    static let oneOutput: Bool = {
        if stdoutIsTTY && stderrIsTTY { return true }
        var out = stat()
        var err = stat()
        guard fstat(STDOUT_FILENO, &out) == 0, fstat(STDERR_FILENO, &err) == 0 else { return false }
        return out.st_dev == err.st_dev && out.st_ino == err.st_ino
    }()

    static func stdout(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    static func stderr(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    /// On SIGINT or SIGTERM: run `cleanUp` (remove temporaries), say so in one line (with `done`, what was
    /// finished: "5 of 6 written"), then exit 130 / 143. Keep the result alive.
    static func cleanUpOnSignals(
        done: (@Sendable () -> String)? = nil, _ cleanUp: @escaping @Sendable () -> Void
    ) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                cleanUp()
                let finished = done.map { "\($0()), " } ?? ""
                Console.stderr("\nloopprep: interrupted: \(finished)nothing partial left (temporary files removed)\n")
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    static func configureFFmpegLog(verbose: Bool) {
        if verbose { FFmpegLog.routeToStandardError() } else { FFmpegLog.silence() }
    }
}
