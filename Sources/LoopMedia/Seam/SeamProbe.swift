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
    public static func measure(
        _ input: InputFile, facts: ClipFacts, capture: Bool, span: (start: Rational, end: Rational)? = nil
    ) throws -> (seam: SeamFacts, capture: SeamCapture?) {
        let video = facts.mainVideo
        let audio = facts.mainAudio
        // One decoding whether pictures are wanted or not (loop filters skipped either way), so the figures a CI
        // report prints are the ones the page shows.
        let videoDecoder = try video.map { try Decoder(input, stream: $0.index, threads: 0, fast: true) }
        let audioDecoder = try audio.map { try Decoder(input, stream: $0.index) }
        let scaler = Scaler(width: Thumbnail.width, height: Thumbnail.height)
        let tiles = video.map { Self.tileScaler($0) }
        let packet = try Packet()
        let frame = try Frame()
        var shot = SeamCapture()
        let window = audio.flatMap { a in a.sampleRate.map { (SeamCapture.audioSeconds * Int64($0)).rounded } } ?? 0
        // The same decoding with or without pictures (where the tail decode starts changes the audio decoder's
        // warm-up, and so the last samples' figures).
        let wantFrames = SeamCapture.frames
        let wantSamples = max(Int(window), 2)

        // The head: the first presented frame(s) and samples.
        var first: Thumbnail?
        var firstFew: [Thumbnail] = []
        var head: [[Float]] = []
        var firstVideoPts: Int64?
        var firstAudioPts: Int64?
        var framesSeen = 0
        // Where the span starts, on each track's own count: video ticks after its first presented frame, audio
        // samples after its first presented sample (0 for the whole clip).
        let headTicks =
            video.flatMap { v in span.map { Swift.max(((($0.start - v.startSeconds) / v.timeBase)).floor, 0) } } ?? 0
        let headSkip =
            audio.flatMap { a in
                a.sampleRate.flatMap { rate in
                    span.map { Swift.max((($0.start - a.startSeconds) * Int64(rate)).rounded, 0) }
                }
            } ?? 0
        var skipped: Int64 = 0
        // The clip's first presented frame: the span's times count from it.
        var originVideoPts: Int64?
        func headDone() -> Bool {
            (videoDecoder == nil || framesSeen >= wantFrames)
                && (audioDecoder == nil || (head.first?.count ?? 0) >= wantSamples)
        }
        /// A decoded frame as the head keeps it: its thumbnail, its tile (with `capture`) and its time.
        typealias HeadPicture = (thumbnail: Thumbnail, tile: RGBImage?, pts: Int64?)
        func picture(_ f: Frame) throws -> HeadPicture {
            let tile = try capture ? tiles.map { t in try t.image(f).rotated(clockwise: video?.rotation ?? 0) } : nil
            return (try scaler.thumbnail(f), tile, f.pts)
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
        // The frame showing at the span's start: the last one starting at or before it, taken once a later one
        // comes (or the head's reading ends).
        var pending: HeadPicture?
        while !headDone() {
            guard try input.read(into: packet) else { break }
            if let d = videoDecoder, framesSeen < wantFrames, packet.streamIndex == d.streamIndex {
                try d.decode(packet, into: frame) { f in
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
            } else if let d = audioDecoder, (head.first?.count ?? 0) < wantSamples, packet.streamIndex == d.streamIndex
            {
                try d.decode(packet, into: frame) { f in
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
            }
        }
        // A span that starts on the clip's last frames: the frame held back is the first.
        if let held = pending, first == nil { takeHead(held) }

        // The tail: seek to the keyframe before the last frame, decode everything to the end, flush.
        // Decoded frames are on the stream's clock (an Opus timeline in Matroska is on a finer one).
        let audioClock = audio.map { input.timeBase($0.index) } ?? .zero
        // A span's end: the frames starting before it, the samples before it (never past the track's own end).
        let videoEnd = video.flatMap { v in
            originVideoPts.map { origin in
                let whole = (v.durationSeconds / v.timeBase).floor
                return origin
                    + (span.map { Swift.min(((($0.end - v.startSeconds) / v.timeBase)).ceiling, whole) } ?? whole)
            }
        }
        var spanCutsAudio = false
        let audioLast = audio.flatMap { a -> Int64? in
            guard let pts = firstAudioPts, let count = a.sampleCount, let rate = a.sampleRate else { return nil }
            // Last presented sample index on the decoder's sample clock (the first decoded sample is the first
            // presented one).
            var presented = count.floor
            if let span, ((span.end - a.startSeconds) * Int64(rate)).rounded < presented {
                presented = ((span.end - a.startSeconds) * Int64(rate)).rounded
                spanCutsAudio = true
            }
            return (Rational(pts) * audioClock * Int64(rate)).rounded + presented - 1
        }
        let lookBack = max(Int64(window), 2)
        // After any seek in an Ogg with video, FFmpeg gives the audio packets of the page it lands on times reckoned
        // back from the page's granule with block sizes it has not seen (thousands of samples off, past the end),
        // and a later seek on the audio lands on the same page: the audio's tail is read from the start there, in a
        // reading of its own, where every time is right. Elsewhere one seek serves both tracks.
        let audioApart = video != nil && audio != nil && facts.container == .ogg
        // A format that cannot seek (an MP3 without a seek table, some AVI and FLAC) is read on from the head to
        // its end instead: slower, the same frames.
        do {
            if let v = video, let end = videoEnd {
                let frameTicks = v.nominalFrameDuration ?? 1
                try input.seek(stream: v.index, to: end - Int64(wantFrames + 1) * frameTicks)
            } else if let a = audio, let pts = firstAudioPts {
                let end =
                    span.map { Rational.min($0.end - a.startSeconds, a.durationSeconds) } ?? a.durationSeconds
                try input.seek(stream: a.index, to: pts + ((end - Rational(1, 2)) / audioClock).floor)
            }
        } catch let error as MediaError where error.operation == "seek" {}
        videoDecoder?.reset()
        audioDecoder?.reset()

        // Pictures presented well before the last few are neither kept nor scaled, and those of them nothing refers
        // to are not decoded (a long GOP's tail is a third to a half such B-frames): the pictures kept decode
        // exactly as they would.
        let skipBefore = video.flatMap { v in
            v.nominalFrameDuration.flatMap { ticks in videoEnd.map { $0 - Int64(wantFrames + 4) * ticks } }
        }
        var lastFew: [Thumbnail] = []
        func takeVideo(_ f: Frame) throws {
            guard let pts = f.pts, let end = videoEnd, pts < end else { return }
            if let skipBefore, pts < skipBefore { return }
            lastFew.append(try scaler.thumbnail(f))
            if lastFew.count > SeamCapture.frames { lastFew.removeFirst() }
            if capture, let tiles, let v = video {
                shot.lastFrames.append(try tiles.image(f).rotated(clockwise: v.rotation ?? 0))
                shot.lastFrameTimes.append(Rational(pts - end) * v.timeBase)
                if shot.lastFrames.count > SeamCapture.frames {
                    shot.lastFrames.removeFirst()
                    shot.lastFrameTimes.removeFirst()
                }
            }
        }
        // Where a tick resolves single samples (MP4: 1/sample rate) the last presented samples are found by their
        // index, since the AAC decoder outputs whole frames past the edit's end. Where ticks are coarser
        // (Matroska's ms), pts cannot place a sample; the decoder's own last output is used, as it applies
        // the container's end trim (discard padding) itself.
        // A span that ends inside the audio is placed by the samples' times whatever the clock (to the tick).
        let exact =
            spanCutsAudio || (audio.map { a in audioClock <= Rational(1, Int64(max(a.sampleRate ?? 1, 1))) } ?? false)
        var tail: [[Float]] = []
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
        // A seek in MPEG-PS or -TS lands mid-stream: video is decoded from its next keyframe, and a packet cut by
        // the seek (invalid data) is passed over until the stream has given a frame.
        let untrimmed = audio.map { PacketReader.decodesPastTheEnd(input, stream: $0.index) } ?? false
        var reachedKey = false
        var decoded = Set<Int>()
        func feed(_ d: Decoder, _ body: (Frame) throws -> Void) throws {
            do {
                try d.decode(packet, into: frame) {
                    decoded.insert(d.streamIndex)
                    try body($0)
                }
            } catch let error as MediaError where error.code == lp_error_invaliddata && !decoded.contains(d.streamIndex)
            {
                d.reset()
            }
        }
        func readTail(_ source: InputFile, video readsVideo: Bool, audio readsAudio: Bool) throws {
            while try source.read(into: packet) {
                if readsVideo, let d = videoDecoder, packet.streamIndex == d.streamIndex {
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
        func feedTailAudio(_ d: Decoder) throws {
            // Audio more than a fifth of a second before the samples kept is not decoded (the tail starts at the
            // video's last keyframe, seconds earlier in a long GOP): the decoder has warmed up again well before the
            // window (a seam needs a few audio packets, not the GOP's).
            if let last = audioLast, let pts = packet.pts, let rate = audio?.sampleRate,
                (Rational(pts + packet.duration) * audioClock * Int64(rate)).rounded
                    < last - lookBack - Int64(rate / 5)
            {
                return
            }
            if untrimmed { packet.clearSkipEnd() }
            try feed(d, takeAudio)
        }
        try readTail(input, video: true, audio: !audioApart)
        if audioApart {
            audioDecoder?.reset()
            try readTail(try InputFile(path: input.path), video: false, audio: true)
        }

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
        }
        shot.audioBefore = tail
        shot.audioAfter = head
        return (seam, capture ? shot : nil)
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
