/// A written file as FFmpeg's own demuxer and decoders present it, read with none of loopprep's timing code
/// (no index of ours, no retiming, no repairs): the second reading every output must agree with before it is
/// kept. Where FFmpeg's reading is known to differ from what players do, LoopMedia/Check says so next to the
/// exception and docs/verification.md lists each case.
public struct IndependentReading: Sendable, Equatable {
    public struct Track: Sendable, Equatable {
        /// The stream's index in the written file.
        public var index: Int
        public var kind: TrackKind
        public var codec: String
        /// Seconds: the first presented frame's or sample's time, as the decoder gave it.
        public var start: Rational?
        /// Seconds: the end of the last presented frame or sample.
        public var end: Rational?
        /// Video: the frames FFmpeg presents (packets it does not discard; its decoder agreed on the tail).
        public var frames: Int?
        /// Audio: the decoder's output rate (HE-AAC's is twice the rate its container may state).
        public var sampleRate: Int?
        /// How far apart two times the container can tell apart may be: half its time base's step, or (Matroska)
        /// the whole millisecond a block time is rounded to.
        public var tick: Rational
        /// Where FFmpeg's decoder disagreed with its demuxer on the head or tail, in words.
        public var decoderDisagrees: String?

        public init(
            index: Int, kind: TrackKind, codec: String, start: Rational? = nil, end: Rational? = nil,
            frames: Int? = nil, sampleRate: Int? = nil, tick: Rational = .zero, decoderDisagrees: String? = nil
        ) {
            self.index = index
            self.kind = kind
            self.codec = codec
            self.start = start
            self.end = end
            self.frames = frames
            self.sampleRate = sampleRate
            self.tick = tick
            self.decoderDisagrees = decoderDisagrees
        }

        /// Audio: whole samples presented at the decoder's rate.
        public var samples: Int64? {
            guard let start, let end, let sampleRate else { return nil }
            return ((end - start) * Int64(sampleRate)).rounded
        }
    }

    public var tracks: [Track]
    public init(tracks: [Track]) { self.tracks = tracks }
}

/// What a writer planned one output track to present.
public struct ExpectedTrack: Sendable, Equatable {
    public var kind: TrackKind
    /// Seconds presented.
    public var duration: Rational
    /// Video: frames presented.
    public var frames: Int?
    /// Seconds: where the track starts (0 unless a plan says otherwise).
    public var start: Rational

    /// The tick of the clock the plan's times were read on (a Matroska source's millisecond): its frames' ends
    /// are known to within it, however fine the output's clock. Zero: exact.
    public var clock: Rational = .zero

    public init(kind: TrackKind, duration: Rational, frames: Int? = nil, start: Rational = .zero) {
        self.kind = kind
        self.duration = duration
        self.frames = frames
        self.start = start
    }
}

/// The rule an output must pass: FFmpeg's reading agrees with the plan, frames exactly, audio within half a
/// sample at the decoder's rate, every time within the container's tick (Matroska's millisecond).
package enum IndependentCheck {
    /// The first disagreement, as a sentence naming the track and by how much; nil when they agree.
    public static func disagreement(_ expected: [ExpectedTrack], _ reading: IndependentReading) -> String? {
        let read = reading.tracks.filter { $0.kind == .video || $0.kind == .audio }
        guard read.count == expected.count, zip(expected, read).allSatisfy({ $0.kind == $1.kind }) else {
            return
                """
                FFmpeg reads \(read.count) audio and video tracks in it where \(expected.count) were planned
                """
        }
        for (plan, track) in zip(expected, read) {
            let name = "\(track.kind.rawValue) track \(track.index) (\(track.codec))"
            if let problem = track.decoderDisagrees { return "\(name): \(problem)" }
            guard let start = track.start, let end = track.end ?? (track.kind == .video ? start : nil) else {
                return "\(name): FFmpeg's decoder presents nothing of it"
            }
            let slack = Rational.max(tolerance(track), plan.clock)
            // A file of one track is in sync with nothing: a player starts at its first sample, whatever clock
            // the format has (FFmpeg times a raw MP3 from its first frame, the LAME delay it skips included).
            if read.count > 1, (start - plan.start).magnitude > slack {
                return "\(name) starts at \(Figures.ms(start)) in FFmpeg's reading, planned \(Figures.ms(plan.start))"
            }
            // A video whose last frame has no length in the container (one frame, no duration) is judged by its
            // frame count alone.
            let length = end - start
            if track.end != nil, (length - plan.duration).magnitude > slack {
                let by = length - plan.duration
                let samples = track.sampleRate.map { " = \((by * Int64($0)).rounded) samples" } ?? ""
                return
                    """
                    \(name) presents \(Figures.ms(length)) in FFmpeg's reading, planned \(Figures.ms(plan.duration)) \
                    (\(by > .zero ? "+" : "")\(Figures.ms(by))\(samples))
                    """
            }
            if let frames = plan.frames, let read = track.frames, read != frames {
                return "\(name) presents \(read) frames in FFmpeg's reading, planned \(frames)"
            }
        }
        return nil
    }

    /// Audio: half a sample at the decoder's rate; every track: the container's tick where that is coarser.
    static func tolerance(_ track: IndependentReading.Track) -> Rational {
        let halfSample = track.sampleRate.map { Rational(1, 2 * Int64(max($0, 1))) } ?? .zero
        return Rational.max(halfSample, track.tick)
    }
}
