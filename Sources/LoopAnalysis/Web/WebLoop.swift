/// What a web page needs to loop a clip gaplessly through Media Source Extensions: the media to append again and
/// again, and for each loop where its presentation starts on the media's own timeline and how long it lasts.
///
/// Loop k is appended with `timestampOffset = k * length - origin` and the append window
/// `[k * length, (k + 1) * length)`: every track's first presented instant lands on `k * length`, and whatever
/// the media holds outside its presented range (AAC priming before `origin`, the padding after its end) falls
/// outside the window, where the browser trims it (docs/web-player.md).
public struct WebLoop: Codable, Sendable, Equatable {
    public struct Track: Codable, Sendable, Equatable {
        public var kind: TrackKind
        public var codec: String
        /// The RFC 6381 codecs string MSE is asked for ("avc1.64001f", "mp4a.40.2", "vp9", "opus").
        public var codecs: String
        /// Where the track's first presented frame or sample is, on the media's own timeline (seconds).
        public var start: Rational
        public var startSeconds: Double
        /// What the track presents in one loop (seconds).
        public var length: Rational
        public var lengthSeconds: Double
        /// Video: frames presented per loop.
        public var frames: Int?
        /// Audio: its rate, samples presented per loop, and the encoder priming stored before `start`.
        public var sampleRate: Int?
        public var samples: Int64?
        public var primingSamples: Int64?

        public init(
            kind: TrackKind, codec: String, codecs: String, start: Rational, length: Rational, frames: Int? = nil,
            sampleRate: Int? = nil, primingSamples: Int64? = nil
        ) {
            self.kind = kind
            self.codec = codec
            self.codecs = codecs
            self.start = start
            startSeconds = start.doubleValue
            self.length = length
            lengthSeconds = length.doubleValue
            self.frames = frames
            self.sampleRate = sampleRate
            samples = sampleRate.map { (length * Int64($0)).rounded }
            self.primingSamples = primingSamples
        }

        /// The track with its first presented instant at `start` on the media's timeline.
        public func starting(at start: Rational) -> Track {
            var track = self
            track.start = start
            track.startSeconds = start.doubleValue
            return track
        }
    }

    /// One loop's append: the offset MSE adds to the media's times and the window it keeps.
    public struct Append: Sendable, Equatable {
        public var timestampOffset: Rational
        public var windowStart: Rational
        public var windowEnd: Rational
    }

    /// One file appended through its own SourceBuffer, and the MIME type with codecs MSE is asked for
    /// (`MediaSource.isTypeSupported`, `addSourceBuffer`).
    public struct Source: Codable, Sendable, Equatable {
        public var media: String
        public var mime: String

        public init(media: String, mime: String) {
            self.media = media
            self.mime = mime
        }
    }

    public var format = "loopprep-web-loop"
    public var version = 1
    /// The files appended for every loop, beside the manifest: a fragmented MP4 per track (one SourceBuffer
    /// each, so neither track's trimming at the window touches the other's frames), or the WebM itself.
    public var sources: [Source]
    /// The loop-ready file a page without MSE plays with `<video loop>`.
    public var fallback: String
    /// Where every track's presentation starts on the media's own timeline (seconds).
    public var origin: Rational
    public var originSeconds: Double
    /// One loop (seconds): every track presents exactly this much.
    public var length: Rational
    public var lengthSeconds: Double
    public var tracks: [Track]

    /// The MIME type of a file holding `tracks` in `container` (mp4, webm), with their codecs strings.
    public static func mime(container: String, tracks: [Track]) -> String {
        let kind = tracks.contains { $0.kind == .video } ? "video" : "audio"
        return "\(kind)/\(container); codecs=\"\(tracks.map(\.codecs).joined(separator: ", "))\""
    }

    public init(sources: [Source], fallback: String, origin: Rational, length: Rational, tracks: [Track]) {
        self.sources = sources
        self.fallback = fallback
        self.origin = origin
        originSeconds = origin.doubleValue
        self.length = length
        lengthSeconds = length.doubleValue
        self.tracks = tracks
    }

    /// Loop `k` (from 0): each track's first presented instant at `k * length`, the window one loop long.
    public func append(_ k: Int) -> Append {
        let start = length * Int64(k)
        return Append(timestampOffset: start - origin, windowStart: start, windowEnd: start + length)
    }
}
