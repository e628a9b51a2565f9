import CFFmpeg

/// A small grey picture of a frame, for comparing frames cheaply (the seam check).
public struct Thumbnail: Sendable, Equatable {
    public static let width = 64, height = 36
    public var luma: [UInt8]

    /// Mean absolute difference, 0-255.
    public func difference(_ other: Thumbnail) -> Double {
        var sum = 0
        for (a, b) in zip(luma, other.luma) { sum += abs(Int(a) - Int(b)) }
        return Double(sum) / Double(max(luma.count, 1))
    }
}

/// Owns a swscale context that shrinks frames of one size and format to a Thumbnail.
final class Scaler {
    private var context: OpaquePointer?
    private var key: (Int32, Int32, Int32) = (0, 0, -1)

    deinit { sws_freeContext(context) }

    func thumbnail(_ frame: Frame) throws -> Thumbnail {
        let f = frame.pointer.pointee
        if context == nil || key != (f.width, f.height, f.format) {
            sws_freeContext(context)
            context = sws_getContext(f.width, f.height, AVPixelFormat(rawValue: f.format),
                                     Int32(Thumbnail.width), Int32(Thumbnail.height), AV_PIX_FMT_GRAY8,
                                     SWS_AREA, nil, nil, nil)
            key = (f.width, f.height, f.format)
        }
        guard let context else { throw MediaError("scale frame", reason: "unsupported pixel format or size") }
        var luma = [UInt8](repeating: 0, count: Thumbnail.width * Thumbnail.height)
        var srcData = frame.pointer.pointee.data
        var srcStride = frame.pointer.pointee.linesize
        let h = try luma.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var dst: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var dstStride: [Int32] = [Int32(Thumbnail.width), 0, 0, 0]
            return try withUnsafePointer(to: &srcData) { dataTuple in
                try withUnsafePointer(to: &srcStride) { strideTuple in
                    let src = UnsafeRawPointer(dataTuple).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                    let stride = UnsafeRawPointer(strideTuple).assumingMemoryBound(to: Int32.self)
                    return try check(sws_scale(context, src, stride, 0, f.height, &dst, &dstStride), "scale frame")
                }
            }
        }
        guard h > 0 else { throw MediaError("scale frame", reason: "no output rows") }
        return Thumbnail(luma: luma)
    }
}
