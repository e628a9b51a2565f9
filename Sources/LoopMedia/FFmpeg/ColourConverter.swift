import CFFmpeg
import CFFmpegLoader
import LoopAnalysis
import LoopIndex

/// Owns a libavfilter graph that converts pictures of one colour to another (stitch --normalize: every clip in the
/// first clip's colour, so the reel's tags describe its pixels). zimg's zscale converts primaries, transfer, matrix
/// and range; where HDR meets SDR the picture goes through linear light, its gamut is mapped, and FFmpeg's tonemap
/// (Hable's curve) brings PQ or HLG down to SDR; SDR goes into HLG or PQ at its reference white (100 nits).
final class ColourConverter {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    let from: VideoColour
    let to: VideoColour

    /// `like`: a decoded frame of the source (size, pixel format, aspect); `format`: the pixel format wanted.
    init(like frame: Frame, from: VideoColour, to: VideoColour, format: Int32) throws {
        self.from = from
        self.to = to
        let steps = try Self.chain(from: from, to: to, format: format)
        guard lp_ffmpeg_filters_available() != 0, let graph = avfilter_graph_alloc() else {
            throw MediaError(
                "convert colour",
                reason: "colour is converted by FFmpeg's libavfilter, which cannot be loaded; install it")
        }
        self.graph = graph
        graph.pointee.nb_threads = 1
        let f = frame.pointer.pointee
        let sar = f.sample_aspect_ratio.num > 0 ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        let args =
            "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=1/25:pixel_aspect=\(sar.num)/\(sar.den)"
        func make(_ filter: String, _ name: String, _ args: String?) throws -> UnsafeMutablePointer<AVFilterContext> {
            try FilterGraphParts.filter(filter, named: name, args: args, in: graph, operation: "convert colour")
        }
        do {
            source = try make("buffer", "in", args)
            sink = try FilterGraphParts.sink(format: format, in: graph, operation: "convert colour")
            var last = source
            for (n, step) in steps.enumerated() {
                let next = try make(step.filter, "\(step.filter)\(n)", step.args)
                try check(avfilter_link(last, 0, next, 0), "convert colour")
                last = next
            }
            try check(avfilter_link(last, 0, sink, 0), "convert colour")
            try check(avfilter_graph_config(graph, nil), "convert colour")
        } catch {
            avfilter_graph_free(&self.graph)
            throw MediaError(
                "convert colour",
                reason: "FFmpeg's zscale could not convert \(from) to \(to): \(MediaError.describe(error))")
        }
    }

    deinit { avfilter_graph_free(&graph) }

    /// The picture in the target colour (the frame itself is left as it was).
    func convert(_ frame: Frame) throws -> Frame {
        let copy = try frame.clone()
        try check(av_buffersrc_add_frame_flags(source, copy.pointer, 0), "convert colour")
        let out = try Frame()
        try check(av_buffersink_get_frame(sink, out.pointer), "convert colour")
        out.pointer.pointee.pts = frame.pointer.pointee.pts
        return out
    }

    /// The filters, in zscale's names. A field the source leaves unnamed is taken as BT.709's (HD) and limited
    /// range, as players take it.
    static func chain(from: VideoColour, to: VideoColour, format: Int32) throws -> [(filter: String, args: String)] {
        let a = try ZimgNames(from)
        let b = try ZimgNames(to)
        let input = "primariesin=\(a.primaries):transferin=\(a.transfer):matrixin=\(a.matrix):rangein=\(a.range)"
        let output = "primaries=\(b.primaries):transfer=\(b.transfer):matrix=\(b.matrix):range=\(b.range)"
        let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "\(format)"
        let pixels = ("format", "pix_fmts=\(name)")
        guard from.isHDR && !to.isHDR else {
            return [("zscale", "\(input):\(output):dither=error_diffusion"), pixels]
        }
        // HDR to SDR: linear light (PQ's 10,000 nits over a 100-nit reference), the target's gamut, Hable's curve.
        return [
            ("zscale", "\(input):transfer=linear:npl=100"), ("format", "pix_fmts=gbrpf32le"),
            ("zscale", "primaries=\(b.primaries)"), ("tonemap", "tonemap=hable:desat=0"),
            ("zscale", "\(output):dither=error_diffusion"), pixels,
        ]
    }

    /// How a conversion treats the picture's brightness, for a report: "" between two SDR (or two HDR) colours.
    static func how(from: VideoColour, to: VideoColour) -> String {
        if from.isHDR && !to.isHDR { return ", tone-mapped to SDR" }
        if !from.isHDR && to.isHDR { return ", its white at HDR's 100-nit reference" }
        return ""
    }

    /// A colour in zimg's vocabulary (zscale's option values), refused in words where zimg has no name for it.
    struct ZimgNames {
        var primaries: String
        var transfer: String
        var matrix: String
        var range: String

        init(_ c: VideoColour) throws {
            let primaries = [
                "bt709": "709", "bt2020": "2020", "smpte170m": "170m", "smpte240m": "240m",
                "bt470bg": "bt470bg", "bt470m": "bt470m", "smpte432": "smpte432", "smpte431": "smpte431",
                "film": "film",
            ]
            let transfer = [
                "bt709": "709", "smpte170m": "601", "bt2020-10": "2020_10", "bt2020-12": "2020_12",
                "smpte2084": "smpte2084", "arib-std-b67": "arib-std-b67", "iec61966-2-1": "iec61966-2-1",
                "linear": "linear", "bt470m": "bt470m", "bt470bg": "bt470bg", "smpte240m": "240m",
            ]
            let matrix = [
                "bt709": "709", "bt2020nc": "2020_ncl", "bt2020c": "2020_cl", "smpte170m": "170m",
                "bt470bg": "470bg", "smpte240m": "240m", "fcc": "fcc", "gbr": "gbr", "ycgco": "ycgco",
            ]
            func look(_ table: [String: String], _ value: String?, _ what: String) throws -> String {
                guard let value else { return table["bt709"] ?? "709" }
                guard let name = table[value] else {
                    throw MediaError(
                        "convert colour",
                        reason: "loopprep cannot convert pictures whose \(what) is \(value); stitch them apart")
                }
                return name
            }
            self.primaries = try look(primaries, c.primaries, "colour primaries")
            self.transfer = try look(transfer, c.transfer, "transfer")
            self.matrix = try look(matrix, c.matrix, "matrix")
            range = c.range == "pc" ? "full" : "limited"
        }
    }
}
