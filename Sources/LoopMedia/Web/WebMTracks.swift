import LoopAnalysis
import LoopIndex

/// A loop-ready WebM's tracks as the web copy appends them, one WebM per track: the video copied as it is, and
/// Opus encoded again loop-continuously (LoopAnalysis's ContinuousOpus), so the browser's decoder, never reset
/// between appends, decodes one endless stream. Each file is read back by FFmpeg before it is kept.
enum WebMTracks {
    /// `track` of `source` copied into a WebM of its own, its times as they are.
    static func copy(_ source: String, track: TrackFacts, to path: String, temporaries: TemporaryFiles) throws {
        let temp = try temporaries.make(beside: path)
        defer { temporaries.remove(temp) }
        let input = try InputFile.rawMedia(source)
        let output = try OutputFile(path: temp, format: .webm)
        let out = try output.addStream(copying: input, stream: track.index, keepTag: false)
        try output.writeHeader(options: [:])
        let packet = try Packet()
        let clock = input.timeBase(track.index)
        while try input.read(into: packet) {
            guard packet.streamIndex == track.index else {
                packet.unref()
                continue
            }
            try output.write(packet, stream: out, timeBase: clock)
        }
        try output.finish()
        let read = try reading(temp, track: track)
        if read.frames != track.frameCount || read.start != track.startSeconds {
            throw MediaError(
                "web player",
                reason: """
                    FFmpeg reads \(read.frames ?? 0) frames from \(read.start.map(Figures.ms) ?? "nowhere") in the \
                    web copy of \(Figures.trackName(track)), planned \(track.frameCount ?? 0) from \
                    \(Figures.ms(track.startSeconds)); please report the input
                    """)
        }
        try temporaries.commit(temp, to: path)
    }

    /// `track` (Opus, `plan.samples` presented) of `source` decoded and encoded again over the loop repeated, in
    /// one encoder run: `first` the first append (a cold start: the encoder's delay in whole frames, then the
    /// first period), `path` every later one (the next period). Decoded one after the other they are that
    /// encoder's own stream, and the period after itself is that stream once more. Neither says a pre-skip: the
    /// first append is placed that much earlier (the returned lead, seconds), where the append window drops it
    /// and a browser decodes it as its pre-roll (Chromium) before the first presented sample.
    static func continuousOpus(
        _ source: String, track: TrackFacts, plan: ContinuousOpus, to path: String, first: String,
        temporaries: TemporaryFiles
    ) throws -> Rational {
        let input = try InputFile.rawMedia(source)
        let (loop, bytes) = try presented(input, track: track, samples: plan.samples)
        // The source's own rate (its packets' bytes over its samples), so the second generation loses little.
        let settings = AudioEncoder.Settings(
            bitRate: max(Int64(loop.count) * 32_000, bytes * 8 * Opus.rate / max(plan.samples, 1)),
            options: ["frame_duration": String(Double(plan.frameSize) * 1000 / Double(Opus.rate))])
        let encoder = try AudioEncoder(like: input, stream: track.index, globalHeader: true, settings: settings)
        guard encoder.timeBase == Rational(1, Opus.rate), Int64(encoder.frameSize) == plan.frameSize else {
            throw MediaError(
                "web player", reason: "the Opus encoder does not take \(plan.frameSize)-sample frames at 48 kHz")
        }
        let delay = encoder.delay
        let (firstRange, laterRange) = (plan.first(delay: delay), plan.kept(delay: delay))
        var (firstPackets, laterPackets): ([Packet], [Packet]) = ([], [])
        var index: Int64 = 0
        let keep = { (packet: Packet) throws in
            if firstRange.contains(index) || laterRange.contains(index) {
                // Packet j starts at j frames less the encoder's delay; every packet a whole frame.
                guard packet.pts == index * plan.frameSize - delay, packet.duration == plan.frameSize else {
                    throw MediaError(
                        "web player", reason: "the Opus encoder gave packet \(index) at \(packet.pts ?? -1)")
                }
                if firstRange.contains(index) { firstPackets.append(try packet.clone()) }
                if laterRange.contains(index) { laterPackets.append(try packet.clone()) }
            }
            index += 1
        }
        let length = plan.inputLength(delay: delay)
        var n: Int64 = 0
        while n < length {
            let count = min(Opus.rate, length - n)
            try encoder.encode(
                loop.map { channel in (n..<(n + count)).map { channel[Int(plan.source($0, delay: delay))] } }, keep)
            n += count
        }
        try encoder.finish(keep)
        guard firstPackets.count == firstRange.count, laterPackets.count == laterRange.count else {
            throw MediaError("web player", reason: "the Opus encoder gave \(index) packets, fewer than planned")
        }
        let lead = plan.preSkipPackets(delay: delay) * plan.frameSize
        try writeOpus(
            firstPackets, input: input, track: track, encoder: encoder, samples: lead + plan.period, to: first,
            temporaries: temporaries)
        try writeOpus(
            laterPackets, input: input, track: track, encoder: encoder, samples: plan.period, to: path,
            temporaries: temporaries)
        return Rational(lead, Opus.rate)
    }

    /// Opus packets of whole frames as a WebM with no pre-skip, block times from 0, read back by FFmpeg as
    /// `samples` presented from 0.
    static func writeOpus(
        _ packets: [Packet], input: InputFile, track: TrackFacts, encoder: AudioEncoder, samples: Int64,
        to path: String, temporaries: TemporaryFiles
    ) throws {
        let temp = try temporaries.make(beside: path)
        defer { temporaries.remove(temp) }
        let output = try OutputFile(path: temp, format: .webm)
        let out = try output.addStream(copying: input, stream: track.index, keepTag: false)
        try encoder.configure(output, stream: out)
        guard let head = output.extradata(out).flatMap({ Opus.head($0, preSkip: 0) }) else {
            throw MediaError("web player", reason: "the Opus encoder gave no OpusHead")
        }
        try output.setExtradata(head, stream: out)
        output.setInitialPadding(0, stream: out)
        // The first append's header and the later one's are the same bytes: bit-exact (FFmpeg draws a random
        // TrackUID otherwise) and live (no Segment Duration, which differs by the pre-roll). Firefox restarts its
        // decoder for a track header that differs, and rang at the first wrap.
        try output.writeHeader(options: ["fflags": "+bitexact", "live": "1"])
        guard let zero = packets.first?.pts else { return }
        for packet in packets {
            packet.pts = packet.pts.map { $0 - zero }
            packet.dts = packet.pts
            try output.write(packet, stream: out, timeBase: encoder.timeBase)
        }
        try output.finish()
        let read = try reading(temp, track: track)
        if read.start != .zero || read.samples != samples {
            throw MediaError(
                "web player",
                reason: """
                    FFmpeg reads \(read.samples ?? 0) samples from \(read.start.map(Figures.ms) ?? "nowhere") in \
                    the web copy of \(Figures.trackName(track)), planned \(samples) from 0 ms; please report the \
                    input
                    """)
        }
        try temporaries.commit(temp, to: path)
    }

    /// The track's presented samples, one array per channel (FFmpeg's decoder with the file's own pre-skip and
    /// discard padding applied, which must come to `samples`), and the bytes of its packets.
    static func presented(_ input: InputFile, track: TrackFacts, samples: Int64) throws -> ([[Float]], Int64) {
        let decoder = try Decoder(input, stream: track.index)
        let frame = try Frame()
        let packet = try Packet()
        var pcm: [[Float]] = []
        var bytes: Int64 = 0
        let take = { (decoded: Frame) in
            if pcm.isEmpty { pcm = Array(repeating: [], count: decoded.channelCount) }
            for c in pcm.indices {
                pcm[c].append(contentsOf: (0..<decoded.sampleCount).map { decoded.sample(channel: c, index: $0) })
            }
        }
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == track.index else { continue }
            bytes += Int64(packet.size)
            try decoder.decode(packet, into: frame, take)
        }
        try decoder.decode(nil, into: frame, take)
        guard let count = pcm.first?.count, Int64(count) == samples else {
            throw MediaError(
                "web player",
                reason: """
                    \(Figures.trackName(track)) decodes to \(pcm.first?.count ?? 0) samples, not the \(samples) \
                    it presents; please report the input
                    """)
        }
        return (pcm, bytes)
    }

    static func reading(_ path: String, track: TrackFacts) throws -> IndependentReading.Track {
        let reading: IndependentReading
        do { reading = try FFmpegReading.read(path) } catch {
            throw MediaError(
                "web player",
                reason: "FFmpeg cannot read the web copy back: \(MediaError.describe(error)); please report the input")
        }
        guard let read = reading.tracks.first else {
            throw MediaError("web player", reason: "\(Figures.trackName(track)) is missing from its web copy")
        }
        return read
    }
}
