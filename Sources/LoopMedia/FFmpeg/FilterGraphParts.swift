import CFFmpeg
import LoopIndex

/// The parts every libavfilter graph of loopprep's is made of (a transition's, a colour conversion's): a filter
/// made by name in a graph, and a buffer sink that gives frames back in one pixel format. `operation` names what
/// the graph is for in an error.
enum FilterGraphParts {
    static func filter(
        _ name: String, named label: String, args: String?, in graph: UnsafeMutablePointer<AVFilterGraph>,
        operation: String
    ) throws -> UnsafeMutablePointer<AVFilterContext> {
        var ctx: UnsafeMutablePointer<AVFilterContext>?
        try check(avfilter_graph_create_filter(&ctx, avfilter_get_by_name(name), label, args, nil, graph), operation)
        guard let ctx else { throw MediaError(operation, reason: "FFmpeg made no \(name) filter") }
        return ctx
    }

    /// A buffer sink constrained to `format` before it is initialised (a sink takes any format otherwise).
    static func sink(format: Int32, in graph: UnsafeMutablePointer<AVFilterGraph>, operation: String) throws
        -> UnsafeMutablePointer<AVFilterContext>
    {
        guard let out = avfilter_graph_alloc_filter(graph, avfilter_get_by_name("buffersink"), "out") else {
            throw MediaError(operation, code: lp_error_enomem)
        }
        try check(lp_buffersink_accept_pixel_format(out, AVPixelFormat(rawValue: format)), operation)
        try check(avfilter_init_str(out, nil), operation)
        return out
    }
}
