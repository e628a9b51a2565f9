import CFFmpeg
import LoopIndex

/// Owns one swscale context for a fixed output size, format and filter, made again when the source's size or
/// format changes. The context is held as a raw pointer (the shim's `lp_sws_*`): FFmpeg 8 made it a public
/// struct, so Swift would see a different type on each side of that version.
final class ScaleContext {
    let width: Int32, height: Int32, format: AVPixelFormat, flags: Int32
    private var context: UnsafeMutableRawPointer?
    private var key: (Int32, Int32, Int32) = (0, 0, -1)

    init(width: Int32, height: Int32, format: AVPixelFormat, flags: Int32) {
        self.width = width
        self.height = height
        self.format = format
        self.flags = flags
    }
    deinit { lp_sws_free(context) }

    /// Scales all of `frame` into the planes `dst` (with `strides`); returns the rows written.
    @discardableResult
    func scale(_ frame: Frame, into dst: inout [UnsafeMutablePointer<UInt8>?], strides: inout [Int32]) throws -> Int32 {
        let f = frame.pointer.pointee
        if context == nil || key != (f.width, f.height, f.format) {
            lp_sws_free(context)
            context = lp_sws_get(f.width, f.height, AVPixelFormat(rawValue: f.format), width, height, format, flags)
            key = (f.width, f.height, f.format)
        }
        guard let context else { throw MediaError("scale frame", reason: "unsupported pixel format or size") }
        var srcData = f.data
        var srcStride = f.linesize
        let rows = try withUnsafePointer(to: &srcData) { dataTuple in
            try withUnsafePointer(to: &srcStride) { strideTuple in
                let src = UnsafeRawPointer(dataTuple).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                let stride = UnsafeRawPointer(strideTuple).assumingMemoryBound(to: Int32.self)
                return try check(lp_sws_scale(context, src, stride, 0, f.height, &dst, &strides), "scale frame")
            }
        }
        guard rows > 0 else { throw MediaError("scale frame", reason: "no output rows") }
        return rows
    }
}
