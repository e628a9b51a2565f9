import CFFmpeg
import LoopAnalysis
import LoopIndex

/// A small grey picture of a frame, for comparing frames cheaply (the seam check).
struct Thumbnail: Sendable, Equatable {
    public static let width = 64, height = 36
    public var luma: [UInt8]
    /// Cb then Cr, 32x18 each: a hue cut at one brightness is invisible to the luma alone.
    public var chroma: [UInt8] = []

    /// The seam's picture step, as loop ranks and analyze judges it (SeamPicture.difference): 0-255.
    public func difference(_ other: Thumbnail) -> Double {
        SeamPicture.difference(luma, chroma, other.luma, other.chroma)
    }
}

/// An RGB picture (8 bits a channel, rows packed).
struct RGBImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            pixels[3 * i] = fill.0
            pixels[3 * i + 1] = fill.1
            pixels[3 * i + 2] = fill.2
        }
    }
    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The picture as a display matrix shows it: turned `degrees` clockwise (multiples of 90; others as is).
    public func rotated(clockwise degrees: Int) -> RGBImage {
        let turn = ((degrees % 360) + 360) % 360
        guard [90, 180, 270].contains(turn) else { return self }
        let (w, h) = turn == 180 ? (width, height) : (height, width)
        var out = RGBImage(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                // The source pixel each output pixel shows.
                let (sx, sy) =
                    switch turn {
                    case 90: (y, height - 1 - x)
                    case 180: (width - 1 - x, height - 1 - y)
                    default: (width - 1 - y, x)
                    }
                let (o, i) = (3 * (y * w + x), 3 * (sy * width + sx))
                out.pixels[o] = pixels[i]
                out.pixels[o + 1] = pixels[i + 1]
                out.pixels[o + 2] = pixels[i + 2]
            }
        }
        return out
    }
}

/// Owns a swscale context that converts frames (of whatever size and format) to one output size and format.
final class Scaler {
    private let context: ScaleContext
    let width: Int, height: Int
    let bytesPerPixel: Int

    /// Planar 4:2:0 (luma, then Cb and Cr at half the size each way) unless an RGB or grey format is asked for.
    let planar: Bool

    init(width: Int, height: Int, format: AVPixelFormat = AV_PIX_FMT_YUV420P) {
        self.width = width
        self.height = height
        bytesPerPixel = format == AV_PIX_FMT_RGB24 ? 3 : 1
        planar = format == AV_PIX_FMT_YUV420P
        context = ScaleContext(width: Int32(width), height: Int32(height), format: format, flags: lp_sws_area)
    }

    /// A frame's luma and chroma (planar scalers only), for the seam's and the loop finder's pictures.
    func planes(_ frame: Frame) throws -> (luma: [UInt8], chroma: [UInt8]) {
        let (cw, ch) = (width / 2, height / 2)
        var luma = [UInt8](repeating: 0, count: width * height)
        var cb = [UInt8](repeating: 0, count: cw * ch)
        var cr = cb
        try luma.withUnsafeMutableBufferPointer { y in
            try cb.withUnsafeMutableBufferPointer { u in
                try cr.withUnsafeMutableBufferPointer { v in
                    var dst: [UnsafeMutablePointer<UInt8>?] = [y.baseAddress, u.baseAddress, v.baseAddress, nil]
                    var strides: [Int32] = [Int32(width), Int32(cw), Int32(cw), 0]
                    _ = try context.scale(frame, into: &dst, strides: &strides)
                }
            }
        }
        return (luma, cb + cr)
    }

    func scale(_ frame: Frame) throws -> [UInt8] {
        let stride = width * bytesPerPixel
        var out = [UInt8](repeating: 0, count: stride * height)
        try out.withUnsafeMutableBufferPointer { buffer in
            var dst: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(stride), 0, 0, 0]
            try context.scale(frame, into: &dst, strides: &strides)
        }
        return out
    }

    func thumbnail(_ frame: Frame) throws -> Thumbnail {
        let (luma, chroma) = try planes(frame)
        return Thumbnail(luma: luma, chroma: chroma)
    }
    func image(_ frame: Frame) throws -> RGBImage { RGBImage(width: width, height: height, pixels: try scale(frame)) }
}
