import CFFmpeg
import LoopAnalysis
import LoopIndex

/// What the seam looks and sounds like, for people: the last and first presented frames as small colour
/// pictures, and the audio just before and just after the loop point, per channel.
struct SeamCapture: Sendable {
    public static let frames = 3
    public static let audioSeconds = Rational(1, 20)
    public var lastFrames: [RGBImage] = []
    public var firstFrames: [RGBImage] = []
    /// Per channel, ending at the last presented sample.
    public var audioBefore: [[Float]] = []
    /// Per channel, starting at the first presented sample.
    public var audioAfter: [[Float]] = []
    /// Where each frame of `lastFrames` and `firstFrames` starts, in seconds from the loop point (the last ones
    /// negative, the first one 0 where the video starts the loop).
    public var lastFrameTimes: [Rational] = []
    public var firstFrameTimes: [Rational] = []
    /// The audio's channel names (FL, FR...) and sample rate, for the strip's labels and time axis.
    public var channelNames: [String] = []
    public var sampleRate: Int?
}

/// Measures the loop seam: the last presented video frame against the first, the last presented audio samples
/// against the first. Decodes only what that needs: from the start until the first frame of each track, then
/// from the last keyframe before the end to the end, flushing the decoders (their held-back frames are the seam).
/// With `capture`, it also keeps what a picture of the seam needs, from the same decoding.
enum SeamProbe {
    /// `input` must not have been read yet (the probe reopens the file when it had to read packets).
    public static func measure(_ input: InputFile, facts: ClipFacts) throws -> SeamFacts {
        try measure(input, facts: facts, capture: false).seam
    }

    /// `span`: the seam a player makes looping only that part of the clip (a loop range: its start and end in
    /// seconds on the clip's presented timeline), measured as the file's own seam is: the last frames and samples
    /// presented before `span.end` against the first at `span.start` (the frame showing then). nil: the whole clip.
    /// `given`: the clip's first and last pictures as its source's decoding gave them (loop's written cut): where the
    /// first pictures decoded here are those, the last are taken from it and the tail's video is not decoded.
    /// `seen`: what an earlier reading of the same file decoded (`pictures`: this reading's, for a later one).
    static func measure(
        _ input: InputFile, facts: ClipFacts, capture: Bool, span: (start: Rational, end: Rational)? = nil,
        given: SourcePictures? = nil, seen: SeamPictures? = nil
    ) throws -> (seam: SeamFacts, capture: SeamCapture?, pictures: SeamPictures?) {
        let reader = try SeamReader(input, facts: facts, capture: capture, span: span, given: given, seen: seen)
        try reader.readHead()
        try reader.readTail()
        return (reader.figures(), capture ? reader.shot : nil, reader.pictures)
    }

    /// Tiles 160 pixels wide as the picture is displayed (sample aspect ratio applied, even height): a clip a
    /// display matrix turns a quarter (an iPhone's portrait video) is scaled to 160 tall as coded, then turned.
    static func tileScaler(_ v: TrackFacts) -> Scaler {
        let w = max(v.width ?? 16, 1)
        let h = max(v.height ?? 9, 1)
        let quarter = [90, 270].contains(((v.rotation ?? 0) % 360 + 360) % 360)
        let (across, down) = quarter ? (h, w) : (w, h)
        let displayed = min(max(2, Int((160.0 * Double(down) / Double(across) / 2).rounded()) * 2), 320)
        return quarter
            ? Scaler(width: displayed, height: 160, format: AV_PIX_FMT_RGB24)
            : Scaler(width: 160, height: displayed, format: AV_PIX_FMT_RGB24)
    }
}
