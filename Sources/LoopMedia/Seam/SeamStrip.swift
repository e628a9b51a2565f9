import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Paints a seam strip: the last frames and the first frames side by side with the seam marked, and under them
/// one waveform lane per channel across the seam, the jump drawn as a red bar. Mid-dark with a light frame, so it
/// reads on a light page and on a dark one.
enum SeamStrip {
    typealias Color = (UInt8, UInt8, UInt8)
    static let background: Color = (0x2a, 0x2d, 0x34)
    static let border: Color = (0x9a, 0xa0, 0xaa)
    static let lane: Color = (0x1b, 0x1d, 0x22)
    static let axis: Color = (0x4a, 0x4f, 0x58)
    static let before: Color = (0x8f, 0xd3, 0xff)
    static let after: Color = (0xb8, 0xf2, 0x9c)
    static let seam: Color = (0xff, 0xa5, 0x3a)
    static let jump: Color = (0xff, 0x4d, 0x4d)

    static let label: Color = (0xf2, 0xf4, 0xf7)

    static let margin = 8, gap = 4, seamGap = 14, laneHeight = 56, tileWidth = 160
    /// Labels are the 5x7 font at twice its size; the time axis under the waveforms is one label high.
    static let textScale = 2, axisHeight = 4 + 7 * 2 + 4
    /// The axis ticks, in milliseconds either side of the loop point.
    static let tickMilliseconds = 25

    /// A label's text for a time from the loop point: "-33 ms", "0 ms", "+67 ms" (rounded to the millisecond).
    static func milliseconds(_ seconds: Rational) -> String {
        let ms = (seconds * 1000).rounded
        return (ms > 0 ? "+" : "") + "\(ms) ms"
    }

    /// `click` and `cut` outline, in red, what the seam rules flagged (the audio at the seam, the facing frames).
    public static func draw(_ shot: SeamCapture, click: Bool = false, cut: Bool = false) -> RGBImage {
        let tiles = max(shot.lastFrames.count, shot.firstFrames.count)
        let tileHeight = (shot.lastFrames + shot.firstFrames).map(\.height).max() ?? 0
        let half = max(tiles, 3) * tileWidth + (max(tiles, 3) - 1) * gap
        let width = 2 * margin + 2 * half + seamGap
        let channels = min(max(shot.audioBefore.count, shot.audioAfter.count), 8)
        let framesHeight = tiles > 0 ? tileHeight + margin : 0
        let timeAxis = channels > 0 && shot.sampleRate != nil
        let height =
            margin + framesHeight + channels * (laneHeight + gap) + margin - (channels > 0 ? gap : 0)
            + (timeAxis ? axisHeight : 0)
        var image = RGBImage(width: width, height: max(height, 2 * margin + 4), fill: background)
        let seamX = margin + half + seamGap / 2

        // Frames: the last ones end at the seam, the first ones start after it.
        // Each labelled, in its bottom left corner, with when it starts from the loop point.
        let labelHeight = StripFont.height * textScale
        for (k, tile) in shot.lastFrames.enumerated() {
            let x = margin + half - (shot.lastFrames.count - k) * (tileWidth + gap) + gap
            blit(tile, into: &image, x: x, y: margin)
            if k < shot.lastFrameTimes.count, tile.height > labelHeight + 8 {
                StripFont.draw(
                    milliseconds(shot.lastFrameTimes[k]), into: &image, x: x + 5,
                    y: margin + tile.height - labelHeight - 2,
                    scale: textScale, label, box: background)
            }
        }
        for (k, tile) in shot.firstFrames.enumerated() {
            let x = seamX + seamGap / 2 + k * (tileWidth + gap)
            blit(tile, into: &image, x: x, y: margin)
            if k < shot.firstFrameTimes.count, tile.height > labelHeight + 8 {
                StripFont.draw(
                    milliseconds(shot.firstFrameTimes[k]), into: &image, x: x + 5,
                    y: margin + tile.height - labelHeight - 2,
                    scale: textScale, label, box: background)
            }
        }

        if cut, let a = shot.lastFrames.last, let b = shot.firstFrames.first {
            outline(&image, x: margin + half - tileWidth - 2, y: margin - 3, w: tileWidth + 4, h: a.height + 6, jump)
            outline(&image, x: seamX + seamGap / 2 - 2, y: margin - 3, w: tileWidth + 4, h: b.height + 6, jump)
        }
        // Waveforms: the last samples left of the seam, the first ones right of it, scaled to the strip's peak
        // (a quiet track still shows its shape; the HTML says the scale).
        let peak = (shot.audioBefore + shot.audioAfter).flatMap { $0 }.map { abs($0) }.max() ?? 0
        let gain: Float = peak > 0.0001 ? min(1 / peak, 64) * 0.95 : 1
        for c in 0..<channels {
            let top = margin + framesHeight + c * (laneHeight + gap)
            fill(&image, x: margin, y: top, w: width - 2 * margin, h: laneHeight, lane)
            let mid = top + laneHeight / 2
            fill(&image, x: margin, y: mid, w: width - 2 * margin, h: 1, axis)
            let scale = Float(laneHeight / 2 - 3)
            func y(_ v: Float) -> Int { mid - Int((max(-1, min(1, v * gain)) * scale).rounded()) }
            let b = c < shot.audioBefore.count ? shot.audioBefore[c] : []
            let a = c < shot.audioAfter.count ? shot.audioAfter[c] : []
            plot(b, into: &image, from: margin, to: seamX - 1, y: y, before)
            plot(a, into: &image, from: seamX + 1, to: width - margin - 1, y: y, after)
            if let last = b.last, let first = a.first {
                let (y0, y1) = (y(last), y(first))
                fill(&image, x: seamX - 1, y: min(y0, y1) - 1, w: 3, h: abs(y1 - y0) + 3, jump)
            }
            if click { outline(&image, x: seamX - 40, y: top + 1, w: 80, h: laneHeight - 2, jump) }
            // The channel's name in the lane's top left corner.
            let name = c < shot.channelNames.count ? shot.channelNames[c] : "CH\(c + 1)"
            StripFont.draw(name, into: &image, x: margin + 5, y: top + 5, scale: textScale, label, box: lane)
        }
        // The seam itself, through everything but the axis labels, and the frame around the picture.
        fill(&image, x: seamX - 1, y: 0, w: 1, h: 3, seam)
        for yy in stride(from: 0, to: image.height, by: 6) { fill(&image, x: seamX, y: yy, w: 1, h: 3, seam) }
        // The time axis (over the seam line).
        if timeAxis, let rate = shot.sampleRate, rate > 0 {
            let top = margin + framesHeight + channels * (laneHeight + gap) - gap
            drawTimeAxis(shot, rate: rate, into: &image, top: top, seamX: seamX)
        }
        fill(&image, x: 0, y: 0, w: width, h: 1, border)
        fill(&image, x: 0, y: image.height - 1, w: width, h: 1, border)
        fill(&image, x: 0, y: 0, w: 1, h: image.height, border)
        fill(&image, x: width - 1, y: 0, w: 1, h: image.height, border)
        return image
    }

    /// A tick and a label every 25 ms either side of the loop point, placed as the samples are, from `top`.
    static func drawTimeAxis(_ shot: SeamCapture, rate: Int, into image: inout RGBImage, top: Int, seamX: Int) {
        let width = image.width
        let beforeCount = shot.audioBefore.map(\.count).max() ?? 0
        let afterCount = shot.audioAfter.map(\.count).max() ?? 0
        var ticks: [(x: Int, ms: Int)] = [(seamX, 0)]
        var ms = tickMilliseconds
        while true {
            let samples = ms * rate / 1000
            var placed = false
            if beforeCount > 0, samples <= beforeCount {
                ticks.append((margin + (beforeCount - samples) * (seamX - 1 - margin) / beforeCount, -ms))
                placed = true
            }
            if afterCount > 0, samples <= afterCount {
                ticks.append((seamX + 1 + samples * (width - margin - 2 - seamX) / afterCount, ms))
                placed = true
            }
            if !placed { break }
            ms += tickMilliseconds
        }
        for tick in ticks {
            fill(&image, x: tick.x, y: top, w: 1, h: 4, border)
            let text = milliseconds(Rational(Int64(tick.ms), 1000))
            let w = StripFont.measure(text, scale: textScale)
            let x = min(max(tick.x - w / 2, margin), width - margin - w)
            StripFont.draw(text, into: &image, x: x, y: top + 6, scale: textScale, label, box: background)
        }
    }

    /// Min/max per pixel column: every sample shows, however many fall in a column.
    static func plot(
        _ samples: [Float], into image: inout RGBImage, from x0: Int, to x1: Int, y: (Float) -> Int, _ color: Color
    ) {
        guard !samples.isEmpty, x1 > x0 else { return }
        let columns = x1 - x0 + 1
        for col in 0..<columns {
            let lo = col * samples.count / columns
            let hi = max(lo + 1, (col + 1) * samples.count / columns)
            let slice = samples[lo..<min(hi, samples.count)]
            guard let mn = slice.min(), let mx = slice.max() else { continue }
            let (ya, yb) = (y(mx), y(mn))
            fill(&image, x: x0 + col, y: min(ya, yb), w: 1, h: abs(yb - ya) + 1, color)
        }
    }

    static func outline(_ image: inout RGBImage, x: Int, y: Int, w: Int, h: Int, _ color: Color) {
        for t in 0..<2 {
            fill(&image, x: x, y: y + t, w: w, h: 1, color)
            fill(&image, x: x, y: y + h - 1 - t, w: w, h: 1, color)
            fill(&image, x: x + t, y: y, w: 1, h: h, color)
            fill(&image, x: x + w - 1 - t, y: y, w: 1, h: h, color)
        }
    }

    static func blit(_ tile: RGBImage, into image: inout RGBImage, x: Int, y: Int) {
        for row in 0..<tile.height where y + row < image.height {
            for col in 0..<tile.width where x + col < image.width && x + col >= 0 {
                let s = (row * tile.width + col) * 3
                let d = ((y + row) * image.width + x + col) * 3
                image.pixels[d] = tile.pixels[s]
                image.pixels[d + 1] = tile.pixels[s + 1]
                image.pixels[d + 2] = tile.pixels[s + 2]
            }
        }
    }

    static func fill(_ image: inout RGBImage, x: Int, y: Int, w: Int, h: Int, _ color: Color) {
        for yy in max(y, 0)..<min(y + h, image.height) {
            for xx in max(x, 0)..<min(x + w, image.width) {
                let d = (yy * image.width + xx) * 3
                image.pixels[d] = color.0
                image.pixels[d + 1] = color.1
                image.pixels[d + 2] = color.2
            }
        }
    }
}

/// PNG bytes from FFmpeg's own PNG encoder.
public enum PNG {
    static func encode(_ image: RGBImage) throws -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw MediaError("encode picture", reason: "FFmpeg has no PNG encoder")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError("encode picture", code: lp_error_enomem) }
        defer {
            var c: UnsafeMutablePointer<AVCodecContext>? = ctx
            avcodec_free_context(&c)
        }
        ctx.pointee.width = Int32(image.width)
        ctx.pointee.height = Int32(image.height)
        ctx.pointee.pix_fmt = AV_PIX_FMT_RGB24
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        ctx.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        try check(avcodec_open2(ctx, codec, nil), "encode picture")
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.width = Int32(image.width)
        f.pointee.height = Int32(image.height)
        f.pointee.format = AV_PIX_FMT_RGB24.rawValue
        try check(av_frame_get_buffer(f, 0), "encode picture")
        let stride = Int(f.pointee.linesize.0)
        guard let plane = f.pointee.data.0 else { throw MediaError("encode picture", reason: "no picture buffer") }
        for row in 0..<image.height {
            image.pixels.withUnsafeBufferPointer { src in
                guard let pixels = src.baseAddress else { return }
                (plane + row * stride).update(from: pixels + row * image.width * 3, count: image.width * 3)
            }
        }
        f.pointee.pts = 0
        var bytes: [UInt8] = []
        let collect: (Packet) throws -> Void = { p in
            bytes += Array(UnsafeBufferPointer(start: p.pointer.pointee.data, count: Int(p.pointer.pointee.size)))
        }
        try sendToEncoder(ctx, frame, collect)
        try sendToEncoder(ctx, nil, collect)
        return bytes
    }
}
