import LoopAnalysis
import LoopIndex

/// A candidate's seam as a picture, drawn as analyze draws a file's seam: the loop's last three frames, the seam,
/// its first three (in colour when a second decode gave them, else the search's own grey thumbnails enlarged to a
/// 160-wide tile), with their times from the loop point and the sound either side.
enum LoopStrip {
    /// `times`: each frame's start; `seam`: colour tiles and the audio either side of the seam
    /// (LoopSearch.seamPictures), drawn as analyze draws a file's seam.
    public static func png(
        _ frames: [FrameSignature], _ c: LoopCandidate, times: [Rational] = [],
        seam: LoopSearch.SeamPictures? = nil, clickThreshold: Double = SeamAudioClick.threshold
    ) throws -> [UInt8] {
        func tile(_ k: Int) -> RGBImage? {
            if let image = seam?.tiles[k] { return image }
            guard k >= 0, k < frames.count, frames[k].luma.count == Thumbnail.width * Thumbnail.height else {
                return nil
            }
            let w = 160
            let h = 90
            var image = RGBImage(width: w, height: h)
            for y in 0..<h {
                for x in 0..<w {
                    let v = frames[k].luma[(y * Thumbnail.height / h) * Thumbnail.width + x * Thumbnail.width / w]
                    let i = 3 * (y * w + x)
                    image.pixels[i] = v
                    image.pixels[i + 1] = v
                    image.pixels[i + 2] = v
                }
            }
            return image
        }
        var shot = SeamCapture()
        let last = Array(max(c.outFrame - 3, 0)..<c.outFrame)
        let first = Array(c.inFrame..<min(c.inFrame + 3, frames.count))
        shot.lastFrames = last.compactMap(tile)
        shot.firstFrames = first.compactMap(tile)
        // Times from the loop point: the last frames before it (negative), the first from 0.
        if times.count == frames.count, c.outFrame <= times.count {
            let end = c.end
            shot.lastFrameTimes = last.map { times[$0] - end }
            shot.firstFrameTimes = first.map { times[$0] - c.start }
        }
        if let seam, let before = seam.before[c.end], let after = seam.after[c.start] {
            shot.audioBefore = before
            shot.audioAfter = after
            shot.channelNames = seam.channelNames
            shot.sampleRate = seam.rate
        }
        return try PNG.encode(
            SeamStrip.draw(shot, click: c.audioJump > clickThreshold, cut: !c.seamless))
    }
}
