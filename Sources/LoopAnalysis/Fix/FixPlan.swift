/// Frames decoded (from `decodeFromDts`) and encoded again: --reencode-head's frames before the first copied
/// keyframe, or --target web's last GOP, so nothing is presented after the cut. Media ticks of the index.
public struct SegmentRender: Sendable, Equatable, Codable {
    public var decodeFromDts: Int64
    public var firstPts: Int64
    public var untilPts: Int64
    /// pts - dts of the source's keyframes: the re-encoded frames get the same decode delay, so decode times
    /// stay in order into the copied GOPs.
    public var reorderDelay: Int64
    public var frames: Int
}

/// How one track is cut: which coded samples are copied and what of them is presented.
public struct TrackCut: Sendable, Equatable, Codable {
    public var index: Int
    public var kind: TrackKind
    public var codec: String
    public var timeBase: Rational
    /// Decode-order range of samples to copy (inclusive), as index sample numbers (for people) and as decode
    /// times (for the copier: demuxers may pack several index samples in a packet, as MOV does with PCM).
    public var first: Int
    public var last: Int
    public var keepFrom: Int64
    public var keepThrough: Int64
    /// Decode time of the track's first sample in the index the plan was made from; the copier measures
    /// any constant offset the demuxer adds against it.
    public var origin: Int64
    /// Media time (input ticks) of the first presented instant; samples before it are decoder pre-roll.
    public var mediaStart: Int64
    /// Video whose start falls inside its first frame: that frame's new pts (= mediaStart), so it begins
    /// exactly at the start. ISO edit lists allow a start inside a frame, but FFmpeg-based players then drop
    /// the frame; re-timing it (timestamps only, bytes unchanged) shows it in every player.
    public var retimedFirstPts: Int64?
    /// Frames re-encoded before the copied ones (--reencode-head).
    public var head: SegmentRender?
    /// Frames re-encoded after the copied ones (--target web: the last GOP, so no frame outlives the cut).
    public var tail: SegmentRender?
    /// Presented duration, exact: a frame boundary for video, whole samples for audio.
    public var duration: Rational
    /// Where the media is cut (ticks) when the cut ends inside a packet: that packet is shortened to end here.
    public var mediaEnd: Int64?
    /// Before the fix, on the input's presentation timeline.
    public var startBefore: Rational
    public var endBefore: Rational
    /// What the cut removes from the input's presented range at the head and at the tail (seconds; negative
    /// at the head when hidden priming is revealed as a start shift).
    public var trimmedHead: Rational
    public var trimmedTail: Rational
    public var sampleRate: Int?
    /// Audio: the channels its frames decode to (an MP3 in MP4's sample entry says 2 for any MP3), which an encoder
    /// of the track keeps.
    public var channels: Int? = nil
    public var frameRate: Rational?
    /// What the output must present, for the verification: video frames (source samples whose display
    /// overlaps the kept range, in one pass) and the source sample (decode index) on screen at the start.
    public var presentedFrames: Int?
    public var firstPresented: Int?
    /// An MP4 track's largest negative composition offset (ticks; 0 for none): FFmpeg's mov demuxer moves its
    /// decode times, not its presentation times, earlier by this much, so a reader measuring the demuxer's clock
    /// on decode times must add it back for presentation times.
    public var compositionLead: Int64 = 0
    /// Seconds this track was moved earlier to start with the others: a start offset under half a video frame
    /// (a muxer's rounding, WebM's 7 ms from the Opus pre-skip) is removed so every frame is kept; A/V sync
    /// shifts by this much. nil: not moved.
    public var shift: Rational? = nil
    /// HE-AAC (SBR) in an MP4 or MOV: the core rate its track is clocked at, half the rate it plays at. FFmpeg
    /// doubles an edit list's skip for SBR (it counts core samples), so on the output rate's clock its reading
    /// hides twice the priming the edit says; on the core clock FFmpeg and the edit's meaning agree.
    public var coreRate: Int? = nil

    /// A video cut's last presented frame's length (seconds): from its start to the cut's end. Matroska gives a block
    /// no length unless the track's DefaultDuration does, so the remuxer writes this one there.
    public func lastFrameLength(in t: TrackTimeline) -> Rational? {
        let end = Rational(mediaStart) + duration / timeBase
        guard kind == .video,
            let last = t.samples.filter({ !$0.isDiscarded && Rational($0.pts) < end }).map(\.pts).max()
        else { return nil }
        return (end - Rational(retimedFirstPts.map { Swift.max($0, last) } ?? last)) * timeBase
    }

    /// The whole track is encoded again (nothing of it copied): its frames, from the one keyframe before its
    /// start, are the encoder's stream.
    public var reencodesWhole: Bool { head != nil && keepFrom > keepThrough }
}

/// What `fix` will do to one file. Pure data: made by `FixPlanner`, carried out by the media layer.
/// A copied track's timing breaks, kept as the input has them: their count and the lengths listed.
public struct KeptBreaks: Sendable, Equatable, Codable {
    public var count: Int
    public var lengths: Set<Int64>

    /// Whether an output track's breaks are these (or fewer): never more, never of another length.
    public func admits(_ track: TrackFacts) -> Bool {
        track.timingBreakCount <= count && track.timingBreaks.allSatisfy { lengths.contains($0.length) }
    }
}

public struct FixPlan: Sendable, Equatable, Codable {
    public var tracks: [TrackCut]
    /// Chapter, timecode and text tracks cut to the same range (MP4/MOV stream copies only).
    public var others: [TrackCut] = []
    /// Tracks left out of the output: neither audio nor video, or empty (reported in the notes).
    public var dropped: [Int]
    /// The input instant (presentation timeline, seconds) where the output starts.
    public var start: Rational
    /// The output's presented length: the video's, to the frame; audio within half a sample of it.
    public var duration: Rational
    /// Movie timescale for the output, so every edit is exact: the LCM of the tracks' timescales when it fits.
    public var movieTimescale: Int64
    /// Things the user should know (start moved to the next keyframe, priming assumed, tracks dropped).
    public var notes: [String]
    /// True when the input already is what fix would write: the output is then a byte copy.
    public var isNoop: Bool
    /// The clip written this many times in a row (--unroll, --loops); audio is then re-encoded as one stream.
    public var repeats: Int
    /// Audio fade-out and fade-in of this length (seconds) at every loop point (--seam-fade).
    public var seamFade: Rational?
    /// --target web: video composition times start at 0 without an edit list.
    public var bakeVideo: Bool
    /// --reencode-audio: the audio is encoded again even where nothing else asks it.
    public var reencodeAudio = false
    /// The muxer the output is written with where it is not the input's container ("mp4", "mov", "ipod": a
    /// file whose own container cannot say a trim, or --to); nil: the input's.
    public var convertsTo: Muxer?
    /// The file written, where the plan was made for one (`FixPlanner.Output`): a converted file's own name.
    public var outputPath: String?
    /// Which writer carries the plan out, decided with it.
    public var writer: FixWriter = .copy

    /// --keep video: an audio track ends before the video and is followed by silence to its end.
    public var padsAudio = false
    /// Timestamp overlaps inside the range kept that the copy keeps as they are, per input audio track index:
    /// their lengths in the track's ticks, as the input's facts list them, and how many there are. The output may
    /// have these and no others (a concatenation's AAC overlapping itself at every join: the trim is
    /// written and what remains is said, as `--reencode-audio` would lay every sample on its time).
    public var keptBreaks: [Int: KeptBreaks] = [:]

    /// Audio is decoded, shaped and encoded again (video never is).
    public var reencodesAudio: Bool { repeats > 1 || seamFade != nil || reencodeAudio || padsAudio }
    public var outputDuration: Rational { duration * Int64(repeats) }
    /// Every presented video frame of the output is a packet of the input copied as it is, once: the output's
    /// pictures decode as the input's do from the same keyframe.
    public var copiesVideoWhole: Bool {
        repeats == 1 && !bakeVideo && tracks.contains { $0.kind == .video }
            && tracks.allSatisfy { $0.kind != .video || ($0.head == nil && $0.tail == nil) }
    }

    /// Samples of a re-encoded audio cut in repeat `pass`: the whole samples between the loop's boundaries on the
    /// video's grid, so the fraction a loop leaves (2.002 s at 44.1 kHz is 88288.2 samples) is spread over the
    /// repeats (88288, 88288, 88289) and every join, and the end, falls within half a sample of its frame.
    public func passSamples(_ cut: TrackCut, pass: Int) -> Int64 {
        guard let rate = cut.sampleRate else { return 0 }
        guard repeats > 1 else { return (cut.duration * Int64(rate)).rounded }
        let loop = duration * Int64(rate)
        return (loop * Int64(pass + 1)).rounded - (loop * Int64(pass)).rounded
    }

    /// What a cut presents in the output, every repeat counted (an audio track's repeats as `passSamples` lays
    /// them).
    public func presented(_ cut: TrackCut) -> Rational {
        guard repeats > 1, cut.kind == .audio, let rate = cut.sampleRate, rate > 0 else {
            return cut.duration * Int64(repeats)
        }
        // The passes' samples add up to the whole repeated length rounded (their sum telescopes).
        return Rational((duration * Int64(rate) * Int64(repeats)).rounded, Int64(rate))
    }
}

public struct FixOptions: Sendable, Equatable {
    /// AAC priming in samples to hide when the file does not signal it (FFmpeg's encoder: 1024; Apple's: 2112).
    /// nil: the codec's usual figure (`FixOptions.usualPriming`).
    public var assumedPriming: Int64?
    /// --unroll: a clip shorter than this is repeated whole, the smallest number of times that reaches it.
    public var unrollTo: Rational?
    /// --loops: repeat the clip exactly this many times.
    public var loops: Int?
    /// --seam-fade, in seconds.
    public var seamFade: Rational?
    /// --reencode-head: keep a start inside a GOP by re-encoding the frames before the next keyframe.
    public var reencodeHead: Bool
    /// --target web: bake the video's trims into the media (no frame after the cut, no B-frame delay), for
    /// players that ignore edit lists.
    public var bakeVideo: Bool
    /// --reencode-audio: encode the audio again (with its codec) where its container cannot say a trim around
    /// copied frames (an MP3 gets a new LAME header saying its delay and padding).
    public var reencodeAudio = false
    /// Keep only this span of the presented range: the loop command's cut, in seconds from the main video's first
    /// presented frame (where it is presented once a start under half a frame is rebased: a WebM's video 7 ms
    /// after its Opus counts from 0, not from 7 ms).
    public var range: (start: Rational, end: Rational)?
    /// --to mp4|mov: write a file from another container (Matroska, WebM, MPEG-TS...) as MP4 or MOV, whose edit
    /// lists say any trim; nil: Matroska and WebM keep theirs, the others become MP4 (MOV for PCM).
    public var convertTo: Muxer?
    /// --keep video: the video is the loop; audio that ends before it plays to its end and then silence does, to
    /// the video's end (audio re-encoded), instead of the picture being cut to the audio.
    public var keepVideo = false
    /// --drop-audio: leave the audio out (a muted background loop), every frame of the video kept.
    public var dropAudio = false
    /// The range's first and last presented pictures as the loop's search decoded them from the input: where the
    /// cut copies every video frame, the written loop's seam takes its last pictures from here instead of decoding
    /// its last GOP again (its first are decoded from the output and must be these). Not an option: a fact the
    /// caller already has.
    public var rangePictures: SourcePictures?

    public static func == (a: FixOptions, b: FixOptions) -> Bool {
        a.assumedPriming == b.assumedPriming && a.unrollTo == b.unrollTo && a.loops == b.loops
            && a.seamFade == b.seamFade
            && a.convertTo == b.convertTo
            && a.reencodeHead == b.reencodeHead && a.bakeVideo == b.bakeVideo && a.reencodeAudio == b.reencodeAudio
            && a.range?.start == b.range?.start && a.range?.end == b.range?.end
            && a.keepVideo == b.keepVideo && a.dropAudio == b.dropAudio
    }

    /// Priming an encoder writes where the file does not say: FFmpeg's AAC encoder 1024 samples (Apple's 2112);
    /// LAME's MP3 encoder delay of 576 plus the 529 every MP3 decoder adds.
    public static func usualPriming(codec: String) -> Int64 { codec == "mp3" ? 1105 : 1024 }

    public func priming(codec: String) -> Int64 { assumedPriming ?? Self.usualPriming(codec: codec) }

    public init(
        assumedPriming: Int64? = nil, unrollTo: Rational? = nil, loops: Int? = nil, seamFade: Rational? = nil,
        reencodeHead: Bool = false, bakeVideo: Bool = false
    ) {
        self.assumedPriming = assumedPriming
        self.unrollTo = unrollTo
        self.loops = loops
        self.seamFade = seamFade
        self.reencodeHead = reencodeHead
        self.bakeVideo = bakeVideo
    }
}

/// A cut's first and last presented pictures as a decoding of its source gave them: the seam's grey pictures (64x36
/// luma, then Cb and Cr at 32x18; FrameSignature's `luma` and `chroma`), in presentation order.
public struct SourcePictures: Sendable, Equatable {
    public var first: [FrameSignature]
    public var last: [FrameSignature]

    public init(first: [FrameSignature], last: [FrameSignature]) {
        self.first = first
        self.last = last
    }
}

/// A conversion refused (a codec the asked container cannot take, a format loopprep does not write): said as it
/// is, not as a planning failure.
public struct ConversionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    /// The plan in the input's own container (what the report shows beside the refusal).
    public var plan: FixPlan
    public var description: String { reason }
}

package struct PlanError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

extension FixPlan {
    /// Chapters (start, end and title, in seconds on the source's presentation clock) as the output has them, in
    /// whole milliseconds (down: a chapter never runs past the tracks it names): those the cut keeps, moved to its
    /// start and clipped to it, once for every repeat.
    public func chapters(_ source: [(start: Rational, end: Rational, title: String)]) -> [(
        start: Int64, end: Int64, title: String
    )] {
        (0..<max(repeats, 1)).flatMap { pass in
            source.compactMap { chapter in
                let from = Rational.max(chapter.start - start, .zero)
                let to = Rational.min(chapter.end - start, duration)
                guard from < to else { return nil }
                let offset = duration * Int64(pass)
                return (((from + offset) * 1000).floor, ((to + offset) * 1000).floor, chapter.title)
            }
        }
    }
}
