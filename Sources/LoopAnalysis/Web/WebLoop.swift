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
        /// Audio encoded again for the web copy over the loop repeated (ContinuousOpus): its first packet follows
        /// the loop's last, as the browser's decoder meets them.
        public var loopContinuous: Bool?

        /// The track presenting from 0 on the media's timeline (`starting(at:)` moves it).
        public init(
            kind: TrackKind, codec: String, codecs: String, length: Rational, frames: Int? = nil,
            sampleRate: Int? = nil, primingSamples: Int64? = nil
        ) {
            self.kind = kind
            self.codec = codec
            self.codecs = codecs
            start = .zero
            startSeconds = 0
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
        /// Loops one append of this file holds (absent: one). It is appended at every `loops`-th loop k, with
        /// the offset of loop k and the window `[k * length, (k + loops) * length)`.
        public var loops: Int?
        /// What the first append (loop 0) takes instead of `media`, where they differ: audio encoded again over
        /// the loop repeated starts from a cold decoder there, and its later appends follow its own last packet.
        public var first: String?
        /// What `first` holds before its first presented sample (seconds: the encoder's delay in whole frames,
        /// its pre-roll): its append is placed that much earlier, where the window drops it.
        public var firstLead: Rational?

        public init(
            media: String, mime: String, loops: Int? = nil, first: String? = nil, firstLead: Rational? = nil
        ) {
            self.media = media
            self.mime = mime
            self.loops = loops.flatMap { $0 > 1 ? $0 : nil }
            self.first = first
            self.firstLead = first == nil ? nil : firstLead
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

    /// Loop `k` (from 0): each track's first presented instant at `k * length`, the window `loops` loops long;
    /// `lead`: what the appended file holds before its first presented instant beyond `origin` (a source's
    /// `firstLead`).
    public func append(_ k: Int, loops: Int = 1, lead: Rational = .zero) -> Append {
        let start = length * Int64(k)
        return Append(
            timestampOffset: start - origin - lead, windowStart: start, windowEnd: start + length * Int64(loops))
    }
}
