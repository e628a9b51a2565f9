import CFFmpeg
import CFFmpegLoader
import Foundation
import LoopIndex

/// The FFmpeg libraries, as reports name them: loopprep's exact figures were checked on 5.1, 7.1 and 9.0, and a
/// report says which did the work ("libavformat 59.27.100, libavcodec 59.37.100, ..."). Asked for after FFmpeg
/// was loaded, the loaded libraries' own versions; when nothing needed it (an MP4 whose index was enough), the
/// versions of the headers loopprep was built against, whose sonames are what it would load. libavfilter,
/// loaded only when a transition is drawn, is always named by its headers.
public enum FFmpegLibraries {
    public static var description: String {
        func v(_ name: String, _ version: UInt32) -> String {
            "\(name) \(version >> 16).\((version >> 8) & 0xff).\(version & 0xff)"
        }
        let loaded = lp_ffmpeg_loaded() != 0
        return [
            v("libavformat", loaded ? avformat_version() : lp_avformat_header_version),
            v("libavcodec", loaded ? avcodec_version() : lp_avcodec_header_version),
            v("libavutil", loaded ? avutil_version() : lp_avutil_header_version),
            v("libavfilter", lp_avfilter_header_version),
            v("libswscale", loaded ? swscale_version() : lp_swscale_header_version),
            v("libswresample", loaded ? swresample_version() : lp_swresample_header_version),
        ]
        .joined(separator: ", ")
    }

    /// The loaded libraries' own versions, loading them if nothing has yet (`loopprep --version`).
    public static var loadedDescription: String {
        _ = avformat_version()
        return description
    }

    /// Starts loading FFmpeg on a thread of its own, for work that will need it after a long write (fix's
    /// independent check): mapping some seventy libraries while the kernel flushes hundreds of megabytes stalls
    /// on memory and disk (a 10-minute clip's check waited a third of a second for it behind the fsync); before
    /// the copy it costs nothing. The loader runs once, whoever calls first.
    public static func loadAhead() {
        guard !loaded else { return }
        Thread.detachNewThread { _ = avformat_version() }
    }

    /// Whether anything has called into FFmpeg in this process.
    public static var loaded: Bool { lp_ffmpeg_loaded() != 0 }
}
