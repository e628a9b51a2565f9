import CFFmpeg
import LoopAnalysis
import LoopIndex

/// `loopprep loop`: one decode of the clip at a small size (64x36 grey, loop filters skipped), the audio at every
/// frame's start, then LoopFinder's search; the chosen loop is cut with fix's lossless machinery (or blended
/// with stitch's wrap-around when asked). Memory: the signatures (`FrameSignature.bytes` a frame) and 100 ms of
/// audio, whatever the clip's length.
enum LoopSearch {
    struct Signatures: Sendable {
        public var frames: [FrameSignature]
        /// Each frame's start (seconds on the clip's clock) and the last one's end.
        public var times: [Rational]
        public var end: Rational
        public var keyframes: Set<Int>
        public var codec: String
        public var frameRate: Rational?
        /// Where the video's first frame is presented on the file's timeline (`times` count from it): an FLV
        /// remux's 21 ms, a B-frame delay no edit list hides.
        public var videoStart: Rational = .zero

        /// The video's clock step (seconds).
        public var tick: Rational = .zero

        /// Where video time t falls on the audio: sample (t + audioOffset) x rate of the decoded audio.
        public var audioOffset: Rational = .zero

        /// Where each audio track ends on the video's time (`times`), and the length of one of its samples: fix
        /// cuts every track to the shortest, so no loop ends later.
        public var audioEnds: [(end: Rational, sample: Rational)] = []
        /// The container's tick (Matroska's millisecond; zero where exact).
        public var resolution: Rational = .zero

        /// Whether a loop may end at `boundary` (video time): within what every audio track presents, as fix's
        /// video end takes it (less than a sample after an audio end, or within the container's tick).
        func withinAudio(_ boundary: Rational) -> Bool {
            audioEnds.allSatisfy { boundary - $0.end <= resolution || boundary - $0.end < $0.sample }
        }

        /// The frames a loop is searched in: those that start within the audio (the last one only as the frame
        /// that would follow a loop), and the end of the last.
        var searched: (frames: ArraySlice<FrameSignature>, times: ArraySlice<Rational>, end: Rational) {
            let n = times.firstIndex { !withinAudio($0) } ?? times.count
            return (frames[..<n], times[..<n], n < times.count ? times[n] : end)
        }

        /// Where the search stopped for the audio, said with its remedy: nil where it saw every frame.
        var stoppedAtAudio: String? {
            guard searched.times.count < times.count, let audio = audioEnds.map(\.end).min() else { return nil }
            return """
                loops are searched only while the audio lasts (to \(Figures.seconds(audio)) of the picture's \
                \(Figures.seconds(end)); loopprep fix --keep video keeps every frame, the sound padded with silence)
                """
        }

        /// Frames whose lengths differ by more than one tick of their clock (stitch's test for a constant rate:
        /// Matroska's 33 and 34 ms at 30 fps are one tick apart; an FLV remux's on a 16 kHz clock are not).
        public var hasVariableTiming: Bool {
            let steps = zip(times, times.dropFirst()).map { $1 - $0 }
            guard let low = steps.min(), let high = steps.max() else { return false }
            return high - low > tick
        }
    }

    /// A clip with no video track: read, but nothing to search (a refusal, exit 1; not an unreadable file).
    static let noPicture = PlanError(
        "it has no video track: loop finds where a picture repeats (loopprep fix prepares an audio clip to loop whole)")

    /// `progress`: how far the decoding is (0-1, by the video's presented time), about ten times a second.
    public static func signatures(_ path: String, progress: ((Double) -> Void)? = nil) throws -> Signatures {
        // The probe's own input, not yet read (it reopens the file when it had to read packets).
        let probe = try Probe.probe(path)
        guard let input = probe.input else {
            throw MediaError("find loop", reason: "the clip was probed without its input")
        }
        let facts = probe.facts
        guard let video = facts.mainVideo else { throw noPicture }
        let audio = facts.mainAudio
        let decoder = try Decoder(input, stream: video.index, threads: 0, fast: true)
        let audioDecoder = try audio.map { try Decoder(input, stream: $0.index) }
        let scaler = Scaler(width: Thumbnail.width, height: Thumbnail.height)
        let vtb = input.timeBase(video.index)
        var frames: [FrameSignature] = []
        var times: [Rational] = []
        var keys = Set<Int>()
        var firstPts: Int64?
        var lastDuration = Rational.zero
        // Audio sample k is presented at the audio track's start + k / rate; video times count from the first
        // frame's presentation: the offset between them places each frame boundary on the audio.
        let length = video.endSeconds - video.startSeconds
        var edges = AudioEdges(
            rate: audio?.sampleRate ?? 48000, offset: video.startSeconds - (audio?.startSeconds ?? video.startSeconds))
        let packet = try Packet()
        let frame = try Frame()
        func takeVideo(_ f: Frame) throws {
            guard let pts = f.pts else { return }
            let origin = firstPts ?? pts
            firstPts = origin
            let t = Rational(pts - origin) * vtb
            if let last = times.last, t <= last { return }
            if lp_frame_is_key(f.pointer) != 0 { keys.insert(frames.count) }
            let (luma, chroma) = try scaler.planes(f)
            frames.append(FrameSignature(luma: luma, chroma: chroma))
            times.append(t)
            if let progress, length > .zero, frames.count % 30 == 0 {
                progress(min(1, (t / length).doubleValue))
            }
            edges.boundary(at: t)
            lastDuration = Rational(max(lp_frame_duration(f.pointer), 0)) * vtb
        }
        func takeAudio(_ f: Frame) {
            let samples = (0..<f.channelCount).map { c in (0..<f.sampleCount).map { f.sample(channel: c, index: $0) } }
            edges.add(samples)
        }
        while try input.read(into: packet) {
            if packet.streamIndex == video.index {
                try decoder.decode(packet, into: frame, takeVideo)
            } else if let d = audioDecoder, packet.streamIndex == d.streamIndex {
                try d.decode(packet, into: frame, takeAudio)
            }
        }
        try decoder.decode(nil, into: frame, takeVideo)
        try audioDecoder?.decode(nil, into: frame, takeAudio)
        edges.finish()
        edges.annotate(&frames)
        guard !frames.isEmpty, let lastStart = times.last else {
            throw MediaError("find loop", reason: "no video frame decodes")
        }
        let step = video.frameRate.map { Rational.one / $0 } ?? lastDuration
        return Signatures(
            frames: frames, times: times, end: lastStart + (lastDuration.isZero ? step : lastDuration),
            keyframes: keys,
            codec: video.codec, frameRate: video.frameRate, videoStart: video.startSeconds, tick: vtb,
            audioOffset: edges.offset,
            audioEnds: audioEnds(facts, from: video.startSeconds), resolution: facts.timestampResolution)
    }

    /// What the page draws of a few candidates' seams, from one more pass over the file (the search keeps 64x36
    /// grey pictures and four samples a frame): colour tiles (160 wide, as analyze draws a seam) of the frames
    /// asked for, counted as `signatures` counts them (presented frames in order, a repeated time skipped), and
    /// per channel the 50 ms of audio that end at each boundary (video time) and the 50 ms that start there.
    struct SeamPictures: Sendable {
        public var tiles: [Int: RGBImage] = [:]
        public var before: [Rational: [[Float]]] = [:]
        public var after: [Rational: [[Float]]] = [:]
        public var rate: Int = 48000
        public var channelNames: [String] = []
    }

    public static func seamPictures(
        _ path: String, frames wanted: Set<Int>, boundaries: Set<Rational>, offset: Rational
    ) throws -> SeamPictures {
        let probe = try Probe.probe(path)
        var result = SeamPictures()
        guard let input = probe.input else { return result }
        let video = try probe.facts.mainVideo.map { v in
            (track: v, decoder: try Decoder(input, stream: v.index, threads: 0, fast: true))
        }
        let scaler = probe.facts.mainVideo.map(SeamProbe.tileScaler)
        let audio = try probe.facts.mainAudio.flatMap { a -> (track: TrackFacts, decoder: Decoder, rate: Int)? in
            guard let rate = a.sampleRate, rate > 0 else { return nil }
            return (a, try Decoder(input, stream: a.index), rate)
        }
        let rate = audio?.rate ?? result.rate
        result.rate = rate
        let window = rate / 20
        let starts = Dictionary(
            boundaries.map { ($0, Int(clamping: ((($0 + offset) * Int64(rate)).rounded))) },
            uniquingKeysWith: { a, _ in a })
        let lastFrame = wanted.max() ?? -1
        let lastSample = (starts.values.max() ?? 0) + window
        var count = 0
        var lastPts: Int64?
        var position = 0
        func takeVideo(_ f: Frame) throws {
            guard let pts = f.pts, let scaler else { return }
            if let lastPts, pts <= lastPts { return }
            lastPts = pts
            if wanted.contains(count) { result.tiles[count] = try scaler.image(f) }
            count += 1
        }
        func takeAudio(_ f: Frame) {
            if result.channelNames.isEmpty { result.channelNames = f.channelNames }
            let n = f.sampleCount
            for (t, s) in starts where s - window < position + n && s + window > position {
                for (range, before) in [((s - window)..<s, true), (s..<(s + window), false)] {
                    let (lo, hi) = (max(range.lowerBound, position), min(range.upperBound, position + n))
                    guard lo < hi else { continue }
                    var lanes =
                        (before ? result.before[t] : result.after[t])
                        ?? Array(repeating: [Float](repeating: 0, count: window), count: f.channelCount)
                    for i in lo..<hi {
                        for c in lanes.indices where c < f.channelCount {
                            lanes[c][i - range.lowerBound] = f.sample(channel: c, index: i - position)
                        }
                    }
                    if before { result.before[t] = lanes } else { result.after[t] = lanes }
                }
            }
            position += n
        }
        let packet = try Packet()
        let frame = try Frame()
        func videoDone() -> Bool { video == nil || count > lastFrame }
        func audioDone() -> Bool { audio == nil || position >= lastSample }
        while !(videoDone() && audioDone()), try input.read(into: packet) {
            if let v = video, !videoDone(), packet.streamIndex == v.track.index {
                try v.decoder.decode(packet, into: frame, takeVideo)
            } else if let a = audio, !audioDone(), packet.streamIndex == a.track.index {
                try a.decoder.decode(packet, into: frame, takeAudio)
            }
        }
        if !videoDone() { try video?.decoder.decode(nil, into: frame, takeVideo) }
        if !audioDone() { try audio?.decoder.decode(nil, into: frame, takeAudio) }
        return result
    }

    /// Where each audio track ends, on the time of a video starting at `start`, and one of its samples' length.
    static func audioEnds(_ facts: ClipFacts, from start: Rational) -> [(end: Rational, sample: Rational)] {
        facts.tracks.filter { $0.kind == .audio }.map { a in
            (a.endSeconds - start, Rational(1, Int64(max(a.sampleRate ?? 0, 1))))
        }
    }

    /// The audio at each frame boundary, from a rolling window: per channel the two samples either side, and the
    /// level and tone of the 50 ms either side. The window keeps two seconds behind the newest sample as well as
    /// what a pending boundary needs: the video decoder hands its frames over later than the audio decoder (it
    /// holds some back), so a boundary can arrive after its samples did.
    struct AudioEdges {
        struct Feature {
            var edge: [[Float]]
            var before: Float, after: Float
            var crossingsBefore: Float, crossingsAfter: Float
        }
        let rate: Int
        let half: Int
        let keep: Int
        let offset: Rational
        var window: [[Float]] = []  // per channel
        var windowStart = 0  // sample index of window[c][0]
        var received = 0
        var pending: [(frame: Int, sample: Int)] = []
        var frameCount = 0
        var features: [Int: Feature] = [:]

        /// Each frame's audio figures, from the boundaries measured.
        func annotate(_ frames: inout [FrameSignature]) {
            for (k, e) in features where k < frames.count {
                frames[k].edges = e.edge
                frames[k].levelBefore = e.before
                frames[k].levelAfter = e.after
                frames[k].crossingsBefore = e.crossingsBefore
                frames[k].crossingsAfter = e.crossingsAfter
            }
        }

        init(rate: Int, offset: Rational = .zero) {
            self.rate = rate
            half = max(rate / 20, 2)
            keep = max(2 * rate, 4 * half)
            self.offset = offset
        }

        mutating func boundary(at t: Rational) {
            pending.append((frameCount, ((t + offset) * Int64(rate)).rounded.clamped))
            frameCount += 1
            drain()
        }

        /// One decoded frame's samples, per channel.
        mutating func add(_ samples: [[Float]]) {
            guard let count = samples.first?.count, count > 0 else { return }
            if window.isEmpty { window = Array(repeating: [], count: samples.count) }
            for c in window.indices { window[c] += c < samples.count ? samples[c] : Array(repeating: 0, count: count) }
            received += count
            drain()
            // Keep two seconds, and what the earliest pending boundary still needs.
            let keepFrom = min(pending.first?.sample ?? received, received - keep) - half
            if keepFrom - windowStart > keep {
                let drop = min(keepFrom - windowStart, window.first?.count ?? 0)
                for c in window.indices { window[c].removeFirst(drop) }
                windowStart += drop
            }
        }

        mutating func drain() {
            while let p = pending.first, received >= p.sample + half {
                measure(p)
                pending.removeFirst()
            }
        }

        mutating func finish() {
            for p in pending { measure(p) }
            pending = []
        }

        mutating func measure(_ p: (frame: Int, sample: Int)) {
            func at(_ c: Int, _ i: Int) -> Float {
                let k = i - windowStart
                return c < window.count && k >= 0 && k < window[c].count ? window[c][k] : 0
            }
            func rms(_ from: Int, _ to: Int) -> Float {
                var sum: Float = 0
                var n = 0
                for c in window.indices {
                    for i in from..<to {
                        let v = at(c, i)
                        sum += v * v
                        n += 1
                    }
                }
                return n > 0 ? (sum / Float(n)).squareRoot() : 0
            }
            func crossings(_ from: Int, _ to: Int) -> Float {
                var n = 0
                for i in (from + 1)..<to where (at(0, i - 1) < 0) != (at(0, i) < 0) { n += 1 }
                return Float(n) * Float(rate) / Float(max(to - from, 1))
            }
            let s = p.sample
            features[p.frame] = Feature(
                edge: window.indices.map { c in [at(c, s - 2), at(c, s - 1), at(c, s), at(c, s + 1)] },
                before: rms(s - half, s), after: rms(s, s + half), crossingsBefore: crossings(s - half, s),
                crossingsAfter: crossings(s, s + half))
        }
    }
}

extension Int64 {
    fileprivate var clamped: Int { Int(clamping: self) }
}
