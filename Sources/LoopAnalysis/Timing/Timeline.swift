/// One coded sample (frame or audio packet) as the container indexes it, in the track's own ticks.
public struct SampleTiming: Sendable, Equatable {
    public var dts: Int64
    /// Presentation (composition) time.
    public var pts: Int64
    public var duration: Int64
    public var isSync: Bool
    /// The container marks it as not presented (e.g. FFmpeg's discard flag on priming packets).
    public var isDiscarded: Bool

    public init(dts: Int64, pts: Int64, duration: Int64, isSync: Bool, isDiscarded: Bool = false) {
        self.dts = dts
        self.pts = pts
        self.duration = duration
        self.isSync = isSync
        self.isDiscarded = isDiscarded
    }
}

/// One entry of an ISO-BMFF edit list: `duration` on the movie timeline (seconds, exact), `mediaTime` in the
/// track's ticks, nil for an empty edit (a delay before the track starts).
public struct Edit: Sendable, Equatable, Codable {
    public var mediaTime: Int64?
    public var duration: Rational
    public var rate: Rational

    public init(mediaTime: Int64?, duration: Rational, rate: Rational = .one) {
        self.mediaTime = mediaTime
        self.duration = duration
        self.rate = rate
    }
}

/// Everything the container says about a track's timing, before interpretation.
public struct TrackTimeline: Sendable, Equatable {
    /// Seconds per tick.
    public var timeBase: Rational
    /// Decode order.
    public var samples: [SampleTiming]
    /// nil: the container has no edit list; samples are presented at their pts.
    public var edits: [Edit]?
    /// Ticks the decoder is told to drop at the start / end (Matroska codec delay, skip-samples side data).
    public var skipStart: Int64
    public var skipEnd: Int64
    /// What signals the priming when it is not the container's own edit list or skip: "iTunSMPB" (iTunes
    /// metadata, read as the edit it describes).
    public var primingMethod: String?
    /// The times were laid anew as the decoder plays the packets (`AudioFrames.regular`): a packet reader takes
    /// them over the ones the container stores.
    public var laidAnew = false
    /// Decode steps a muxer bumped a tick after a repeated time, laid a frame apart anew (`BumpedDecodeTimes`).
    public var relaidDecodeTimes = 0
    /// Audio packets a capture clock stamped away from where the decoder plays them (more than 2 ms, past any
    /// millisecond clock's rounding), laid end to end anew (`SampleClock`).
    public var relaidStamps = 0
    /// The last presented sample's length is not in the file (a recorder's last Matroska block has no
    /// BlockDuration and the track no DefaultDuration): it was given the commonest step (`MissingDurations`).
    public var decidedLastDuration = false

    public init(
        timeBase: Rational, samples: [SampleTiming], edits: [Edit]? = nil, skipStart: Int64 = 0, skipEnd: Int64 = 0
    ) {
        self.timeBase = timeBase
        self.samples = samples
        self.edits = edits
        self.skipStart = skipStart
        self.skipEnd = skipEnd
    }
}

/// Where a track is presented, exactly.
public struct PresentedRange: Sendable, Equatable {
    /// On the movie timeline, seconds.
    public var start: Rational
    public var duration: Rational
    public var end: Rational { start + duration }
    /// The first and one-past-last presented media time, in ticks (may be fractional when an edit's
    /// movie-timescale duration does not land on a tick).
    public var mediaStart: Rational
    public var mediaEnd: Rational
    /// Index (decode order) of the sample shown first, if any.
    public var firstSample: Int?
    /// Samples whose presentation interval overlaps the presented media range.
    public var presentedSampleCount: Int
    /// Media time skipped at the start by an edit or skip-samples: the signalled encoder delay, in ticks.
    public var signalledDelay: Int64
}

/// Decode times for packets that carry only presentation times (Matroska video: FFmpeg's demuxer gives no
/// DTS), in decode order: the presentation times sorted, moved back by the reorder delay so that no packet is
/// decoded after it is shown. Monotonic, and equal to the pts where frames are not reordered.
public func decodeTimes(presentation pts: [Int64]) -> [Int64] {
    let sorted = pts.sorted()
    let delay = zip(sorted, pts).map { $0 - $1 }.max() ?? 0
    return sorted.map { $0 - Swift.max(delay, 0) }
}

extension TrackTimeline {
    /// The same timeline on a clock `factor` times finer: every time, duration and skip multiplied (edits too).
    public func scaled(by factor: Int64) -> TrackTimeline {
        var out = self
        out.timeBase = timeBase / Rational(factor)
        for i in out.samples.indices {
            out.samples[i].dts *= factor
            out.samples[i].pts *= factor
            out.samples[i].duration *= factor
        }
        out.skipStart *= factor
        out.skipEnd *= factor
        out.edits = edits?.map { e in
            var e = e
            e.mediaTime = e.mediaTime.map { $0 * factor }
            return e
        }
        return out
    }

    /// Every decode and presentation time moved by `ticks` (edits are in media time and do not move).
    public func shifted(by ticks: Int64) -> TrackTimeline {
        var out = self
        for i in out.samples.indices {
            out.samples[i].dts &+= ticks
            out.samples[i].pts &+= ticks
        }
        return out
    }

    /// The media's own span in ticks: from the earliest pts to the latest pts + duration, ignoring discarded samples.
    public var mediaSpan: (start: Int64, end: Int64)? {
        var lo = Int64.max
        var hi = Int64.min
        for s in samples where !s.isDiscarded {
            lo = Swift.min(lo, s.pts)
            hi = Swift.max(hi, s.pts &+ Swift.max(s.duration, 0))
        }
        return lo <= hi ? (lo, hi) : nil
    }

    /// Applies the edit list (or, without one, the samples' own timestamps and skip counts) to find what is presented.
    public func presentedRange() -> PresentedRange? {
        guard let span = mediaSpan else { return nil }
        var start = Rational.zero
        var duration = Rational.zero
        var mediaStart: Rational
        var mediaEnd: Rational
        var delay: Int64 = 0

        // Media edits each present their own stretch (a montage shows some samples twice and skips others).
        var pieces: [(from: Rational, to: Rational)] = []
        if let edits, edits.contains(where: { $0.mediaTime != nil }) {
            // Leading empty edits delay the track; media edits are concatenated after them.
            var seenMedia = false
            mediaStart = .zero
            mediaEnd = .zero
            for edit in edits {
                guard let mediaTime = edit.mediaTime else {
                    if !seenMedia { start = start + edit.duration } else { duration = duration + edit.duration }
                    continue
                }
                // An edit cannot present media that is not there: clamp to what the samples cover.
                let available = Rational(span.end - mediaTime) * timeBase
                var editDuration =
                    edit.rate.isZero ? edit.duration : Rational.min(edit.duration, Rational.max(available, .zero))
                if editDuration.isNegative { editDuration = .zero }
                if !seenMedia {
                    mediaStart = Rational(mediaTime)
                    delay = Swift.max(mediaTime - span.start, 0)
                    seenMedia = true
                }
                mediaEnd = Rational(mediaTime) + editDuration / timeBase
                pieces.append((Rational(mediaTime), mediaEnd))
                duration = duration + editDuration
            }
        } else {
            let first = span.start + skipStart
            let last = Swift.max(span.end - skipEnd, first)
            mediaStart = Rational(first)
            mediaEnd = Rational(last)
            start = Rational(first) * timeBase
            duration = Rational(last - first) * timeBase
            // Priming the demuxer already marked as discarded counts as signalled too.
            let discardedLead = samples.filter { $0.isDiscarded && $0.pts < span.start }.reduce(Int64(0)) {
                $0 + $1.duration
            }
            delay = skipStart + discardedLead
        }
        var (firstSample, count) = presentedSamples(from: mediaStart, to: mediaEnd)
        if pieces.count > 1 { count = pieces.map { presentedSamples(from: $0.from, to: $0.to).1 }.reduce(0, +) }
        return PresentedRange(
            start: start, duration: duration, mediaStart: mediaStart, mediaEnd: mediaEnd,
            firstSample: firstSample, presentedSampleCount: count, signalledDelay: delay)
    }

    /// The sample on screen at `from` (latest pts at or before it; else the earliest after it) and how many
    /// samples' intervals overlap [from, to).
    public func presentedSamples(from: Rational, to: Rational) -> (Int?, Int) {
        var first: Int?
        var firstAfter: Int?
        var count = 0
        // Whole ticks against the bounds, exactly: a tick is at or before `from` when it is at or before its floor,
        // after it when after its floor, before `to` when before its ceiling (no rational per sample).
        let fromFloor = from.floor
        let toCeiling = to.ceiling
        for (i, s) in samples.enumerated() where !s.isDiscarded {
            if s.pts <= fromFloor {
                if first.map({ samples[$0].pts < s.pts }) ?? true { first = i }
            } else if firstAfter.map({ samples[$0].pts > s.pts }) ?? true {
                firstAfter = i
            }
            if s.pts < toCeiling && s.pts &+ Swift.max(s.duration, 1) > fromFloor { count += 1 }
        }
        return (first ?? firstAfter, count)
    }

    /// The most common sample duration in ticks: the nominal frame or packet length.
    public var nominalDuration: Int64? {
        var counts: [Int64: Int] = [:]
        for s in samples where s.duration > 0 { counts[s.duration, default: 0] += 1 }
        return counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    }

    /// Holes and overlaps between consecutive samples in presentation order.
    ///
    /// Video (`frameStep` given): a step of zero or less is an overlap (two frames at one instant). A longer
    /// step is a held frame, not a hole: the frame stays on screen until the next one, in every container
    /// (screen recordings hold a frame for seconds; phones record variable frame rates). Audio: each packet must start
    /// where the previous one ended, within `tolerance` ticks, which
    /// absorbs the rounding of coarse time bases (Matroska's milliseconds).
    /// Only the presented span counts (`within`, media ticks): an edit that trims into a stretched first frame
    /// leaves nothing irregular on screen.
    public func timingBreaks(frameStep: Int64?, tolerance: Int64, within span: (start: Rational, end: Rational)? = nil)
        -> [TimingBreak]
    {
        var ordered = samples.filter { !$0.isDiscarded }.sorted { $0.pts < $1.pts }
        if let span {
            // (Whole ticks against the span's floor and ceiling: exact, as in presentedSamples.)
            let (startFloor, startCeiling, endCeiling) = (span.start.floor, span.start.ceiling, span.end.ceiling)
            ordered = ordered.filter { $0.pts &+ max($0.duration, 1) > startFloor && $0.pts < endCeiling }
            if let first = ordered.first, first.pts < startCeiling {
                ordered[0].duration -= startFloor - first.pts
                ordered[0].pts = startFloor
            }
        }
        var breaks: [TimingBreak] = []
        for (a, b) in zip(ordered, ordered.dropFirst()) {
            let step = b.pts &- a.pts
            if let frameStep {
                if step <= 0 {
                    breaks.append(TimingBreak(at: b.pts, expectedAt: a.pts &+ frameStep, length: step &- frameStep))
                }
            } else {
                let delta = b.pts &- (a.pts &+ a.duration)
                if delta > tolerance || delta < -tolerance {
                    breaks.append(TimingBreak(at: b.pts, expectedAt: a.pts &+ a.duration, length: delta))
                }
            }
        }
        return breaks
    }
}

/// A discontinuity in presentation order: `length` > 0 is a hole, < 0 an overlap, in ticks.
public struct TimingBreak: Sendable, Equatable, Codable {
    public var at: Int64
    public var expectedAt: Int64
    public var length: Int64
}
