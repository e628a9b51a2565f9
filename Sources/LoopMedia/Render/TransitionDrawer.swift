import LoopAnalysis

/// What draws a join's window, frame by frame: libavfilter's xfade (TransitionGraph), or for a crossfade of 8-bit
/// planar YUV, CrossfadeBlend.
protocol TransitionDrawer: AnyObject {
    /// The window frame the next draw makes (0-based).
    var position: Int { get }
    /// The next frame of the window: `a` (outgoing) and `b` (incoming) blended. Both are left as they were.
    func draw(_ a: Frame, _ b: Frame) throws -> Frame
}

extension TransitionGraph: TransitionDrawer {
    /// The drawer for `transition` (xfade's name): a crossfade of 8-bit planar YUV is blended here, on the clips'
    /// own planes; everything else is xfade's.
    static func drawer(transition name: String, frames: Int, like frame: Frame, frameRate: Rational, from first: Int)
        throws -> TransitionDrawer
    {
        if name == "fade", CrossfadeBlend.takes(frame.pointer.pointee.format) {
            return CrossfadeBlend(frames: frames, like: frame, from: first)
        }
        return try TransitionGraph(transition: name, frames: frames, like: frame, frameRate: frameRate, from: first)
    }
}
