/// A looping output's audio coded as the circle it plays as. An encoder codes a one-off stream: it starts from
/// silence and ends into it, so the decoded wrap steps where the samples did not (a click on a pure tone, 0.23 of
/// full scale where the tone turns by 0.003 a sample). Here the loop's samples are held, then coded with two frames
/// of its end before its start and two of its start after its end: every frame of the loop is coded with its true
/// neighbours (the transform's overlap, the encoder's look-ahead), and the edit list, starting `preRoll` samples
/// later than the first coded one and lasting the loop, presents the loop alone.
final class AudioCircle {
    let encoder: AudioEncoder
    /// The loop's samples, one array per channel; nil once passed straight to the encoder.
    private var held: [[Float]]?
    /// Samples of the loop's end coded before its start.
    private(set) var preRoll: Int64 = 0
    /// Whether the loop was coded as a circle (false: a one-off, past `limit` or not asked for).
    private(set) var circular: Bool

    /// Samples a channel held at most (two minutes at 48 kHz): a longer output is coded as a one-off stream, its
    /// wrap as before, rather than held whole in memory.
    static let limit = 48_000 * 120

    init(_ encoder: AudioEncoder, circular: Bool) {
        self.encoder = encoder
        self.circular = circular
        if circular { held = Array(repeating: [], count: encoder.channelCount) }
    }

    func encode(_ samples: [[Float]], _ emit: (Packet) throws -> Void) throws {
        guard held != nil else { return try encoder.encode(samples, emit) }
        // (Channels the samples lack repeat their last, as the encoder takes them.)
        guard let last = samples.last else { return }
        for c in 0..<(held?.count ?? 0) { held?[c].append(contentsOf: c < samples.count ? samples[c] : last) }
        if let count = held?.first?.count, count > Self.limit, let all = held {
            held = nil
            circular = false
            try encoder.encode(all, emit)
        }
    }

    /// Codes what is held as a circle, then drains the encoder. The packets wholly after the loop's end (the
    /// post-roll's) are not written: they coded the loop's last frames' neighbours, and no presented sample needs
    /// them (a fix of the output keeps none of them either, so it is left as it is).
    func finish(_ emit: (Packet) throws -> Void) throws {
        guard let loop = held, let count = loop.first?.count, count > 0 else {
            held = nil
            return try encoder.finish(emit)
        }
        held = nil
        let roll = min(count, 2 * encoder.frameSize)
        preRoll = Int64(roll)
        let end = Int64(roll + count)
        let presented = { (packet: Packet) in
            if (packet.pts ?? 0) < end { try emit(packet) }
        }
        try encoder.encode(loop.map { Array($0.suffix(roll)) }, presented)
        try encoder.encode(loop, presented)
        try encoder.encode(loop.map { Array($0.prefix(roll)) }, presented)
        try encoder.finish(presented)
    }
}
