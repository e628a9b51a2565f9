import LoopAnalysis
import LoopIndex

/// One output audio track: its stream, encoder and mixer, and what the edit list needs of what was written. A
/// class, so what the writing closures record is not lost in a copy.
final class AudioLane {
    /// Which audio track of each clip (0: the first).
    let track: Int
    let out: Int
    let encoder: AudioEncoder
    let mixer: AudioMixer
    var firstPts: Int64?
    var lastDuration: Int64?
    /// The encoder's input: a looping reel's is coded as a circle.
    let circle: AudioCircle

    init(track: Int, out: Int, encoder: AudioEncoder, mixer: AudioMixer, circular: Bool = false, hidden: Bool = false) {
        self.track = track
        self.out = out
        self.encoder = encoder
        self.mixer = mixer
        circle = AudioCircle(encoder, circular: circular, hidden: hidden)
    }

    func encode(_ samples: [[Float]], _ emit: (Packet) throws -> Void) throws { try circle.encode(samples, emit) }
    func finish(_ emit: (Packet) throws -> Void) throws { try circle.finish(emit) }
}

/// The clips' presented audio, track by track, into each lane's mixer (which crossfades the joins) and on to
/// its one encoder.
extension StitchWriter {
    /// Clip `c`'s audio, every track in one read of the file.
    func mixAudio(_ c: Int) throws {
        let clip = clips[c]
        let taking = lanes.filter {
            $0.track < clip.source.audio.count && clip.source.audio[$0.track].sampleRate != nil
        }
        // A clip without audio: silence for its span in every lane.
        if clip.source.audio.isEmpty {
            for lane in lanes {
                lane.mixer.begin(clip: c)
                lane.mixer.last = Array(repeating: 0, count: lane.mixer.channels)
                try lane.mixer.end { try lane.encode($0) { try write(lane, $0) } }
            }
            return
        }
        guard !taking.isEmpty else { return }
        let cuts = taking.map { clip.source.audio[$0.track] }
        let reader = try PacketReader(path: clip.path, windows: cuts.map(PacketWindow.init), timelines: clip.timelines)
        var feeds: [Int: AudioFeed] = [:]
        for (lane, cut) in zip(taking, cuts) {
            feeds[cut.index] = try AudioFeed(
                lane: lane, cut: cut, clip: c, reader: reader, writer: self,
                channels: clip.facts.audioTracks.first { $0.index == cut.index }?.channels)
        }
        while let read = try reader.next() { try feeds[read.stream]?.decode(read.packet) }
        for cut in cuts { try feeds[cut.index]?.finish() }
    }

    func write(_ lane: AudioLane, _ packet: Packet) throws {
        // (On the block clock a Matroska muxer writes: its first at 0, the pre-skip after it.)
        let shift = matroska ? lane.encoder.delay : 0
        // (A circle's presented start is its pre-roll later than the first sample coded.)
        if lane.firstPts == nil { lane.firstPts = packet.pts.map { $0 + shift - lane.circle.preRoll } }
        lane.lastDuration = packet.duration
        try output.write(encoded: packet, stream: lane.out, by: lane.encoder)
    }
}

/// One clip's track on its way into a lane: decoded, cut to its presented samples, resampled where the output
/// differs (--normalize), mixed.
private final class AudioFeed {
    let lane: AudioLane
    let cut: TrackCut
    let reader: PacketReader
    let writer: StitchWriter
    let decoder: Decoder
    let frame: Frame
    let resampler: Resampler?
    let count: Int64
    var taken: Int64 = 0
    var next: Int64?

    init(lane: AudioLane, cut: TrackCut, clip: Int, reader: PacketReader, writer: StitchWriter, channels: Int?) throws {
        self.lane = lane
        self.cut = cut
        self.reader = reader
        self.writer = writer
        let rate = cut.sampleRate ?? 0
        decoder = try Decoder(reader.input, stream: cut.index, timeBase: reader.timeBase(cut.index))
        frame = try Frame()
        count = (cut.duration * Int64(rate)).rounded
        // Audio at another rate (--normalize, or a clip's second track at its own) or channel count is resampled
        // to the output's.
        let targetRate = writer.timeline.sampleRate ?? rate
        let targetChannels = lane.mixer.channels
        let sourceChannels = channels ?? targetChannels
        resampler =
            rate != targetRate || sourceChannels != targetChannels
            ? try Resampler(
                fromRate: rate, fromChannels: sourceChannels, toRate: targetRate, toChannels: targetChannels)
            : nil
        lane.mixer.begin(clip: clip)
    }

    func decode(_ packet: Packet) throws { try decoder.decode(packet, into: frame, take) }

    /// The decoder's held-back frames, the resampler's, and the clip's end in the mixer.
    func finish() throws {
        try decoder.decode(nil, into: frame, take)
        if let resampler { try mix(try resampler.convert(nil)) }
        try lane.mixer.end { try encode($0) }
    }

    private func take(_ f: Frame) throws {
        guard let pts = f.pts else { return }
        let chunk = PresentedAudio.slice(
            f, at: reader.mediaTime(ofDecoded: pts, stream: cut.index), cut: cut, taken: taken, count: count,
            next: &next)
        taken += Int64(chunk.first?.count ?? 0)
        try mix(try resampler.map { try $0.convert(chunk) } ?? chunk)
    }

    private func mix(_ chunk: [[Float]]) throws { try lane.mixer.add(chunk) { try encode($0) } }

    private func encode(_ samples: [[Float]]) throws {
        try lane.encode(samples) { try writer.write(lane, $0) }
    }
}
