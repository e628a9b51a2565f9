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

/// An RGB picture (8 bits a channel, rows packed).
public struct RGBImage: Sendable, Equatable {
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
}

/// Owns a swscale context that converts frames (of whatever size and format) to one output size and format.
final class Scaler {
    private let context: ScaleContext
    let width: Int, height: Int
    let bytesPerPixel: Int

    init(width: Int, height: Int, format: AVPixelFormat = AV_PIX_FMT_GRAY8) {
        self.width = width
        self.height = height
        bytesPerPixel = format == AV_PIX_FMT_RGB24 ? 3 : 1
        context = ScaleContext(width: Int32(width), height: Int32(height), format: format, flags: lp_sws_area)
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

    func thumbnail(_ frame: Frame) throws -> Thumbnail { Thumbnail(luma: try scale(frame)) }
    func image(_ frame: Frame) throws -> RGBImage { RGBImage(width: width, height: height, pixels: try scale(frame)) }
}
