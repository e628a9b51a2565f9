import Foundation

/// The span of a clip, as it is, that loops cleanly: where every track has media, on the video frame grid, in the
/// clip's own presented timeline (edit lists applied, as AVFoundation and ExoPlayer read it); exactly what
/// `loopprep fix` would keep. For media that cannot be rewritten: pass it to the player instead (AVPlayerLooper's
/// `timeRange`, ExoPlayer's `ClippingMediaSource`). Written by `loopprep analyze` (`loopRange` in `json` and `jsonl`,
/// and `--format ranges`); this library decodes it. Pure Swift and Foundation.
public struct LoopRange: Codable, Sendable, Equatable {
    /// Exact rational seconds as strings ("1/5", "1001/500", "2"): the start, and the length.
    public var start: String
    public var duration: String
    /// The same two figures as CMTime values (value / timescale equals the rational exactly); nil where no 32-bit
    /// timescale is exact.
    public var cmTime: CMTimes?
    /// Microseconds, rounded inward: the start up, the end down (ExoPlayer's `ClippingMediaSource`).
    public var microseconds: Microseconds
    /// Rule ids the range alone removes (a longer track's tail, a late start, priming at the head).
    public var cures: [String]
    /// Rule ids only a rewrite removes (moov at end, a seam jump, a codec the target does not play), the range's
    /// own seam included: a jump or click looping this span makes, measured where it wraps.
    public var remains: [String]
    /// What to know before using the range, in words (the whole clip loops cleaner than this span); nil: nothing.
    public var note: String?

    public struct Time: Codable, Sendable, Equatable {
        public var value: Int64
        public var timescale: Int32

        public init(value: Int64, timescale: Int32) {
            self.value = value
            self.timescale = timescale
        }
    }

    public struct CMTimes: Codable, Sendable, Equatable {
        public var start: Time
        public var duration: Time

        public init(start: Time, duration: Time) {
            self.start = start
            self.duration = duration
        }
    }

    public struct Microseconds: Codable, Sendable, Equatable {
        public var start: Int64
        public var end: Int64

        public init(start: Int64, end: Int64) {
            self.start = start
            self.end = end
        }
    }

    public init(
        start: String, duration: String, cmTime: CMTimes?, microseconds: Microseconds, cures: [String],
        remains: [String]
    ) {
        self.start = start
        self.duration = duration
        self.cmTime = cmTime
        self.microseconds = microseconds
        self.cures = cures
        self.remains = remains
    }

    /// `start` and `duration` as (numerator, denominator) pairs; nil for a string that is not one.
    public var exactStart: (numerator: Int64, denominator: Int64)? { Self.rational(start) }
    public var exactDuration: (numerator: Int64, denominator: Int64)? { Self.rational(duration) }

    static func rational(_ text: String) -> (numerator: Int64, denominator: Int64)? {
        let parts = text.split(separator: "/")
        guard let n = parts.first.flatMap({ Int64($0) }), parts.count <= 2 else { return nil }
        guard parts.count == 2 else { return (n, 1) }
        guard let d = Int64(parts[1]), d > 0 else { return nil }
        return (n, d)
    }
}

/// One clip's range: a line of `--format ranges`, or a file of analyze's JSON report (its other fields ignored).
/// `loopRange` is nil where no range makes the clip loop; `loopRangeReason` then says why.
public struct ClipLoopRange: Codable, Sendable, Equatable {
    public var path: String
    public var loopRange: LoopRange?
    public var loopRangeReason: String?

    public init(path: String, loopRange: LoopRange?, loopRangeReason: String?) {
        self.path = path
        self.loopRange = loopRange
        self.loopRangeReason = loopRangeReason
    }

    enum CodingKeys: String, CodingKey { case path, loopRange, loopRangeReason }

    /// `loopRange` is written as `null` where there is none (with the reason), never left out.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(loopRange, forKey: .loopRange)
        try c.encodeIfPresent(loopRangeReason, forKey: .loopRangeReason)
    }
}

/// analyze's `--format json` report, read for its ranges.
public struct LoopRangeReport: Decodable, Sendable {
    public var files: [ClipLoopRange]

    /// A whole JSON report, or JSON Lines (`--format jsonl` or `ranges`: one object a line; lines without a
    /// `path`, as jsonl's summary, are skipped).
    public static func decode(_ data: Data) throws -> [ClipLoopRange] {
        let decoder = JSONDecoder()
        if let report = try? decoder.decode(LoopRangeReport.self, from: data) { return report.files }
        struct Line: Decodable {
            var file: ClipLoopRange?
            var path: String?
            var loopRange: LoopRange?
            var loopRangeReason: String?
        }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { text in
            let line = try decoder.decode(Line.self, from: Data(text.utf8))
            if let file = line.file { return file }
            return line.path.map {
                ClipLoopRange(path: $0, loopRange: line.loopRange, loopRangeReason: line.loopRangeReason)
            }
        }
    }
}

extension Array where Element == ClipLoopRange {
    /// The clip's range in a report, whatever path the report was made with (`analyze media/` in CI, or an absolute
    /// path on another machine) and whatever path the app has (a bundle's URL): the entry with that exact path, else
    /// the one whose path ends in the most of the same components (at least the file's name). nil where none does, or
    /// where two match equally well: a report of `a/intro.mp4` and `b/intro.mp4` asked for `intro.mp4` is not
    /// guessed.
    public func clip(for path: String) -> ClipLoopRange? {
        if let exact = first(where: { $0.path == path }) { return exact }
        let wanted = [Substring](path.split(separator: "/").reversed())
        let scored = map { entry -> (ClipLoopRange, Int) in
            let theirs = [Substring](entry.path.split(separator: "/").reversed())
            return (entry, zip(wanted, theirs).prefix { $0 == $1 }.count)
        }
        guard let best = scored.map({ $0.1 }).max(), best > 0 else { return nil }
        let winners = scored.filter { $0.1 == best }
        return winners.count == 1 ? winners[0].0 : nil
    }

    /// `clip(for:)` of a file URL's path (or an http(s) URL's path, as a report made of URLs names them).
    public func clip(for url: URL) -> ClipLoopRange? {
        url.isFileURL ? clip(for: url.path) : first { $0.path == url.absoluteString } ?? clip(for: url.path)
    }
}

#if canImport(AVFoundation)
    // Not compiled where this is developed (Linux has no AVFoundation; the macOS workflow builds it): written
    // against Apple's documentation of CMTimeRange, AVPlayerLooper(player:templateItem:timeRange:), AVPlayerItem's
    // forwardPlaybackEndTime and AVPlayer's boundary time observers, and kept to these lines.
    import AVFoundation

    extension LoopRange {
        /// The range as AVFoundation takes it, exactly (nil where no 32-bit timescale is exact).
        public var timeRange: CMTimeRange? {
            guard let t = cmTime else { return nil }
            return CMTimeRange(
                start: CMTime(value: t.start.value, timescale: t.start.timescale),
                duration: CMTime(value: t.duration.value, timescale: t.duration.timescale))
        }
    }

    extension AVPlayerLooper {
        /// Loops `templateItem` over the range: AVPlayerLooper ignores `forwardPlaybackEndTime` at the wrap, so
        /// the range must be its `timeRange`.
        public convenience init?(player: AVQueuePlayer, templateItem: AVPlayerItem, loopRange: LoopRange) {
            guard let range = loopRange.timeRange else { return nil }
            self.init(player: player, templateItem: templateItem, timeRange: range)
        }
    }

    extension AVPlayerItem {
        /// A queue looper's item (AVQueuePlayer with copies of one item): it ends at the range's end
        /// (`forwardPlaybackEndTime`) and starts at its start, exactly. false where no CMTime is exact.
        @discardableResult
        public func play(_ loopRange: LoopRange) -> Bool {
            guard let range = loopRange.timeRange else { return false }
            forwardPlaybackEndTime = range.end
            seek(to: range.start, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: nil)
            return true
        }
    }

    extension AVPlayer {
        /// A plain AVPlayer looping the range: at its end (a boundary time) it seeks back to its start, exactly.
        /// Keep the returned observer, and pass it to `removeTimeObserver(_:)` when done; nil where no CMTime is
        /// exact. The seek is not gapless (AVPlayerLooper is): for players an app cannot replace.
        public func loop(_ loopRange: LoopRange) -> Any? {
            guard let range = loopRange.timeRange else { return nil }
            seek(to: range.start, toleranceBefore: .zero, toleranceAfter: .zero)
            return addBoundaryTimeObserver(forTimes: [NSValue(time: range.end)], queue: .main) { [weak self] in
                self?.seek(to: range.start, toleranceBefore: .zero, toleranceAfter: .zero)
            }
        }
    }
#endif
