import LoopAnalysis

/// A candidate's seam as a picture, from the search's own signatures (the same measurement as its scores): the
/// loop's last three frames, the seam, its first three, each grey thumbnail enlarged to a 160-wide tile.
public enum LoopStrip {
    public static func png(_ frames: [FrameSignature], _ c: LoopCandidate) throws -> [UInt8] {
        func tile(_ k: Int) -> RGBImage? {
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
        shot.lastFrames = (c.outFrame - 3..<c.outFrame).compactMap(tile)
        shot.firstFrames = (c.inFrame..<c.inFrame + 3).compactMap(tile)
        return try PNG.encode(SeamStrip.draw(shot, cut: c.pictureDifference >= 10))
    }
}
