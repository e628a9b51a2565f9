import CFFmpeg

/// The FFmpeg libraries loaded at run time, as reports name them: loopprep's exact figures were checked on 5.1,
/// 7.1 and 9.0, and a report says which did the work ("libavformat 59.27.100, libavcodec 59.37.100, ...").
/// libavfilter, loaded only when a transition is drawn, is named by the version its headers gave (the soname,
/// its major version, is what is loaded).
public enum FFmpegLibraries {
    public static let description: String = {
        func v(_ name: String, _ version: UInt32) -> String {
            "\(name) \(version >> 16).\((version >> 8) & 0xff).\(version & 0xff)"
        }
        return [
            v("libavformat", avformat_version()), v("libavcodec", avcodec_version()), v("libavutil", avutil_version()),
            v("libavfilter", lp_avfilter_header_version), v("libswscale", swscale_version()),
            v("libswresample", swresample_version()),
        ]
        .joined(separator: ", ")
    }()
}
