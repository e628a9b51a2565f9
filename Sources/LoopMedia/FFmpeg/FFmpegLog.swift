import CFFmpeg
import Foundation

/// FFmpeg logs to stderr by default, which would interleave with our diagnostics. loopprep silences it
/// (our errors carry FFmpeg's reason instead); `--verbose` routes it to stderr with a prefix.
public enum FFmpegLog {
    public static func silence() { av_log_set_level(AV_LOG_QUIET) }

    public static func routeToStandardError() {
        av_log_set_level(AV_LOG_WARNING)
        // A C function pointer: a closure that captures nothing.
        lp_set_log_sink { _, line in
            guard let line else { return }
            let text = String(cString: line)
            FileHandleOutput.standardError("ffmpeg: " + text + (text.hasSuffix("\n") ? "" : "\n"))
        }
    }
}

enum FileHandleOutput {
    static func standardError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
