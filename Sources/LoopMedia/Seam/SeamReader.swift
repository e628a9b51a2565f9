import CFFmpeg
import LoopAnalysis
import LoopIndex

/// What a seam reading decoded of a file, for a later reading of the same file: its first pictures, its last ones
/// with their times (every frame from the first the tail kept to the end, in presentation order), and the keyframe
/// its tail was decoded from.
struct SeamPictures: Sendable {
    var first: [Thumbnail]
    var recent: [(pts: Int64, thumbnail: Thumbnail)]
    var keyframe: Int64?
}

/// One reading of a clip for its seam, in stages: the head (the first presented frames and samples), the tail
/// (from the keyframe before the end to the end, the decoders flushed: their held-back frames are the seam), then
/// the figures. One decoding whether pictures are wanted or not (loop filters skipped either way), so the figures
/// a CI report prints are the ones the page shows.
final class SeamReader {
    let input: InputFile
    let facts: ClipFacts
    let capture: Bool
    let span: (start: Rational, end: Rational)?
    /// The clip's first and last pictures as a decoding of its source gave them (SourcePictures), or nil.
    let given: (first: [Thumbnail], last: [Thumbnail])?
    /// What an earlier reading of this file decoded (a loop range's reading is given the whole clip's), or nil.
    let seen: SeamPictures?
    let video: TrackFacts?
    let audio: TrackFacts?
    let videoDecoder: Decoder?
    let audioDecoder: Decoder?
    let scaler = Scaler(width: Thumbnail.width, height: Thumbnail.height)
    let tiles: Scaler?
    let packet: Packet
    let frame: Frame
    /// What a picture of the seam needs (with `capture`).
    var shot = SeamCapture()
    /// The audio window, in samples; the same with or without pictures (where the tail decode starts changes the
    /// audio decoder's warm-up, and so the last samples' figures).
    let window: Int64
    let wantFrames = SeamCapture.frames
    let wantSamples: Int

    // The head.
    var first: Thumbnail?
    var firstFew: [Thumbnail] = []
    var head: [[Float]] = []
    var firstVideoPts: Int64?
    var firstAudioPts: Int64?
    var framesSeen = 0
    /// Where the span starts, on each track's own count: video ticks after its first presented frame, audio
    /// samples after its first presented sample (0 for the whole clip).
    let headTicks: Int64
    let headSkip: Int64
    var skipped: Int64 = 0
    /// The clip's first presented frame: the span's times count from it.
    var originVideoPts: Int64?
    /// The frame showing at the span's start: the last one starting at or before it, taken once a later one comes
    /// (or the head's reading ends).
    var pending: HeadPicture?

    // The tail.
    var lastFew: [Thumbnail] = []
    /// Every frame kept from the tail (the last few and those just before them), with its time.
    var recent: [(pts: Int64, thumbnail: Thumbnail)] = []
    var tail: [[Float]] = []
    var reachedKey = false
    /// The keyframe the tail's video was decoded from (its packet's time).
    var tailKeyframe: Int64?
    var decoded = Set<Int>()

    /// A decoded frame as the head keeps it: its thumbnail, its tile (with `capture`) and its time.
    typealias HeadPicture = (thumbnail: Thumbnail, tile: RGBImage?, pts: Int64?)

    init(
        _ input: InputFile, facts: ClipFacts, capture: Bool, span: (start: Rational, end: Rational)?,
        given: SourcePictures? = nil, seen: SeamPictures? = nil
    ) throws {
        (self.input, self.facts, self.capture, self.span, self.seen) = (input, facts, capture, span, seen)
        self.given = given.map { g in
            let pictures = { (s: [FrameSignature]) in s.map { Thumbnail(luma: $0.luma, chroma: $0.chroma) } }
            return (pictures(g.first), pictures(g.last))
        }
        let (video, audio) = (facts.mainVideo, facts.mainAudio)
        (self.video, self.audio) = (video, audio)
        videoDecoder = try video.map { try Decoder(input, stream: $0.index, threads: DecoderThreads.seam, fast: true) }
        audioDecoder = try audio.map { try Decoder(input, stream: $0.index) }
        tiles = video.map { SeamProbe.tileScaler($0) }
        packet = try Packet()
        frame = try Frame()
        window = audio.flatMap { a in a.sampleRate.map { (SeamCapture.audioSeconds * Int64($0)).rounded } } ?? 0
        wantSamples = max(Int(window), 2)
        headTicks =
            video.flatMap { v in span.map { Swift.max((($0.start - v.startSeconds) / v.timeBase).floor, 0) } } ?? 0
        headSkip =
            audio.flatMap { a in
                a.sampleRate.flatMap { rate in
                    span.map { Swift.max((($0.start - a.startSeconds) * Int64(rate)).rounded, 0) }
                }
            } ?? 0
    }

    // MARK: The head

    var headDone: Bool {
        (videoDecoder == nil || framesSeen >= wantFrames)
            && (audioDecoder == nil || (head.first?.count ?? 0) >= wantSamples)
    }

    /// The first presented frame(s) and samples (from the span's start).
    func readHead() throws {
        while !headDone {
            guard try input.read(into: packet) else {
                // A clip shorter than the head: the frames a decoder holds back (frame threads hold one per
                // thread) are the head's too.
                try videoDecoder?.decode(nil, into: frame, takeHeadVideo)
                try audioDecoder?.decode(nil, into: frame, takeHeadAudio)
                break
            }
            if let d = videoDecoder, framesSeen < wantFrames, packet.streamIndex == d.streamIndex {
                try d.decode(packet, into: frame, takeHeadVideo)
            } else if let d = audioDecoder, (head.first?.count ?? 0) < wantSamples,
                packet.streamIndex == d.streamIndex
            {
                try d.decode(packet, into: frame, takeHeadAudio)
            }
        }
        // A span that starts on the clip's last frames: the frame held back is the first.
        if let held = pending, first == nil { takeHead(held) }
    }

    func picture(_ f: Frame) throws -> HeadPicture {
        let tile = try capture ? tiles.map { t in try t.image(f).rotated(clockwise: video?.rotation ?? 0) } : nil
        return (try scaler.thumbnail(f), tile, f.pts)
    }

    func takeHeadVideo(_ f: Frame) throws {
        guard framesSeen < wantFrames else { return }
        if originVideoPts == nil { originVideoPts = f.pts }
        if headTicks > 0, first == nil {
            // Before the span's start: the latest such frame is kept until a later one shows it ended.
            if (f.pts ?? 0) - (originVideoPts ?? 0) <= headTicks {
                pending = try picture(f)
                return
            }
            if let held = pending {
                pending = nil
                takeHead(held)
            }
        }
        takeHead(try picture(f))
    }

    func takeHead(_ p: HeadPicture) {
        if first == nil {
            first = p.thumbnail
            firstVideoPts = p.pts
        }
        firstFew.append(p.thumbnail)
        if let tile = p.tile, let v = video {
            shot.firstFrames.append(tile)
            shot.firstFrameTimes.append(Rational((p.pts ?? 0) - (firstVideoPts ?? 0)) * v.timeBase)
        }
        framesSeen += 1
    }

    func takeHeadAudio(_ f: Frame) {
        if firstAudioPts == nil, f.sampleCount > 0 {
            firstAudioPts = f.pts
            head = Array(repeating: [], count: f.channelCount)
            shot.channelNames = f.channelNames
            shot.sampleRate = audio?.sampleRate
        }
        // Samples before the span's start are passed over.
        let from = Int(Swift.min(Swift.max(headSkip - skipped, 0), Int64(f.sampleCount)))
        skipped += Int64(from)
        for c in head.indices where head[c].count < wantSamples {
            for i in from..<Swift.max(from, Swift.min(f.sampleCount, from + wantSamples - head[c].count)) {
                head[c].append(f.sample(channel: c, index: i))
            }
        }
    }

    // MARK: The tail

    /// Decoded frames are on the stream's clock (an Opus timeline in Matroska is on a finer one).
    lazy var audioClock: Rational = audio.map { input.timeBase($0.index) } ?? .zero

    /// A span's end: the frames starting before it (never past the track's own end).
    lazy var videoEnd: Int64? = video.flatMap { v in
        originVideoPts.map { origin in
            let whole = (v.durationSeconds / v.timeBase).floor
            return origin + (span.map { Swift.min((($0.end - v.startSeconds) / v.timeBase).ceiling, whole) } ?? whole)
        }
    }

    /// Whether the span ends inside the audio (read).
    var spanCutsAudio: Bool {
        guard let a = audio, let span, firstAudioPts != nil, let count = a.sampleCount, let rate = a.sampleRate else {
            return false
        }
        return ((span.end - a.startSeconds) * Int64(rate)).rounded < count.floor
    }

    /// The last presented sample's index on the decoder's sample clock (the first decoded sample is the first
    /// presented one): the track's, or the span's end where that is earlier.
    lazy var audioLast: Int64? = audio.flatMap { a -> Int64? in
        guard let pts = firstAudioPts, let count = a.sampleCount, let rate = a.sampleRate else { return nil }
        var presented = count.floor
        if let span, spanCutsAudio { presented = ((span.end - a.startSeconds) * Int64(rate)).rounded }
        return (Rational(pts) * audioClock * Int64(rate)).rounded + presented - 1
    }

    var lookBack: Int64 { max(window, 2) }

    /// Pictures presented well before the last few are neither kept nor scaled, and those of them nothing refers
    /// to are not decoded (a long GOP's tail is a third to a half such B-frames): the pictures kept decode exactly
    /// as they would.
    lazy var skipBefore: Int64? = video.flatMap { v in
        v.nominalFrameDuration.flatMap { ticks in videoEnd.map { $0 - Int64(wantFrames + 4) * ticks } }
    }

    /// Where a tick resolves single samples (MP4: 1/sample rate) the last presented samples are found by their
    /// index, since the AAC decoder outputs whole frames past the edit's end. Where ticks are coarser (Matroska's
    /// ms), pts cannot place a sample; the decoder's own last output is used, as it applies the container's end
    /// trim (discard padding) itself. A span that ends inside the audio is placed by the samples' times whatever
    /// the clock (to the tick).
    lazy var exact: Bool =
        spanCutsAudio || (audio.map { a in audioClock <= Rational(1, Int64(max(a.sampleRate ?? 1, 1))) } ?? false)

    /// A packet's end trim is not applied by FFmpeg's reading of this audio (its decoder gives whole frames).
    lazy var untrimmed: Bool = audio.map { PacketReader.decodesPastTheEnd(input, stream: $0.index) } ?? false

    /// The last pictures as given, where the head this reading decoded is the given head (the same packets decode
    /// to the same pictures from the same keyframe): the tail's video is then not decoded again. A span that shows
    /// fewer frames than the whole clip, or a capture, decodes it.
    lazy var lastGiven: [Thumbnail]? = given.flatMap { g in
        spanKeepsEveryFrame && !capture && !g.first.isEmpty && firstFew == g.first
            ? Array(g.last.suffix(wantFrames)) : nil
    }

    /// The last pictures an earlier reading of the file (`seen`) kept for this one, where its head decoded to the
    /// same first pictures and its last few are among those kept (a loop range that trims the sound, or ends a few
    /// frames before the picture does): taken where this reading's tail starts at the keyframe that one's did (the
    /// same packets decode to the same pictures), else decoded.
    lazy var lastSeen: [Thumbnail]? = {
        guard !capture, let seen, seen.keyframe != nil, headTicks == 0, !seen.first.isEmpty, firstFew == seen.first,
            let end = videoEnd
        else { return nil }
        let kept = seen.recent.filter { $0.pts < end }.map(\.thumbnail)
        return kept.count >= wantFrames ? Array(kept.suffix(wantFrames)) : nil
    }()

    /// The whole clip, or a span that shows every frame it does (its loop range trims only the audio, as where the
    /// sound outlasts the picture): its first and last pictures are the clip's.
    lazy var spanKeepsEveryFrame: Bool = {
        guard let span else { return true }
        guard let v = video, headTicks == 0 else { return false }
        return ((span.end - v.startSeconds) / v.timeBase).ceiling >= (v.durationSeconds / v.timeBase).floor
    }()

    /// What this reading decoded, as a later reading of the same file is given it (a loop range's: ClipAnalysis).
    var pictures: SeamPictures? {
        guard !firstFew.isEmpty, !lastFew.isEmpty, !recent.isEmpty else { return nil }
        return SeamPictures(first: firstFew, recent: recent, keyframe: tailKeyframe)
    }

    /// Seeks to the keyframe before the last frames and reads to the end. After any seek in an Ogg with video,
    /// FFmpeg gives the audio packets of the page it lands on times reckoned back from the page's granule with
    /// block sizes it has not seen (thousands of samples off, past the end), and a later seek on the audio lands on
    /// the same page: the audio's tail is read from the start there, in a reading of its own, where every time is
    /// right. Elsewhere one seek serves both tracks.
    func readTail() throws {
        let audioApart = video != nil && audio != nil && facts.container == .ogg
        try seekToTail()
        videoDecoder?.reset()
        audioDecoder?.reset()
        if let lastGiven { lastFew = lastGiven }
        try readTail(input, video: lastGiven == nil, audio: !audioApart)
        if audioApart {
            audioDecoder?.reset()
            try readTail(try InputFile(path: input.path), video: false, audio: true)
        }
    }

    /// A format that cannot seek (an MP3 without a seek table, some AVI and FLAC) is read on from the head to its
    /// end instead: slower, the same frames.
    func seekToTail() throws {
        do {
            if let v = video, let end = videoEnd {
                let frameTicks = v.nominalFrameDuration ?? 1
                try input.seek(stream: v.index, to: end - Int64(wantFrames + 1) * frameTicks)
            } else if let a = audio, let pts = firstAudioPts {
                let end = span.map { Rational.min($0.end - a.startSeconds, a.durationSeconds) } ?? a.durationSeconds
                // (Half a second before the end, or the start of a shorter clip.)
                try input.seek(stream: a.index, to: pts + max(0, ((end - Rational(1, 2)) / audioClock).floor))
            }
        } catch let error as MediaError where error.operation == "seek" {}
    }

    func readTail(_ source: InputFile, video: Bool, audio readsAudio: Bool) throws {
        var readsVideo = video
        while try source.read(into: packet) {
            if readsVideo, let d = videoDecoder, packet.streamIndex == d.streamIndex {
                if !reachedKey, packet.isKeyframe, let kept = lastSeen, packet.pts == seen?.keyframe {
                    lastFew = kept
                    readsVideo = false
                    continue
                }
                if !reachedKey, packet.isKeyframe { tailKeyframe = packet.pts }
                reachedKey = reachedKey || packet.isKeyframe
                if let skipBefore, let pts = packet.pts { d.skipsNonReference = pts < skipBefore }
                if reachedKey { try feed(d, takeVideo) }
            }
            if readsAudio, let d = audioDecoder, packet.streamIndex == d.streamIndex {
                try feedTailAudio(d)
            }
        }
        if readsVideo { try videoDecoder?.decode(nil, into: frame, takeVideo) }
        if readsAudio { try audioDecoder?.decode(nil, into: frame, takeAudio) }
    }

    /// A seek in MPEG-PS or -TS lands mid-stream: video is decoded from its next keyframe, and a packet cut by the
    /// seek (invalid data) is passed over until the stream has given a frame.
    func feed(_ d: Decoder, _ body: (Frame) throws -> Void) throws {
        do {
            try d.decode(packet, into: frame) {
                decoded.insert(d.streamIndex)
                try body($0)
            }
        } catch let error as MediaError where error.code == lp_error_invaliddata && !decoded.contains(d.streamIndex) {
            d.reset()
        }
    }

    /// Audio more than a fifth of a second before the samples kept is not decoded (the tail starts at the video's
    /// last keyframe, seconds earlier in a long GOP): the decoder has warmed up again well before the window (a
    /// seam needs a few audio packets, not the GOP's).
    func feedTailAudio(_ d: Decoder) throws {
        if let last = audioLast, let pts = packet.pts, let rate = audio?.sampleRate,
            (Rational(pts + packet.duration) * audioClock * Int64(rate)).rounded < last - lookBack - Int64(rate / 5)
        {
            return
        }
        if untrimmed { packet.clearSkipEnd() }
        try feed(d, takeAudio)
    }

    func takeVideo(_ f: Frame) throws {
        guard let pts = f.pts, let end = videoEnd, pts < end else { return }
        if let skipBefore, pts < skipBefore { return }
        let thumbnail = try scaler.thumbnail(f)
        lastFew.append(thumbnail)
        if lastFew.count > SeamCapture.frames { lastFew.removeFirst() }
        recent.append((pts, thumbnail))
        if capture, let tiles, let v = video {
            shot.lastFrames.append(try tiles.image(f).rotated(clockwise: v.rotation ?? 0))
            shot.lastFrameTimes.append(Rational(pts - end) * v.timeBase)
            if shot.lastFrames.count > SeamCapture.frames {
                shot.lastFrames.removeFirst()
                shot.lastFrameTimes.removeFirst()
            }
        }
    }

    func takeAudio(_ f: Frame) {
        guard let a = audio, let rate = a.sampleRate else { return }
        if tail.isEmpty { tail = Array(repeating: [], count: f.channelCount) }
        var range = 0..<f.sampleCount
        if exact {
            guard let last = audioLast, let pts = f.pts else { return }
            let start = (Rational(pts) * audioClock * Int64(rate)).rounded
            let lo = max(start, last - lookBack + 1)
            let hi = min(start + Int64(f.sampleCount), last + 1)
            guard lo < hi else { return }
            range = Int(lo - start)..<Int(hi - start)
        }
        for c in tail.indices where c < f.channelCount {
            for i in range { tail[c].append(f.sample(channel: c, index: i)) }
            if tail[c].count > Int(lookBack) { tail[c].removeFirst(tail[c].count - Int(lookBack)) }
        }
    }

    // MARK: The figures

    /// The seam's figures from the head and tail read (and the capture's audio).
    func figures() -> SeamFacts {
        var seam = SeamFacts()
        if let first, let last = lastFew.last {
            seam.videoDifference = last.difference(first)
            seam.videoMotion = lastFew.count >= 2 ? lastFew[lastFew.count - 2].difference(last) : 0
            seam.motionAround =
                zip(lastFew, lastFew.dropFirst()).map { $0.difference($1) }
                + zip(firstFew, firstFew.dropFirst()).map { $0.difference($1) }
            // The structure at the seam against the pairs around it: the last transitions, the first ones.
            func unlike(_ a: Thumbnail, _ b: Thumbnail) -> Double {
                SeamStructure.dissimilarity(a.luma, b.luma, width: Thumbnail.width, height: Thumbnail.height)
            }
            let pairs = zip(lastFew, lastFew.dropFirst()).map(unlike) + zip(firstFew, firstFew.dropFirst()).map(unlike)
            seam.structure = SeamStructureFigures(seam: unlike(last, first), neighbours: pairs)
        }
        if head.allSatisfy({ $0.count >= 2 }), !head.isEmpty, tail.count == head.count,
            tail.allSatisfy({ $0.count >= 2 })
        {
            seam.audioJump = zip(head, tail).map { h, t in
                let (first, second) = (h[0], h[1])
                let (previous, final) = (t[t.count - 2], t[t.count - 1])
                // Where the wave was heading across the seam: the mean of the slopes on both sides.
                let predicted = final + ((final - previous) + (second - first)) / 2
                return Double(abs(first - predicted))
            }
            seam.audioWrap = zip(head, tail).map { SeamAudioClick.wrapExcess(tail: $1, head: $0) }
            seam.audioRoughness = zip(head, tail).map { SeamAudioClick.insideJump(tail: $1, head: $0) }
        }
        shot.audioBefore = tail
        shot.audioAfter = head
        return seam
    }
}
