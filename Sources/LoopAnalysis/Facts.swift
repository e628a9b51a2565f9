public enum TrackKind: String, Codable, Sendable {
    case video, audio, subtitle, data, attachment, unknown
}

/// A time in a track's own ticks (exact; may be fractional when an edit does not land on a tick) and in seconds
/// (for people; never used for a decision).
public struct TimeFigure: Codable, Sendable, Equatable {
    public var ticks: Rational
    public var seconds: Double

    public init(seconds exact: Rational, timeBase: Rational) {
        ticks = exact / timeBase
        seconds = exact.doubleValue
    }
}

/// How the encoder delay (AAC priming, Opus pre-skip) is handled by the container.
public struct PrimingFacts: Codable, Sendable, Equatable {
    /// Samples skipped at the start, when the container says how many.
    public var samples: Int64?
    public var signalled: Bool
    /// "edit list", "skip samples", "codec header" or "none".
    public var method: String

    public init(samples: Int64?, signalled: Bool, method: String) {
        self.samples = samples
        self.signalled = signalled
        self.method = method
    }

    /// Apple's AAC encoders prime 2112 samples; a skip beyond that also trims content.
    public static let largestKnownDelay: Int64 = 2112
}

/// What the codec parameters say about a track; filled by the media layer.
public struct TrackBasics: Sendable, Equatable {
    public var index: Int
    public var trackID: Int?
    public var kind: TrackKind
    public var codec: String
    public var profile: String?
    /// The container's four-character code for the codec (MP4 sample entry: hvc1 or hev1, avc1 or avc3).
    public var codecTag: String?
    public var width: Int?
    public var height: Int?
    public var sampleRate: Int?
    public var channels: Int?
    /// Clockwise degrees, 0..<360.
    public var rotation: Int?
    /// The stream's own frame-rate claim (used when the timeline's ticks are too coarse to tell).
    public var declaredFrameRate: Rational?
    /// Codec-level encoder delay in samples (Opus pre-skip), if the codec header carries it.
    public var codecDelay: Int64?
    public var language: String?
    /// The priming a track's own tag says was removed from its packets (LOOPPREP_PRIMING, written by fix where
    /// the container has no edit list: Matroska): such a track starts on content.
    public var primingRemoved: Int64?
    /// Video: how many frames the stream may hold back to show them in another order than it stores them, as
    /// FFmpeg's analysis of its headers and first frames says (0: shown as stored); nil where not analysed.
    public var reorderDepth: Int?
    /// H.264: a sequence parameter set the configuration record holds beyond the profile and level the record
    /// names (a Baseline avcC holding a High-profile SPS), as "High 3.0"; nil where every set is within them.
    public var beyondEntry: String?
    /// Audio: FFmpeg here has no encoder for the codec (AMR-NB, WMA Pro...): it cannot be encoded again.
    public var noEncoder: Bool?

    public init(
        index: Int, trackID: Int? = nil, kind: TrackKind, codec: String, profile: String? = nil,
        width: Int? = nil, height: Int? = nil, sampleRate: Int? = nil, channels: Int? = nil,
        rotation: Int? = nil, declaredFrameRate: Rational? = nil, codecDelay: Int64? = nil, language: String? = nil
    ) {
        self.index = index
        self.trackID = trackID
        self.kind = kind
        self.codec = codec
        self.profile = profile
        self.width = width
        self.height = height
        self.sampleRate = sampleRate
        self.channels = channels
        self.rotation = rotation
        self.declaredFrameRate = declaredFrameRate
        self.codecDelay = codecDelay
        self.language = language
    }
}

/// Facts of one track, exact, in the track's own units as well as seconds.
public struct TrackFacts: Codable, Sendable, Equatable {
    public var index: Int
    public var trackID: Int?
    public var kind: TrackKind
    public var codec: String
    public var profile: String?
    /// The container's four-character code for the codec (hvc1, hev1...), where it has one.
    public var codecTag: String?
    /// Video: frames the stream may hold back to reorder them (TrackBasics.reorderDepth), where analysed.
    public var reorderDepth: Int?
    /// H.264: a parameter set beyond what the sample entry names (TrackBasics.beyondEntry).
    public var beyondEntry: String?
    /// A QuickTime timecode track: the time its first sample says (HH:MM:SS:FF, HH:MM:SS;FF dropping frames).
    public var timecode: String?
    /// Audio: no encoder for the codec in the FFmpeg loopprep runs on (TrackBasics.noEncoder).
    public var noEncoder: Bool?
    public var language: String?
    /// MP4/MOV: how many sample descriptions the track's stsd holds (more than one: its samples change codec
    /// configuration midway, which only FFmpeg's muxer rewrites); nil elsewhere.
    public var sampleDescriptions: Int?
    public var timeBase: Rational
    /// The presented range on the movie timeline, after edit lists.
    public var start: TimeFigure
    public var end: TimeFigure
    public var duration: TimeFigure
    /// Exact seconds, for rules (the TimeFigures are for people).
    public var startSeconds: Rational
    public var durationSeconds: Rational
    public var endSeconds: Rational { startSeconds + durationSeconds }
    public var packetCount: Int
    public var edits: [Edit]?

    // Video
    public var width: Int?
    public var height: Int?
    public var rotation: Int?
    public var frameRate: Rational?
    public var frameCount: Int?
    public var firstFrameIsKeyframe: Bool?
    public var keyframeCount: Int?
    public var maxKeyframeInterval: TimeFigure?
    /// The last presented frame's length where the file does not say it (a recording's last Matroska block):
    /// seconds, as loopprep decides it (the commonest step between frames) and fix writes it. nil: the file says it.
    public var decidedLastFrame: Rational?
    /// Duration of the last presented frame when it differs from the nominal frame duration, in ticks.
    public var lastFrameDuration: Int64?
    public var nominalFrameDuration: Int64?
    /// A frame rate that varies (a screen recording's frames at 30 and then 15 fps, a phone's): the shortest and
    /// longest step between presented frames, where they differ by more than a tick. nil: a constant rate.
    public var variableFrameRate: FrameSteps?
    /// Decode steps a muxer bumped a tick after a repeated decode time (read laid a frame apart:
    /// `BumpedDecodeTimes`). nil: none.
    public var relaidDecodeTimes: Int?

    // Audio
    public var sampleRate: Int?
    public var channels: Int?
    /// Presented samples (exact; fractional when an edit ends between samples).
    public var sampleCount: Rational?
    public var priming: PrimingFacts?
    /// Codecs with a fixed frame length (AAC, MP3, AC-3): stored durations that are not that length.
    public var irregularDurations: IrregularDurations?
    /// The irregular durations fix writes anew as the codec's frame (its length and the sample rate known).
    public var rewrittenDurations: IrregularDurations? {
        irregularDurations?.frameTicks != nil && sampleRate != nil ? irregularDurations : nil
    }

    /// Packets a capture clock stamped away from where the decoder plays them, read laid end to end
    /// (`SampleClock`); fix writes them so. nil: none.
    public var relaidStamps: Int?

    /// Holes and overlaps in presentation order (at most `TrackFacts.breakLimit` listed).
    public var timingBreaks: [TimingBreak]
    public var timingBreakCount: Int

    public static let breakLimit = 20

    /// Seconds of one video frame at the nominal rate.
    public var frameSeconds: Rational? { frameRate.map { $0.reciprocal } }
}

/// The shortest and longest step between a video's presented frames.
public struct FrameSteps: Codable, Sendable, Equatable {
    public var shortest: TimeFigure
    public var longest: TimeFigure

    public init(shortest: TimeFigure, longest: TimeFigure) {
        self.shortest = shortest
        self.longest = longest
    }

    /// Whether steps of `shortest` to `longest` ticks are a rate that varies: more than two ticks and 2% apart. A
    /// clock's rounding is one rate: a millisecond clock's 33 and 34 ms at 30 fps, presentation times a tick off
    /// on a 90 kHz clock (3002 to 3004 ticks at 29.97 fps).
    public static func vary(shortest: Int64, longest: Int64) -> Bool {
        longest - shortest > 2 && (longest - shortest) * 50 > shortest
    }
}

/// Frames of a fixed-frame-length audio codec whose stored duration is another length.
public struct IrregularDurations: Codable, Sendable, Equatable {
    public var count: Int
    /// The codec's frame length, in the track's ticks.
    public var frameTicks: Int64?
    /// The largest difference from it, in ticks (negative: shorter).
    public var largestDeviation: Int64

    public init(count: Int, frameTicks: Int64?, largestDeviation: Int64) {
        self.count = count
        self.frameTicks = frameTicks
        self.largestDeviation = largestDeviation
    }
}

public struct SeamFacts: Codable, Sendable, Equatable {
    /// Mean absolute luma difference (0-255, on a 64x36 image) between the last presented frame and the first.
    public var videoDifference: Double?
    /// The same between the last two presented frames: how much the picture moves anyway.
    public var videoMotion: Double?
    /// The same between neighbouring frames around the seam (the last two transitions, the first two): how much
    /// the clip itself moves there, for footage that hardly moves (SeamVisualJump).
    public var motionAround: [Double]?
    /// Per channel: how far the first sample lands from where the last samples were heading (full scale = 1).
    public var audioJump: [Double]?
    /// Per channel: how much sharper the wave turns across the wrap (its largest second difference within a few
    /// samples of it) than anywhere else in the 50 ms on either side (full scale = 1): a click an encoder spreads
    /// over several samples, which the jump's two samples a side miss.
    public var audioWrap: [Double]?
    /// Per channel: the largest jump, by the same measure as `audioJump`, anywhere in the 50 ms on either side of the
    /// wrap: how far the wave jumps on its own (a tone hardly, white noise and dense music as far as a click).
    public var audioRoughness: [Double]?
    /// The picture's structure at the seam (SeamStructure): the last frame against the first (1 - SSIM), and
    /// the frame pairs around it (the last two transitions, the first two).
    public var structure: SeamStructureFigures?

    public init(videoDifference: Double? = nil, videoMotion: Double? = nil, audioJump: [Double]? = nil) {
        self.videoDifference = videoDifference
        self.videoMotion = videoMotion
        self.audioJump = audioJump
    }
}

/// The seam's and its neighbours' dissimilarity (1 - SSIM on the 64x36 luma).
public struct SeamStructureFigures: Codable, Sendable, Equatable {
    public var seam: Double
    public var neighbours: [Double]
    public init(seam: Double, neighbours: [Double]) {
        self.seam = seam
        self.neighbours = neighbours
    }
}

/// A declared audio or video track with nothing to present.
public struct EmptyTrack: Codable, Sendable, Equatable {
    public var index: Int
    public var kind: TrackKind
    public var codec: String
    public init(index: Int, kind: TrackKind, codec: String) {
        self.index = index
        self.kind = kind
        self.codec = codec
    }
}

/// Facts of one file.
public struct ClipFacts: Codable, Sendable, Equatable {
    public var path: String
    /// Matroska or WebM (no edit list; millisecond times; a Segment Duration).
    public var isMatroska: Bool { container.isMatroska }
    /// An MP4 or a MOV (ISO-BMFF, by its file type).
    public var isISO: Bool { container.isISO }
    /// The container a plan writes: Matroska turned into what --to asks (MP4, MOV), any other its own.
    public func container(convertedTo asked: Muxer?) -> Container {
        isMatroska ? (asked?.container ?? container) : container
    }

    /// Short container family: "mp4", "mov", "matroska", "webm", or FFmpeg's demuxer name.
    public var container: Container
    public var formatName: String
    public var fileSize: Int64
    /// ISO-BMFF only: whether the movie box precedes the media data (nil: not ISO-BMFF, or no mdat).
    public var moovBeforeMdat: Bool?
    public var movieTimescale: Int64?
    /// The container's own length, which players give the whole movie: ISO-BMFF's movie header (mvhd), Matroska's
    /// Segment Duration (seconds, exact; `movieTimescale` is then the Duration's ticks a second).
    public var movieDuration: Rational?
    public var fragmented: Bool?
    /// Matroska and WebM: whether the file has Cues, the index a player seeks by (nil: not Matroska).
    public var cues: Bool?
    /// What a file carries beside its tracks, where its container says (Matroska): the names of its attached files
    /// and pictures, and its chapters (nil: none read).
    public var attachedFiles: [String]?
    public var attachedPictures: [String]?
    public var chapterCount: Int?
    /// Streams FFmpeg shows beside the tracks whose timing loopprep does not read, in a file no MP4 or MOV (an Ogg
    /// skeleton, a DVD's navigation packets, another data stream), by what they are; nil: none.
    public var otherStreams: [String]?
    /// The file's own tags (FFmpeg's names for them: title, creator, software...), where it is no MP4 or MOV (whose
    /// user data is copied whole); nil: none.
    public var tags: [String]?
    public var tracks: [TrackFacts]
    /// Audio and video tracks the file declares but that present nothing: no samples, or an edit list that
    /// shows none of them. nil when there are none (so reports of whole files stay as they were).
    public var emptyTracks: [EmptyTrack]?
    public var seam: SeamFacts?
    /// A cover picture (MP4 covr, an attached picture): nil when there is none.
    public var coverArt: Bool?
    /// Containers whose clock does not start at 0 (MPEG-TS and -PS start at an arbitrary PCR-based time, FLV
    /// recordings where the stream was joined): the time, in seconds, taken as 0 (where the first track starts).
    /// Only the offsets between tracks mean anything there.
    public var clockOrigin: Rational?

    public init(
        path: String, container: Container, formatName: String, fileSize: Int64, moovBeforeMdat: Bool? = nil,
        movieTimescale: Int64? = nil, fragmented: Bool? = nil, tracks: [TrackFacts], emptyTracks: [EmptyTrack]? = nil,
        seam: SeamFacts? = nil
    ) {
        self.path = path
        self.container = container
        self.formatName = formatName
        self.fileSize = fileSize
        self.moovBeforeMdat = moovBeforeMdat
        self.movieTimescale = movieTimescale
        self.fragmented = fragmented
        self.tracks = tracks
        self.emptyTracks = emptyTracks
        self.seam = seam
    }

    public var videoTracks: [TrackFacts] { tracks.filter { $0.kind == .video } }
    public var audioTracks: [TrackFacts] { tracks.filter { $0.kind == .audio } }
    /// The picture the player loops on: the first video track.
    public var mainVideo: TrackFacts? { videoTracks.first }

    /// The finest difference the container can express between tracks: the finest end each track can be cut
    /// to, not the coarsest clock in the file. ISO-BMFF edit lists trim to any tick of a movie timescale
    /// loopprep chooses, and Ogg counts granules (whole frames, whole samples: the last page's granule ends the
    /// audio on any sample), so there is none; other containers without edit lists (Matroska, WebM:
    /// milliseconds) cannot place a track finer than one tick of its time base. AVI's clocks are each track's own
    /// frame and packet (1/25 s, 1152/44100 s): counts, never rounded, and fix writes an AVI that needs a cut as
    /// MP4, whose edit lists place it to the sample.
    public var timestampResolution: Rational {
        guard moovBeforeMdat == nil, !container.cutsFinerThanItsClock else { return .zero }
        return tracks.filter { $0.kind == .video || $0.kind == .audio }.map(\.timeBase).max() ?? .zero
    }
    public var mainAudio: TrackFacts? { audioTracks.first }
}
