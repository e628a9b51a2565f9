import CFFmpeg
import LoopAnalysis

/// The transitions, drawn on planar 8-bit YUV frames (what H.264 and HEVC decode to): a dissolve, a dip to
/// black, and the four slides (the next clip pushes the current one out).
enum Blend {
    /// Writes the transition between `a` (outgoing) and `b` (incoming) at progress `t` in (0, 1) into `out`.
    static func draw(_ kind: TransitionKind, a: Frame, b: Frame, t: Double, into out: Frame) throws {
        let format = AVPixelFormat(rawValue: a.pointer.pointee.format)
        guard let desc = av_pix_fmt_desc_get(format), desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0,
              desc.pointee.comp.0.depth == 8, desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 else {
            throw MediaError("draw transition", reason: "transitions need 8-bit planar YUV video")
        }
        let full = a.pointer.pointee.color_range == AVCOL_RANGE_JPEG
        let planes = Int(desc.pointee.nb_components)
        let width = Int(a.pointer.pointee.width), height = Int(a.pointer.pointee.height)
        for p in 0..<min(planes, 3) {
            let w = p == 0 ? width : -((-width) >> Int(desc.pointee.log2_chroma_w))
            let h = p == 0 ? height : -((-height) >> Int(desc.pointee.log2_chroma_h))
            let black: UInt8 = p == 0 ? (full ? 0 : 16) : 128
            let sa = plane(a, p), sb = plane(b, p), so = plane(out, p)
            switch kind {
            case .crossfade, .none:
                mix(sa, sb, so, w, h, Float(t))
            case .fadeBlack:
                // First half: the outgoing clip fades to black; second half: the incoming one fades in.
                if t < 0.5 { mixBlack(sa, so, w, h, Float(2 * t), black) } else { mixBlack(sb, so, w, h, Float(2 - 2 * t), black) }
            case .slideLeft, .slideRight:
                let shift = Int((Double(w) * t).rounded())
                for y in 0..<h {
                    for x in 0..<w {
                        let v: UInt8
                        if kind == .slideLeft { v = x + shift < w ? sa.at(x + shift, y) : sb.at(x + shift - w, y) }
                        else { v = x - shift >= 0 ? sa.at(x - shift, y) : sb.at(x - shift + w, y) }
                        so.set(x, y, v)
                    }
                }
            case .slideUp, .slideDown:
                let shift = Int((Double(h) * t).rounded())
                for y in 0..<h {
                    let (src, row): (PlaneView, Int)
                    if kind == .slideUp { (src, row) = y + shift < h ? (sa, y + shift) : (sb, y + shift - h) }
                    else { (src, row) = y - shift >= 0 ? (sa, y - shift) : (sb, y - shift + h) }
                    so.row(y).update(from: src.row(row), count: w)
                }
            }
        }
    }

    struct PlaneView {
        let base: UnsafeMutablePointer<UInt8>
        let stride: Int
        func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * stride }
        func at(_ x: Int, _ y: Int) -> UInt8 { base[y * stride + x] }
        func set(_ x: Int, _ y: Int, _ v: UInt8) { base[y * stride + x] = v }
    }

    static func plane(_ f: Frame, _ p: Int) -> PlaneView {
        let data = f.pointer.pointee.data, lines = f.pointer.pointee.linesize
        let base = [data.0, data.1, data.2][p]!
        return PlaneView(base: base, stride: Int([lines.0, lines.1, lines.2][p]))
    }

    /// Integer weights out of 256: the same result as the float mix to within rounding, several times faster.
    static func mix(_ a: PlaneView, _ b: PlaneView, _ o: PlaneView, _ w: Int, _ h: Int, _ t: Float) {
        let wb = UInt32((t * 256).rounded()), wa = 256 - wb
        for y in 0..<h {
            let ra = a.row(y), rb = b.row(y), ro = o.row(y)
            for x in 0..<w { ro[x] = UInt8(truncatingIfNeeded: (UInt32(ra[x]) &* wa &+ UInt32(rb[x]) &* wb &+ 128) >> 8) }
        }
    }

    /// `amount` of black over the plane.
    static func mixBlack(_ a: PlaneView, _ o: PlaneView, _ w: Int, _ h: Int, _ amount: Float, _ black: UInt8) {
        let wb = UInt32((amount * 256).rounded()), wa = 256 - wb, base = UInt32(black) &* wb &+ 128
        for y in 0..<h {
            let ra = a.row(y), ro = o.row(y)
            for x in 0..<w { ro[x] = UInt8(truncatingIfNeeded: (UInt32(ra[x]) &* wa &+ base) >> 8) }
        }
    }
}
