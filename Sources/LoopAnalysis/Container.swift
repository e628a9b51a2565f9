/// A file's container, with what each can do: one case and one row of properties per container, so a new one is
/// a case, its row and its importer, and every `switch` over it says what is left to decide. In a report it is its
/// short name ("mp4", "webm", or FFmpeg's demuxer name for the rest).
public enum Container: Sendable, Hashable {
    /// ISO-BMFF: an MP4 (any brand but QuickTime's) and a QuickTime movie.
    case mp4, mov
    /// Matroska, and WebM (Matroska whose DocType is webm).
    case matroska, webm
    case ogg
    /// MPEG transport and program streams.
    case mpegts, mpegps
    case flv, avi
    case wav, flac, mp3, aiff, caf
    /// Raw AAC in ADTS frames.
    case adts
    /// Any other FFmpeg demuxer, by its name.
    case other(String)

    /// From a report's name (FFmpeg's demuxer names for the unnamed ones).
    public init(name: String) {
        switch name {
        case "mp4": self = .mp4
        case "mov": self = .mov
        case "matroska": self = .matroska
        case "webm": self = .webm
        case "ogg": self = .ogg
        case "mpegts": self = .mpegts
        case "mpeg": self = .mpegps
        case "flv": self = .flv
        case "avi": self = .avi
        case "wav": self = .wav
        case "flac": self = .flac
        case "mp3": self = .mp3
        case "aiff": self = .aiff
        case "caf": self = .caf
        case "aac": self = .adts
        default: self = .other(name)
        }
    }

    /// The container a file's name says (its extension); nil for a name that says none loopprep tells apart.
    public init?(extension ext: String) {
        guard let container = Self.byExtension[ext.lowercased()] else { return nil }
        self = container
    }

    /// Every extension loopprep takes as media, with the container it names: the one table the folder walk, an
    /// output's name, `--to` and the pre-commit hook read.
    public static let byExtension: [String: Container] = [
        "mp4": .mp4, "m4v": .mp4, "m4a": .mp4, "3gp": .mp4, "mov": .mov, "qt": .mov, "mkv": .matroska,
        "mka": .matroska, "webm": .webm, "ogg": .ogg, "ogv": .ogg, "oga": .ogg, "ogm": .ogg, "opus": .ogg,
        "ts": .mpegts, "mts": .mpegts, "m2ts": .mpegts, "mpg": .mpegps, "mpeg": .mpegps, "vob": .mpegps, "flv": .flv,
        "avi": .avi, "wav": .wav, "flac": .flac, "mp3": .mp3, "aac": .adts, "caf": .caf,
    ]

    /// Whether FFmpeg's muxer for it takes a subtitle track of `codec` copied: Matroska the text and picture
    /// subtitles it reads, WebM WebVTT alone, MP4 and MOV their own timed text.
    public func takesSubtitles(_ codec: String) -> Bool {
        switch self {
        case .matroska: ["subrip", "ass", "ssa", "webvtt", "hdmv_pgs_subtitle", "dvd_subtitle", "text"].contains(codec)
        case .webm: codec == "webvtt"
        case .mp4, .mov: codec == "mov_text"
        case .ogg, .mpegts, .mpegps, .flv, .avi, .wav, .flac, .mp3, .aiff, .caf, .adts, .other: false
        }
    }

    /// A container stitch writes its reels in (and loop its blended loops): the one an output's name says.
    public var isRendered: Bool { [.mp4, .mov, .matroska, .webm].contains(self) }

    /// The extension a file of it is usually named with (nil for one loopprep does not name).
    public var fileExtension: String? {
        switch self {
        case .matroska: "mkv"
        case .mpegts: "ts"
        case .mpegps: "mpg"
        case .mp4, .mov, .webm, .ogg, .flv, .avi, .wav, .flac, .mp3, .aiff, .caf, .adts: name
        case .other: nil
        }
    }

    /// The container an FFmpeg muxer writes ("ipod": an MP4).
    public init(muxer: Muxer) { self = muxer.container }

    /// The short name reports give it (FFmpeg's demuxer name where it has no other).
    public var name: String {
        switch self {
        case .mp4: "mp4"
        case .mov: "mov"
        case .matroska: "matroska"
        case .webm: "webm"
        case .ogg: "ogg"
        case .mpegts: "mpegts"
        case .mpegps: "mpeg"
        case .flv: "flv"
        case .avi: "avi"
        case .wav: "wav"
        case .flac: "flac"
        case .mp3: "mp3"
        case .aiff: "aiff"
        case .caf: "caf"
        case .adts: "aac"
        case .other(let name): name
        }
    }

    /// ISO-BMFF (MP4, MOV): edit lists, any tick of a movie timescale.
    public var isISO: Bool { self == .mp4 || self == .mov }
    /// Matroska or WebM: no edit list, millisecond times, a Segment Duration.
    public var isMatroska: Bool { self == .matroska || self == .webm }

    /// Whether a cover picture a file carries (an attached picture) is written back by the muxer: MP3's ID3 APIC,
    /// FLAC's PICTURE block, Matroska's attachment, an MP4's covr (written by the muxer from another container's
    /// picture; an MP4's or MOV's own is copied with the rest of its user data). FFmpeg's MOV muxer writes none (a
    /// Matroska cover written --to mov came out without it).
    public var keepsAttachedPictures: Bool { self == .mp3 || self == .flac || self == .matroska || self == .mp4 }
    /// Whether a file's attached files (fonts, scripts) have a place: Matroska's attachments (FFmpeg's WebM muxer
    /// passes over them).
    public var keepsAttachedFiles: Bool { self == .matroska }
    /// Whether the muxer writes a file's tag of this name (FFmpeg's, in any case: Matroska's are upper case):
    /// every tag in Matroska, Ogg, FLAC and MP3 (their tags take any name); in MP4 and MOV only those FFmpeg's muxer
    /// has a box for (MP4's iTunes list, MOV's © strings), as its 5.1 writes and reads them back.
    public func keepsTag(_ name: String) -> Bool {
        switch self {
        case .mp4: Self.mp4Tags.contains(name.lowercased())
        case .mov: Self.movTags.contains(name.lowercased())
        case .matroska, .webm, .ogg, .mpegts, .mpegps, .flv, .avi, .wav, .flac, .mp3, .aiff, .caf, .adts, .other: true
        }
    }
    /// Tags every muxer writes anew: the writing application, and an MP4's own brands (kept as tags by FFmpeg's
    /// reading of an MP4 converted to Matroska).
    public static func writtenAnew(_ name: String) -> Bool {
        ["encoder", "major_brand", "minor_version", "compatible_brands"].contains(name.lowercased())
    }
    static let mp4Tags: Set<String> = [
        "creation_time", "title", "artist", "album_artist", "composer", "album", "date", "comment", "genre",
        "copyright", "grouping", "lyrics", "description", "synopsis", "show", "episode_id", "network", "keywords",
        "episode_sort", "season_number", "media_type", "hd_video", "gapless_playback", "compilation", "track", "disc",
    ]
    static let movTags: Set<String> = [
        "creation_time", "title", "artist", "album", "date", "comment", "genre", "copyright", "make", "model",
        "location",
    ]

    /// Whether chapters are written: ISO-BMFF's chapter track and Nero list, Matroska's and WebM's Chapters.
    public var keepsChapters: Bool { isISO || isMatroska }

    /// Whether its tracks can be cut finer than a tick of their own clock: ISO-BMFF by its edit lists, Ogg by its
    /// granules (whole frames, whole samples), AVI by its counts of frames and packets.
    public var cutsFinerThanItsClock: Bool {
        switch self {
        case .mp4, .mov, .ogg, .avi: true
        case .matroska, .webm, .mpegts, .mpegps, .flv, .wav, .flac, .mp3, .aiff, .caf, .adts, .other: false
        }
    }

    /// fix writes it in its own kind (any other cannot say a trim or a priming).
    public var keptByFix: Bool {
        switch self {
        case .mp4, .mov, .matroska, .webm, .wav, .flac, .ogg: true
        case .mpegts, .mpegps, .flv, .avi, .mp3, .aiff, .caf, .adts, .other: false
        }
    }

    /// A video container fix rewrites as an MP4 or MOV: no edit list to say a trim.
    public var convertedByFix: Bool {
        switch self {
        case .mpegts, .mpegps, .flv, .avi: true
        case .mp4, .mov, .matroska, .webm, .ogg, .wav, .flac, .mp3, .aiff, .caf, .adts, .other: false
        }
    }

    /// FFmpeg's muxer that writes it again as it is (an MP4 named .m4a or .m4v: the iPod flavour); nil where
    /// loopprep writes it as an MP4 instead.
    public func muxer(forExtension ext: String) -> Muxer? {
        if self == .mp4, ["m4a", "m4v"].contains(ext.lowercased()) { return .ipod }
        return Muxer.allCases.first { $0 != .ipod && $0.container == self }
    }
}

/// An FFmpeg muxer loopprep writes with, by FFmpeg's name: a closed set, so a container added is finished in every
/// place that writes one (the compiler lists them).
public enum Muxer: String, Codable, Sendable, CaseIterable {
    case mp4, ipod, mov, matroska, webm, wav, flac, ogg, mp3

    /// The container it writes ("ipod" is an MP4 named .m4a or .m4v).
    public var container: Container {
        switch self {
        case .mp4, .ipod: .mp4
        case .mov: .mov
        case .matroska: .matroska
        case .webm: .webm
        case .wav: .wav
        case .flac: .flac
        case .ogg: .ogg
        case .mp3: .mp3
        }
    }
}

extension Container: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(name: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}

extension Container: CustomStringConvertible {
    public var description: String { name }
}
