import LoopAnalysis
import LoopIndex

/// The independent reading of a written file: FFmpeg's own demuxer, opened as any FFmpeg-based player opens it
/// (edit lists applied, its own packet timestamps and skip/discard side data), and its own decoders on the head
/// and the tail of every track. Nothing here uses loopprep's index, retiming or repairs, so a blind spot in
/// loopprep's timing model cannot hide here too. Where FFmpeg is known to read a file differently from players,
/// the exception is said next to the code and listed in docs/verification.md.
enum FFmpegReading {
    /// Audio packets decoded at the tail: enough for any decoder's warm-up (Vorbis's first packet gives nothing).
    static let audioTail = 12
    /// Packets a head decoder may take before its first frames (a long B-pyramid, a Vorbis warm-up).
    static let headLimit = 600
    /// Video packets kept for the tail: the last GOP (a longer one is read from its last `tailLimit` packets).
    static let tailLimit = 1200

    /// `libvorbisStart`: a Vorbis track in Ogg whose first packet FFmpeg times at 0 or later starts where
    /// libvorbis plays it (see finishHead). Off for a file loopprep wrote itself: there both must agree.
    public static func read(_ path: String, libvorbisStart: Bool = true) throws -> IndependentReading {
        let input = try InputFile(path: path)
        let format = input.formatName
        let mov = format.hasPrefix("mov,")
        var tracks: [Stream] = []
        for index in 0..<input.streamCount {
            let basics = input.basics(index)
            guard basics.kind == .video || basics.kind == .audio else { continue }
            let timeBase = input.timeBase(index)
            // Matroska rounds every block time to its timestamp scale (a millisecond); elsewhere a time is exact
            // to half its time base's step.
            // A video's last frame lasts, in MP4, to where the next decode time would be: a whole tick of its clock
            // may separate that from its own length (a 90 kHz clock that jitters).
            let tick = format.hasPrefix("matroska") || basics.kind == .video ? timeBase : timeBase * Rational(1, 2)
            tracks.append(
                Stream(
                    track: IndependentReading.Track(index: index, kind: basics.kind, codec: basics.codec, tick: tick),
                    timeBase: timeBase,
                    head: try? Decoder(
                        input, stream: index, threads: basics.kind == .video ? 0 : 1, timingOnly: basics.kind == .video)
                ))
        }
        for stream in tracks {
            stream.inOgg = format.hasPrefix("ogg") && libvorbisStart
            stream.inMov = mov
        }
        let byIndex = Dictionary(uniqueKeysWithValues: tracks.map { ($0.track.index, $0) })
        let packet = try Packet()
        let frame = try Frame()
        // An MP4's demuxer holds every sample's time and flags in its index: the frames are counted there and only
        // the head and the last GOP are read, not the whole file's payloads.
        let indexes = mov ? tracks.map { input.indexEntries($0.track.index) } : []
        if mov, indexes.allSatisfy({ !$0.isEmpty }) {
            for (stream, entries) in zip(tracks, indexes) {
                stream.frames = entries.filter { !$0.isDiscarded }.count
                if stream.isVideo { stream.decodeTimes = entries.map(\.timestamp) }
            }
            while tracks.contains(where: { $0.head != nil }), try input.read(into: packet) {
                try byIndex[packet.streamIndex]?.takeHead(packet, frame: frame)
            }
            for (stream, entries) in zip(tracks, indexes) where stream.decodable {
                let from =
                    stream.isVideo
                    ? entries.last(where: \.isKeyframe) ?? entries[0]
                    : entries[stream.audioTailStart(entries.map(\.timestamp))]
                try input.seek(stream: stream.track.index, to: from.timestamp)
                while try input.read(into: packet) {
                    if packet.streamIndex == stream.track.index { try stream.keepTail(packet) }
                }
            }
        } else {
            while try input.read(into: packet) {
                guard let stream = byIndex[packet.streamIndex] else { continue }
                if !packet.isDiscarded && stream.isVideo { stream.frames += 1 }
                try stream.takeHead(packet, frame: frame)
                try stream.keepTail(packet)
            }
        }
        for stream in tracks where stream.decodable {
            try stream.finishHead(frame: frame)
            // FFmpeg's mov demuxer presents the last frame and the last audio packet whole (its decoder puts out
            // every sample of it), past the edit list's end; players (AVFoundation, browsers) stop at the edit's
            // end, which FFmpeg gives as the stream's duration: that end is the one taken.
            let editEnd = mov ? input.streamDuration(stream.track.index) : nil
            try stream.decodeTail(
                // Pictures are only counted and timed: in-loop filtering is skipped (a third of a 1080p decode).
                Decoder(input, stream: stream.track.index, threads: stream.isVideo ? 0 : 1, timingOnly: stream.isVideo),
                frame: frame,
                editEnd: editEnd.map { Rational($0) * stream.timeBase })
        }
        return IndependentReading(tracks: tracks.map(\.track))
    }

    /// An MP4 video frame's length from FFmpeg's index (its decode times, increasing): the step from `dts` to the
    /// next decode time (its stts delta); nil for the last sample, whose delta the index does not hold (it ends
    /// where FFmpeg's stream ends, its edit or media duration). FFmpeg's mov demuxer leaves a packet's
    /// duration unset where composition offsets are present (B-frames), and libavformat then guesses a frame as one
    /// tick of a clock coarser than 1 kHz: QuickTime's 600 made an Apple-style H.264's last frame last 1.667 ms.
    /// Players end a frame at its own delta.
    static func decodeStep(at dts: Int64, in times: [Int64]) -> Int64? {
        var (lo, hi) = (0, times.count)
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < dts { lo = mid + 1 } else { hi = mid }
        }
        guard lo + 1 < times.count, times[lo] == dts else { return nil }
        return times[lo + 1] > times[lo] ? times[lo + 1] - times[lo] : nil
    }

    /// One track's reading as its packets go by.
    final class Stream {
        var track: IndependentReading.Track
        let timeBase: Rational
        var head: Decoder?
        var headPackets = 0
        /// The first decoded frames: (pts, seconds each lasts).
        var headFrames: [(pts: Int64, length: Rational?)] = []
        /// The first packet's time and whether the decoder put out anything for it (Vorbis's warm-up: nothing).
        var firstPacketPts: Int64?
        var firstPacketSilent = false
        /// The samples the demuxer told the decoder to drop at the first packet (an MP4 edit list's skip).
        var firstPacketSkip: Int64 = 0
        var tail: [Packet] = []
        var frames = 0
        /// An MP4 video's decode times from FFmpeg's index (decodeStep).
        var decodeTimes: [Int64] = []
        let decodable: Bool
        /// An Ogg stream (granule positions).
        var inOgg = false
        /// An MP4 or MOV stream (an edit list's skip counted on the track's clock).
        var inMov = false
        /// Audio: stream ticks of packets the tail decoder is given before the last `audioTail` packets, for a
        /// decoder that drops samples at its start wherever it starts (Decoder.lead).
        let lead: Int64
        /// The durations of the kept tail's packets before its last `audioTail`.
        private var leadKept: Int64 = 0

        init(track: IndependentReading.Track, timeBase: Rational, head: Decoder?) {
            self.track = track
            self.timeBase = timeBase
            self.head = head
            decodable = head != nil
            lead = head.map { ($0.lead / timeBase).ceiling } ?? 0
            if head == nil { self.track.decoderDisagrees = "FFmpeg has no decoder for it" }
        }

        var isVideo: Bool { track.kind == .video }
        /// Frames the head decoder must give: a video's first (its start), an audio track's first four (their
        /// lengths against the steps between their times).
        var headWanted: Int { isVideo ? 1 : 4 }

        func takeHead(_ packet: Packet, frame: Frame) throws {
            guard let head else { return }
            headPackets += 1
            let before = headFrames.count
            try head.decode(packet, into: frame) { headFrame($0) }
            if headPackets == 1 {
                firstPacketPts = packet.pts
                firstPacketSilent = headFrames.count == before
                firstPacketSkip = packet.skipSamples?.start ?? 0
            }
            if headFrames.count >= headWanted || headPackets >= FFmpegReading.headLimit { try finishHead(frame: frame) }
        }

        func keepTail(_ packet: Packet) throws {
            if isVideo {
                if packet.isKeyframe || tail.count >= FFmpegReading.tailLimit { tail.removeAll(keepingCapacity: true) }
            }
            tail.append(try packet.clone())
            guard !isVideo else { return }
            // Audio: the last `audioTail` packets and, before them, those covering the decoder's lead.
            if tail.count > FFmpegReading.audioTail {
                leadKept += tail[tail.count - FFmpegReading.audioTail - 1].duration
            }
            while tail.count > FFmpegReading.audioTail,
                leadKept - tail[0].duration >= lead || tail.count > FFmpegReading.audioTail + FFmpegReading.headLimit
            {
                leadKept -= tail[0].duration
                tail.removeFirst()
            }
        }

        /// Audio in an index: where the tail starts, `audioTail` packets from the end and the decoder's lead before
        /// them (decode times in stream ticks).
        func audioTailStart(_ times: [Int64]) -> Int {
            var start = max(0, times.count - FFmpegReading.audioTail)
            let last = start
            while start > 0, times[last] - times[start] < lead { start -= 1 }
            return start
        }

        private func headFrame(_ f: Frame) {
            guard let pts = f.pts, isVideo || f.sampleCount > 0 else { return }
            headFrames.append((pts, isVideo ? nil : Rational(Int64(f.sampleCount), Int64(max(f.sampleRate, 1)))))
            if !isVideo { track.sampleRate = f.sampleRate }
        }

        /// The head decoder flushed: the first presented time, and (audio) each early frame's length against the
        /// step to the next one's time.
        func finishHead(frame: Frame) throws {
            guard let decoder = head else { return }
            head = nil
            if headFrames.count < headWanted { try decoder.decode(nil, into: frame) { headFrame($0) } }
            guard let first = headFrames.map(\.pts).min() else { return }
            track.start = Rational(first) * timeBase
            // Vorbis in Ogg: FFmpeg's decoder puts out nothing for the first packet (the spec's warm-up) and
            // labels the next packet's samples with that packet's time. Where the first packet is timed at 0 or
            // later (FFmpeg's Ogg muxer writes it so), libvorbis and the players on it (Firefox, GStreamer,
            // libsndfile) play the same first sample at the first packet's time, by the granule positions: that
            // start is taken. Where it is timed before 0 (libvorbis's own granules), FFmpeg's start is theirs.
            // (Matroska has no granules: a block's time is its first decoded sample's, as FFmpeg reads it.)
            if track.codec == "vorbis", inOgg, firstPacketSilent, let pts = firstPacketPts, pts >= 0, pts < first {
                track.start = Rational(pts) * timeBase
            }
            // HE-AAC on its core rate's clock (an MP4 track at 22050 Hz, decoded at 44100): FFmpeg's mov demuxer
            // counts the edit's skip in ticks of the track's clock and FFmpeg 9.0's decoder drops that many samples
            // at its output rate, half the time (5.1's dropped the edit's time). Players skip the edit's time: the
            // first packet's time plus its skip, on the track's clock.
            if !isVideo, inMov, firstPacketSkip > 0, let pts = firstPacketPts, let rate = track.sampleRate,
                timeBase != Rational(1, Int64(max(rate, 1)))
            {
                track.start = Rational(pts + firstPacketSkip) * timeBase
            }
            if !isVideo, track.decoderDisagrees == nil {
                track.decoderDisagrees = stepMismatch(headFrames, where: "first")
            }
        }

        /// The end, from the kept tail: a video's last presented frame (the decoder must decode the last GOP's
        /// keyframe), an audio track's last decoded sample from a fresh decoder, flushed.
        func decodeTail(_ decoder: Decoder, frame: Frame, editEnd: Rational?) throws {
            if isVideo {
                track.frames = frames
                let presented = tail.filter { !$0.isDiscarded }
                let times = presented.compactMap(\.pts).sorted()
                guard let key = tail.first, let last = presented.last(where: { $0.pts == times.last }),
                    let pts = last.pts
                else { return }
                // Decoding the whole last GOP of a long 1080p clip would cost more than the write it checks: its
                // keyframe is decoded, the frames after it are the demuxer's.
                var shown = 0
                try decoder.decode(key, into: frame) { _ in shown += 1 }
                try decoder.decode(nil, into: frame) { _ in shown += 1 }
                if shown == 0 && !key.isDiscarded {
                    track.decoderDisagrees = "FFmpeg's decoder cannot decode the keyframe of its last GOP"
                    return
                }
                // A frame's length is its packet's duration (an MP4's last one as its edit list ends it); where the
                // container gives none (a Matroska block), the step from the frame before, as a player shows it.
                // An MP4's, its step to the next decode time in FFmpeg's index (see decodeStep).
                let indexed = last.dts.flatMap { FFmpegReading.decodeStep(at: $0, in: decodeTimes) }
                // The last decoded sample of an MP4 lasts to the end FFmpeg gives the stream: a recording's last
                // frame is as long as its writer said, not its neighbour's step.
                if indexed == nil, let editEnd, last.dts == decodeTimes.last {
                    track.end = editEnd
                    return
                }
                let length =
                    indexed ?? (last.duration > 0 ? last.duration : times.count > 1 ? pts - times[times.count - 2] : 0)
                if length > 0 { track.end = capped(Rational(pts + length) * timeBase, at: editEnd) }
                return
            }
            var decoded: [(pts: Int64, length: Rational?)] = []
            func take(_ f: Frame) {
                guard let pts = f.pts, f.sampleCount > 0 else { return }
                decoded.append((pts, Rational(Int64(f.sampleCount), Int64(max(f.sampleRate, 1)))))
                track.sampleRate = f.sampleRate
            }
            for packet in tail { try decoder.decode(packet, into: frame, take) }
            try decoder.decode(nil, into: frame, take)
            guard let last = decoded.last, let length = last.length else { return }
            track.end = capped(Rational(last.pts) * timeBase + length, at: editEnd)
            if track.decoderDisagrees == nil {
                // The tail's first frame may be a warm-up (Vorbis puts out nothing for it); its last is trimmed.
                track.decoderDisagrees = stepMismatch(Array(decoded.dropFirst()), where: "last")
            }
        }

        private func capped(_ end: Rational, at editEnd: Rational?) -> Rational {
            editEnd.map { Rational.min(end, $0) } ?? end
        }

        /// Audio: a decoded frame that lasts longer or shorter than the step to the next frame's time (the
        /// container's clock and the codec's disagree: HE-AAC stored a core frame, 1024, apart on a clock at its
        /// output rate, where each decodes to 2048 samples). Not for Vorbis: its frames follow its block sizes,
        /// and FFmpeg's Ogg demuxer times the packets inside a page by lengths that disagree with them at a
        /// long-to-short transition (448 samples), the file being right.
        private func stepMismatch(_ frames: [(pts: Int64, length: Rational?)], where part: String) -> String? {
            guard frames.count >= 3, track.codec != "vorbis" else { return nil }
            for (a, b) in zip(frames.dropLast(), frames.dropFirst()).dropLast() {
                guard let length = a.length else { continue }
                let step = Rational(b.pts - a.pts) * timeBase
                if (step - length).magnitude > Rational.max(track.tick * 2, Rational(1, 1000)) {
                    return
                        """
                        its \(part) frames decode to \(Figures.ms(length)) each but the container steps \
                        \(Figures.ms(step)) between them
                        """
                }
            }
            return nil
        }
    }
}

/// The second reading every writer runs on its temporary output: FFmpeg's own demuxer and decoders (FFmpegReading),
/// sharing no timing code with the planner, against what the command expects of each track (IndependentCheck).
enum SecondReading {
    /// What FFmpeg's reading says of an output against its plan.
    enum Outcome: Equatable {
        case agrees
        /// The first disagreement, naming the track and the figures.
        case disagrees(String)
        /// FFmpeg could not read the output back (its error, in loopprep's words).
        case unreadable(String)
    }

    /// `rewritten`: loopprep wrote the file's pages itself (not a copy of an input): its Vorbis warm-up must be
    /// where FFmpeg and libvorbis both put it.
    public static func check(_ expected: [ExpectedTrack], output: String, rewritten: Bool = true) -> Outcome {
        let reading: IndependentReading
        do { reading = try FFmpegReading.read(output, libvorbisStart: !rewritten) } catch {
            return .unreadable(MediaError.describe(error))
        }
        return IndependentCheck.disagreement(expected, reading).map(Outcome.disagrees) ?? .agrees
    }

    /// nil when FFmpeg's reading agrees with the plan, else the refusal in loopprep's words.
    public static func refusal(_ expected: [ExpectedTrack], output: String) -> String? {
        refusal(check(expected, output: output))
    }

    public static func refusal(_ outcome: Outcome) -> String? {
        switch outcome {
        case .agrees: return nil
        case .unreadable(let why):
            return
                """
                nothing written: FFmpeg's own reader could not read the output back (\(why)), so loopprep cannot \
                show it is right; please report the input
                """
        case .disagrees(let what):
            return
                """
                nothing written: FFmpeg's own reading of the output disagrees with loopprep's plan: \(what); please \
                report the input
                """
        }
    }
}

extension FFmpegReading {
    /// How FFmpeg's decoder plays an audio stream: its first frames' rate and channels, and a lossless codec's bits.
    struct Played: Equatable {
        var rate: Int
        var channels: Int
        var bits: Int?
    }

    /// Codecs whose samples keep the bits they were given (the rest are lossy: their decoders' output format says
    /// nothing of the source's).
    static let lossless: Set<String> = ["flac", "alac", "wavpack", "tta", "ape", "mlp", "truehd"]

    /// How FFmpeg plays `stream` of `file`: its first decoded frame's rate and channels, and a lossless codec's
    /// bits. nil where nothing decodes in the first packets (then the second reading speaks).
    static func played(_ file: InputFile, stream: Int, codec: String) throws -> Played? {
        let decoder = try Decoder(file, stream: stream)
        let packet = try Packet()
        let frame = try Frame()
        // The third frame's (SBR and parametric stereo show in the first frames that carry them).
        var found: Played?
        var (packets, frames) = (0, 0)
        while frames < 3, packets < 16, try file.read(into: packet) {
            guard packet.streamIndex == stream else { continue }
            packets += 1
            try? decoder.decode(packet, into: frame) { f in
                frames += 1
                found = Played(rate: f.sampleRate, channels: f.channelCount, bits: nil)
            }
        }
        if lossless.contains(codec), decoder.rawBits > 0 { found?.bits = decoder.rawBits }
        return found
    }
}
