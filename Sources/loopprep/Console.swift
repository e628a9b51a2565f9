import Dispatch
import Foundation
import LoopMedia

/// stdout is the result; stderr is everything else. Colour and progress only on a terminal (NO_COLOR and
/// TERM=dumb turn colour off).
enum Console {
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1

    static var colorAllowed: Bool {
        let env = ProcessInfo.processInfo.environment
        return env["NO_COLOR"] == nil && env["TERM"] != "dumb"
    }

    static func stdout(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    static func stderr(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    /// On SIGINT or SIGTERM: run `cleanUp` (remove temporaries), then exit 130 / 143. Keep the result alive.
    static func cleanUpOnSignals(_ cleanUp: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                cleanUp()
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
