import CFFmpeg
import CFFmpegLoader
import Foundation
import LoopIndex

/// FFmpeg logs to stderr by default, which would interleave with our diagnostics. loopprep silences it
/// (our errors carry FFmpeg's reason instead); `--verbose` routes it to stderr with a prefix. Silencing does not
/// load FFmpeg: the level is set when it loads.
public enum FFmpegLog {
    public static func silence() { lp_ffmpeg_set_log_level(AV_LOG_QUIET) }

    public static func routeToStandardError() {
        lp_ffmpeg_set_log_level(AV_LOG_WARNING)
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
