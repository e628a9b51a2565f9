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
    /// The drawer for `transition`: a crossfade of 8-bit planar YUV is blended here, on the clips' own planes (one
    /// of another format by xfade's fade); every other transition is xfade's.
    static func drawer(
        transition kind: TransitionKind, frames: Int, like frame: Frame, frameRate: Rational, from first: Int
    ) throws -> TransitionDrawer {
        let name: String
        switch kind.drawing {
        case .crossfade where CrossfadeBlend.takes(frame.pointer.pointee.format):
            return CrossfadeBlend(frames: frames, like: frame, from: first)
        case .crossfade: name = "fade"
        case .xfade(let xfade): name = xfade
        }
        return try TransitionGraph(transition: name, frames: frames, like: frame, frameRate: frameRate, from: first)
    }
}
