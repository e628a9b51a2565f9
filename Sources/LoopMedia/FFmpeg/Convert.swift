import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Owns a swscale context that fits frames of any size and pixel format into a target size and format, keeping
/// their aspect ratio (black bars, centred), for --normalize; a picture shown turned (a phone's portrait clip, by its
/// display matrix) is turned as it is shown first.
final class FrameFitter {
    let width: Int32, height: Int32, format: AVPixelFormat
    /// The colour every picture is converted to, where it has another (the first clip's).
    let colour: VideoColour?
    /// The picture's scaler, for one fitted size (a source of another shape gets another).
    private var scaler: ScaleContext?
    /// The colour converter, for one source colour, size and format.
    private var converter: (ColourConverter, Int32, Int32, Int32)?

    init(width: Int32, height: Int32, format: Int32, colour: VideoColour? = nil) {
        self.width = width
        self.height = height
        self.format = AVPixelFormat(rawValue: format)
        self.colour = colour
    }

    /// `frame` in the target's size, format and colour, its pixels first turned `turn` degrees clockwise (0, 90,
    /// 180 or 270): fitted into the target's turned shape, then turned.
    func fit(_ frame: Frame, turn: Int = 0) throws -> Frame {
        guard turn != 0 else { return try fit(frame, width: width, height: height) }
        let sideways = turn == 90 || turn == 270
        return try PictureTurn.turned(
            try fit(frame, width: sideways ? height : width, height: sideways ? width : height), by: turn)
    }

    private func fit(_ frame: Frame, width: Int32, height: Int32) throws -> Frame {
        let frame = try inColour(frame)
        let f = frame.pointer.pointee
        if f.width == width && f.height == height && f.format == format.rawValue { return frame }
        // The largest even-sized picture of the source's shape that fits the target.
        let scale = min(Double(width) / Double(f.width), Double(height) / Double(f.height))
        let w = Int32(Double(f.width) * scale / 2) * 2
        let h = Int32(Double(f.height) * scale / 2) * 2
        let x0 = (width - w) / 4 * 2
        let y0 = (height - h) / 4 * 2
        let sized =
            scaler.flatMap { $0.width == w && $0.height == h ? $0 : nil }
            ?? ScaleContext(width: w, height: h, format: format, flags: lp_sws_bicubic)
        scaler = sized
        let out = try Frame()
        let o = out.pointer
        o.pointee.width = width
        o.pointee.height = height
        o.pointee.format = format.rawValue
        o.pointee.color_range = f.color_range
        try check(av_frame_get_buffer(o, 0), "scale frame")
        guard let desc = av_pix_fmt_desc_get(format) else {
            throw MediaError("scale frame", reason: "unknown pixel format")
        }
        // Black everywhere, then the picture in the middle.
        let planes = Int(desc.pointee.nb_components)
        var dst: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var strides: [Int32] = [0, 0, 0, 0]
        let data = o.pointee.data
        let lines = o.pointee.linesize
        let bases = [data.0, data.1, data.2, data.3]
        let linesizes = [lines.0, lines.1, lines.2, lines.3]
        for p in 0..<min(planes, 3) {
            let sx = p == 0 ? 0 : Int32(desc.pointee.log2_chroma_w)
            let sy = p == 0 ? 0 : Int32(desc.pointee.log2_chroma_h)
            let black: UInt8 = p == 0 ? (f.color_range == AVCOL_RANGE_JPEG ? 0 : 16) : 128
            let rows = Int(-((-height) >> sy))
            guard let base = bases[p] else { throw MediaError("scale frame", reason: "no picture buffer") }
            base.update(repeating: black, count: Int(linesizes[p]) * rows)
            dst[p] = base + Int(y0 >> sy) * Int(linesizes[p]) + Int(x0 >> sx)
            strides[p] = linesizes[p]
        }
        try sized.scale(frame, into: &dst, strides: &strides)
        let c = frame.pointer.pointee
        (o.pointee.color_primaries, o.pointee.color_trc, o.pointee.colorspace) = (
            c.color_primaries, c.color_trc, c.colorspace
        )
        return out
    }

    /// The picture in the target colour (converted where its own differs), in the target's pixel format.
    private func inColour(_ frame: Frame) throws -> Frame {
        let own = frame.colour
        guard let colour, own.differs(from: colour) else { return frame }
        let f = frame.pointer.pointee
        if let (converter, w, h, pix) = converter, converter.from == own, w == f.width, h == f.height, pix == f.format {
            return try converter.convert(frame)
        }
        let made = try ColourConverter(like: frame, from: own, to: colour, format: format.rawValue)
        converter = (made, f.width, f.height, f.format)
        return try made.convert(frame)
    }
}

/// A picture's pixels turned by a multiple of 90 degrees clockwise, plane by plane (a planar format whose chroma is
/// subsampled alike both ways: 4:2:0, 4:4:4, grey; 8 to 16 bits), its tags kept.
enum PictureTurn {
    /// Whether pictures in `format` can be turned: planar, chroma subsampled alike both ways, in planes of its own
    /// (NV12's interleaved pairs would be turned as single samples).
    static func turns(_ format: Int32) -> Bool {
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return false }
        let d = desc.pointee
        return (d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0 || d.nb_components == 1)
            && d.log2_chroma_w == d.log2_chroma_h && (d.nb_components < 3 || d.comp.1.plane != d.comp.2.plane)
    }

    /// The pixel format's name, as FFmpeg gives it.
    static func name(_ format: Int32) -> String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "\(format)"
    }

    static func turned(_ frame: Frame, by turn: Int) throws -> Frame {
        let f = frame.pointer.pointee
        guard turns(f.format), let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.format)) else {
            throw MediaError(
                "turn picture",
                reason: "loopprep turns 4:2:0 and 4:4:4 pictures only, and this one is \(name(f.format))")
        }
        let sideways = turn == 90 || turn == 270
        let out = try Frame()
        let o = out.pointer
        o.pointee.width = sideways ? f.height : f.width
        o.pointee.height = sideways ? f.width : f.height
        o.pointee.format = f.format
        try check(av_frame_get_buffer(o, 0), "turn picture")
        try check(av_frame_copy_props(o, frame.pointer), "turn picture")
        let shift = Int32(desc.pointee.log2_chroma_w)
        let bytes = Int(desc.pointee.comp.0.step)
        let source = [f.data.0, f.data.1, f.data.2, f.data.3]
        let sourceLines = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        let target = [o.pointee.data.0, o.pointee.data.1, o.pointee.data.2, o.pointee.data.3]
        let targetLines = [o.pointee.linesize.0, o.pointee.linesize.1, o.pointee.linesize.2, o.pointee.linesize.3]
        for p in 0..<4 {
            guard let from = source[p], let to = target[p] else { continue }
            let chroma = p == 1 || p == 2
            // A plane's size: chroma rounded up, as FFmpeg sizes it.
            let w = Int(chroma ? -((-f.width) >> shift) : f.width)
            let h = Int(chroma ? -((-f.height) >> shift) : f.height)
            let plane = Plane(width: w, height: h, inLine: Int(sourceLines[p]), outLine: Int(targetLines[p]))
            if bytes == 2 {
                plane.turn(UInt16.self, from: from, to: to, by: turn)
            } else {
                plane.turn(UInt8.self, from: from, to: to, by: turn)
            }
        }
        return out
    }

    /// One plane's size and line lengths (bytes), source and target.
    struct Plane {
        var width: Int, height: Int, inLine: Int, outLine: Int

        /// The plane's samples of type `T` turned `turn` degrees clockwise: a sample at (x, y) goes to (h-1-y, x)
        /// for 90, (w-1-x, h-1-y) for 180, (y, w-1-x) for 270.
        func turn<T>(_: T.Type, from: UnsafeMutablePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, by turn: Int) {
            let (w, h) = (width, height)
            for y in 0..<h {
                let row = UnsafeRawPointer(from + y * inLine).assumingMemoryBound(to: T.self)
                for x in 0..<w {
                    let (tx, ty) =
                        switch turn {
                        case 90: (h - 1 - y, x)
                        case 180: (w - 1 - x, h - 1 - y)
                        default: (y, w - 1 - x)
                        }
                    UnsafeMutableRawPointer(to + ty * outLine).assumingMemoryBound(to: T.self)[tx] = row[x]
                }
            }
        }
    }
}

/// Owns a swresample context: planar float samples at one rate and channel count to another, for --normalize.
final class Resampler {
    private var context: OpaquePointer?
    let outChannels: Int

    init(fromRate: Int, fromChannels: Int, toRate: Int, toChannels: Int) throws {
        var inLayout = AVChannelLayout()
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(fromChannels))
        av_channel_layout_default(&outLayout, Int32(toChannels))
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        try check(
            swr_alloc_set_opts2(
                &context, &outLayout, AV_SAMPLE_FMT_FLTP, Int32(toRate), &inLayout, AV_SAMPLE_FMT_FLTP,
                Int32(fromRate), 0, nil), "resample")
        try check(swr_init(context), "resample")
        outChannels = toChannels
    }
    deinit { swr_free(&context) }

    /// Converts a chunk (nil drains the resampler's delay).
    func convert(_ chunk: [[Float]]?) throws -> [[Float]] {
        let inCount = chunk?.first?.count ?? 0
        let capacity = Int(swr_get_out_samples(context, Int32(inCount))) + 32
        // Buffers swresample can hold on to for the call only: allocated here, copied in and out.
        let ins = (chunk ?? []).map { channel -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: max(channel.count, 1))
            p.update(from: channel, count: channel.count)
            return p
        }
        let outs = (0..<outChannels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
        defer {
            for p in ins + outs { p.deallocate() }
        }
        var outPointers: [UnsafeMutablePointer<UInt8>?] = outs.map {
            UnsafeMutableRawPointer($0).assumingMemoryBound(to: UInt8.self)
        }
        var inPointers: [UnsafePointer<UInt8>?] = ins.map {
            UnsafePointer(UnsafeMutableRawPointer($0).assumingMemoryBound(to: UInt8.self))
        }
        let produced: Int32
        if chunk == nil {
            produced = try check(swr_convert(context, &outPointers, Int32(capacity), nil, 0), "resample")
        } else {
            produced = try check(
                swr_convert(context, &outPointers, Int32(capacity), &inPointers, Int32(inCount)), "resample")
        }
        return outs.map { Array(UnsafeBufferPointer(start: $0, count: Int(produced))) }
    }
}
