import CFFmpeg
import CFFmpegLoader
import LoopAnalysis
import LoopIndex

/// Owns a libavfilter graph that draws one transition: two buffer sources (the outgoing clip's frames, the
/// incoming clip's), FFmpeg's xfade, and a buffer sink that gives the frames back in the sources' pixel format
/// (a format xfade does not take is converted there and back by the graph).
///
/// Frame k of an N-frame window is drawn at progress (k + 1) / (N + 1): the first already shows some of the
/// incoming clip and the last some of the outgoing one, so neither clip's own frame is repeated. xfade weighs
/// the outgoing frame by 1 - (pts - first pts - offset) / duration; on a clock of one tick a frame, with a
/// first pair at tick 0 (not used), the window's pairs at ticks 1...N, offset 0 and a duration of N + 1
/// frames, that is the weight wanted.
final class TransitionGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let outgoing: UnsafeMutablePointer<AVFilterContext>
    private let incoming: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private var tick: Int64
    private let shape: (width: Int32, height: Int32, format: Int32)
    /// The window frame the next draw makes (0-based).
    var position: Int { Int(tick) }

    /// `like`: a decoded frame of the clips (size, pixel format, aspect); `frameRate`: the output's; `from`:
    /// the first window frame to draw (0 unless a render starts inside the window).
    init(transition name: String, frames: Int, like frame: Frame, frameRate: Rational, from first: Int = 0) throws {
        tick = Int64(first)
        shape = (frame.pointer.pointee.width, frame.pointer.pointee.height, frame.pointer.pointee.format)
        guard lp_ffmpeg_filters_available() != 0 else {
            throw MediaError(
                "draw transition",
                reason: """
                    transitions are drawn by FFmpeg's libavfilter, and \(String(cString: lp_avfilter_soname)) cannot \
                    be loaded; install it (Debian: apt-get install libavfilter\(lp_avfilter_header_version >> 16)) \
                    or stitch with --transition cut
                    """)
        }
        guard let graph = avfilter_graph_alloc() else {
            throw MediaError("draw transition", code: lp_error_enomem)
        }
        self.graph = graph
        graph.pointee.nb_threads = 1
        let f = frame.pointer.pointee
        let sar = f.sample_aspect_ratio.num > 0 ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        let args =
            "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format)"
            + ":time_base=\(frameRate.denominator)/\(frameRate.numerator)"
            + ":pixel_aspect=\(sar.num)/\(sar.den):frame_rate=\(frameRate.numerator)/\(frameRate.denominator)"
        func make(_ filter: String, _ name: String, _ args: String?) throws -> UnsafeMutablePointer<AVFilterContext> {
            try FilterGraphParts.filter(filter, named: name, args: args, in: graph, operation: "draw transition")
        }
        do {
            outgoing = try make("buffer", "outgoing", args)
            incoming = try make("buffer", "incoming", args)
            // The duration in microseconds, which xfade rounds back to N + 1 ticks of the frame clock.
            let micros = (Rational(Int64(frames + 1)) / frameRate * 1_000_000).rounded
            let xfade = try make("xfade", "xfade", "transition=\(name):offset=0:duration=\(micros)us")
            // The sink takes the clips' own pixel format.
            sink = try FilterGraphParts.sink(format: f.format, in: graph, operation: "draw transition")
            try check(avfilter_link(outgoing, 0, xfade, 0), "draw transition")
            try check(avfilter_link(incoming, 0, xfade, 1), "draw transition")
            try check(avfilter_link(xfade, 0, sink, 0), "draw transition")
            try check(avfilter_graph_config(graph, nil), "draw transition")
        } catch {
            avfilter_graph_free(&self.graph)
            throw MediaError(
                "draw transition",
                reason:
                    """
                    FFmpeg's xfade could not draw \(name) on \(f.width)x\(f.height) \(Self.formatName(f.format)) \
                    video: \(MediaError.describe(error))
                    """
            )
        }
    }

    deinit { avfilter_graph_free(&graph) }

    /// The next frame of the window: `a` (outgoing) and `b` (incoming) blended. Both are left as they were.
    func draw(_ a: Frame, _ b: Frame) throws -> Frame {
        // xfade counts from the first frame it is given: a pair at tick 0 first, whose blend is not used.
        if !primed {
            primed = true
            _ = try blend(a, b, at: 0)
        }
        tick += 1
        return try blend(a, b, at: tick)
    }
    private var primed = false

    private func blend(_ a: Frame, _ b: Frame, at pts: Int64) throws -> Frame {
        // FFmpeg 5.1's xfade reads past a frame whose size or format changed under it: refuse instead.
        for frame in [a, b] {
            let f = frame.pointer.pointee
            guard f.width == shape.width, f.height == shape.height, f.format == shape.format else {
                throw MediaError(
                    "draw transition",
                    reason:
                        """
                        the clips' frames differ (\(shape.width)x\(shape.height) \(Self.formatName(shape.format)) \
                        and \(f.width)x\(f.height) \(Self.formatName(f.format))); --normalize re-encodes them to \
                        one format
                        """
                )
            }
        }
        for (source, frame) in [(outgoing, a), (incoming, b)] {
            let copy = try frame.clone()
            copy.pointer.pointee.pts = pts
            // The source takes the reference; the emptied frame is freed with its owner.
            try check(av_buffersrc_add_frame_flags(source, copy.pointer, 0), "draw transition")
        }
        let out = try Frame()
        try check(av_buffersink_get_frame(sink, out.pointer), "draw transition")
        return out
    }

    static func formatName(_ format: Int32) -> String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "format \(format)"
    }
}
