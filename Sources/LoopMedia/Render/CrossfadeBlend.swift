import CFFmpeg
import LoopAnalysis
import LoopIndex

/// A crossfade drawn on the clips' own planes, with xfade's weights and rounding: window frame k (from 0) of N is
/// `a * p + b * (1 - p)` per sample, p = 1 - (k + 1) / (N + 1), truncated to 8 bits, as FFmpeg's xfade `fade`
/// computes it. FFmpeg 5.1's xfade takes only 4:4:4 and RGB formats, so a 4:2:0 clip went through three
/// conversions per blended frame (chroma up for both clips, down for the result: 28-35 ms a 1080p frame here,
/// with xfade's blend); blending the 4:2:0 planes themselves takes a few milliseconds and softens no chroma.
final class CrossfadeBlend: TransitionDrawer {
    private let frames: Int
    private var tick: Int64
    private let shape: (width: Int32, height: Int32, format: Int32)
    var position: Int { Int(tick) }

    init(frames: Int, like frame: Frame, from first: Int = 0) {
        self.frames = frames
        tick = Int64(first)
        shape = (frame.pointer.pointee.width, frame.pointer.pointee.height, frame.pointer.pointee.format)
    }

    /// 8-bit planar YUV (with or without alpha, any chroma subsampling) or gray.
    static func takes(_ format: Int32) -> Bool {
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return false }
        let d = desc.pointee
        let excluded = UInt64(
            AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL)
        guard d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0 || d.nb_components == 1, d.flags & excluded == 0 else {
            return false
        }
        let components = [d.comp.0, d.comp.1, d.comp.2, d.comp.3].prefix(Int(d.nb_components))
        // One component a plane, each a byte a sample.
        return components.allSatisfy { $0.depth == 8 && $0.step == 1 && $0.shift == 0 && $0.offset == 0 }
            && Int(av_pix_fmt_count_planes(AVPixelFormat(rawValue: format))) == Int(d.nb_components)
    }

    func draw(_ a: Frame, _ b: Frame) throws -> Frame {
        for frame in [a, b] {
            let f = frame.pointer.pointee
            guard f.width == shape.width, f.height == shape.height, f.format == shape.format else {
                throw MediaError(
                    "draw transition",
                    reason: """
                        the clips' frames differ (\(shape.width)x\(shape.height) \
                        \(TransitionGraph.formatName(shape.format)) and \(f.width)x\(f.height) \
                        \(TransitionGraph.formatName(f.format))); --normalize re-encodes them to one format
                        """)
            }
        }
        tick += 1
        let progress = max(0, min(1, 1 - Float(tick) / Float(frames + 1)))
        let out = try Frame()
        let o = out.pointer
        o.pointee.width = shape.width
        o.pointee.height = shape.height
        o.pointee.format = shape.format
        try check(av_frame_get_buffer(o, 0), "draw transition")
        try check(av_frame_copy_props(o, a.pointer), "draw transition")
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: shape.format)) else {
            throw MediaError("draw transition", reason: "unknown pixel format \(shape.format)")
        }
        let planes = Int(av_pix_fmt_count_planes(AVPixelFormat(rawValue: shape.format)))
        let (sx, sy) = (Int32(desc.pointee.log2_chroma_w), Int32(desc.pointee.log2_chroma_h))
        let chroma = desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && planes >= 3
        for p in 0..<planes {
            // Planes 1 and 2 of YUV are the subsampled chroma; luma and alpha are whole.
            let sub = chroma && (p == 1 || p == 2)
            let width = Int(sub ? -((-shape.width) >> sx) : shape.width)
            let height = Int(sub ? -((-shape.height) >> sy) : shape.height)
            try Self.blend(plane: p, of: a, b, into: out, width: width, height: height, progress: progress)
        }
        return out
    }

    private static func blend(
        plane p: Int, of a: Frame, _ b: Frame, into out: Frame, width: Int, height: Int, progress: Float
    ) throws {
        let planeA = withUnsafePointer(to: a.pointer.pointee.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[p] }
        }
        let planeB = withUnsafePointer(to: b.pointer.pointee.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[p] }
        }
        let planeO = withUnsafePointer(to: out.pointer.pointee.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[p] }
        }
        let strides = [a, b, out].map { frame in
            withUnsafePointer(to: frame.pointer.pointee.linesize) {
                $0.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[p]) }
            }
        }
        guard let pa = planeA, let pb = planeB, let po = planeO else {
            throw MediaError("draw transition", reason: "a frame has no plane \(p)")
        }
        let rest = 1 - progress
        for y in 0..<height {
            let ra = pa + y * strides[0]
            let rb = pb + y * strides[1]
            let ro = po + y * strides[2]
            for x in 0..<width { ro[x] = mix(ra[x], rb[x], progress, rest) }
        }
    }

    /// xfade's mix(a, b, p) = a * p + b * (1 - p), stored by truncation, with no conversion that can trap (a
    /// checked Float-to-UInt8 conversion keeps the compiler from blending many samples at once: 8.8 ms a 1080p
    /// frame, 1.7 ms so): the sum, at most 255 and never negative, plus 2^23 holds it rounded to the nearest
    /// integer in its low mantissa bits; one less where that rounded up is its truncation.
    @inline(__always)
    static func mix(_ a: UInt8, _ b: UInt8, _ progress: Float, _ rest: Float) -> UInt8 {
        let sum = Float(a) * progress + Float(b) * rest
        let nearest = (sum + 8_388_608).bitPattern & 0xff
        return UInt8(truncatingIfNeeded: Float(nearest) > sum ? nearest &- 1 : nearest)
    }
}
