import CFFmpeg
import LoopIndex

/// A looping output's audio coded as the circle it plays as. An encoder codes a one-off stream: it starts from
/// silence and ends into it, so the decoded wrap steps where the samples did not (a click on a pure tone, 0.23 of
/// full scale where the tone turns by 0.003 a sample). Here the loop's samples are held, then coded with two frames
/// of its end before its start and two of its start after its end (the loop repeated as often as a short one needs):
/// every frame of the loop is coded with its true neighbours (the transform's overlap, the encoder's look-ahead).
/// What is left at the wrap is the coding error, which differs between the head and the tail: AAC's frames either
/// side of the wrap are coded with the most bits a frame carries, so it is as small there as the encoder makes it.
/// What presents the loop alone is the container's: an MP4's edit list starts `preRoll` samples later than the first
/// coded one and lasts the loop; in Matroska (`hidden`) the pre-roll is part of Opus's pre-skip, said in the header
/// before anything is coded, and the last block's discard padding ends the sound where the loop does.
final class AudioCircle {
    let encoder: AudioEncoder
    /// The loop's samples, one array per channel; nil once passed straight to the encoder.
    private var held: [[Float]]?
    /// Samples of the loop's end coded before its start.
    private(set) var preRoll: Int64 = 0
    /// Whether the loop was coded as a circle (false: a one-off, past `limit` or not asked for).
    private(set) var circular: Bool
    /// Matroska: the pre-roll is hidden by the pre-skip (it is `roll` whatever happens) and the end by discard
    /// padding on the last block written.
    let hidden: Bool

    /// Samples a channel held at most (two minutes at 48 kHz): a longer output is coded as a one-off stream, its
    /// wrap as before, rather than held whole in memory.
    static let limit = 48_000 * 120

    /// `hidden`: the output has no edit list (Matroska): the circle is coded where the codec's pre-skip can hide its
    /// pre-roll (Opus), else the loop is coded as a one-off stream.
    init(_ encoder: AudioEncoder, circular: Bool, hidden: Bool = false) {
        self.encoder = encoder
        let opus = encoder.context.pointee.codec_id == AV_CODEC_ID_OPUS
        self.circular = circular && (!hidden || opus) && !Self.lossless(encoder)
        self.hidden = hidden && self.circular
        if self.circular { held = Array(repeating: [], count: encoder.channelCount) }
        if self.hidden { preRoll = roll }
    }

    /// Matroska: the pre-roll said as part of the stream's pre-skip (its OpusHead and CodecDelay), before the
    /// header is written.
    func sayPreSkip(_ output: OutputFile, stream: Int) throws {
        guard hidden else { return }
        let skip = encoder.delay + roll
        guard let head = encoder.extradata.flatMap({ Opus.head($0, preSkip: skip) }) else {
            throw MediaError("add stream", reason: "the Opus encoder wrote no OpusHead to carry its pre-skip")
        }
        try output.setExtradata(head, stream: stream)
        output.setInitialPadding(skip, stream: stream)
    }

    /// A lossless codec (ALAC, FLAC, PCM) gives back the samples it was given, wrap and all: it is coded as the one-off
    /// stream it is, its frames ending where the loop does. (Coded as a circle, its last frame ran past the loop's
    /// end for the container to trim, and FFmpeg 7.1 read that ALAC frame as nothing at all: 3140 samples short.)
    static func lossless(_ encoder: AudioEncoder) -> Bool {
        guard let descriptor = avcodec_descriptor_get_by_name(avcodec_get_name(encoder.context.pointee.codec_id))
        else { return false }
        let props = descriptor.pointee.props
        return props & AV_CODEC_PROP_LOSSLESS != 0 && props & AV_CODEC_PROP_LOSSY == 0
    }

    /// The samples coded on each side of the loop: two of the encoder's frames; for Opus the 80 ms its decoder needs
    /// to converge (RFC 7845's pre-roll, Matroska's SeekPreRoll) in whole frames: with two 20 ms frames the head was
    /// still settling, and the wrap stepped by 1-30 times the inside's roughness on a tone (0.5-8 times with 80 ms).
    var roll: Int64 {
        let frame = Int64(max(encoder.frameSize, 1))
        guard encoder.context.pointee.codec_id == AV_CODEC_ID_OPUS else { return 2 * frame }
        let converged = Int64(encoder.context.pointee.sample_rate) * 80 / 1000
        return max(2, (converged + frame - 1) / frame) * frame
    }

    func encode(_ samples: [[Float]], _ emit: (Packet) throws -> Void) throws {
        guard held != nil else { return try encoder.encode(samples, emit) }
        // (Channels the samples lack repeat their last, as the encoder takes them.)
        guard let last = samples.last else { return }
        for c in 0..<(held?.count ?? 0) { held?[c].append(contentsOf: c < samples.count ? samples[c] : last) }
        if let count = held?.first?.count, count > Self.limit, let all = held {
            held = nil
            circular = false
            // The pre-skip hides `roll` samples already said: silence, as a one-off stream starts from.
            if hidden { try encoder.encode(all.map { _ in [Float](repeating: 0, count: Int(roll)) }, emit) }
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
        let roll = hidden ? Int(self.roll) : min(count, Int(self.roll))
        preRoll = Int64(roll)
        let end = Int64(roll + count)
        let presented = { (packet: Packet) in
            guard let pts = packet.pts, pts < end else { return }
            // The last block presented runs past the loop: Matroska's discard padding ends it there.
            if self.hidden, pts + packet.duration > end {
                packet.setSkipEnd(samples: pts + packet.duration - end)
            }
            try emit(packet)
        }
        // The frames either side of the wrap are coded with the most bits a frame carries (AAC; other encoders
        // keep their rate): coded at the stream's rate, the head's coding error and the tail's differed by 4-20x
        // the wave's own turn, a step heard on a tone.
        let wrap = min(count / 2, Self.wrapFrames * encoder.frameSize)
        let rate = encoder.context.pointee.bit_rate
        let boost = encoder.context.pointee.codec_id == AV_CODEC_ID_AAC
        let parts: [(samples: [[Float]], wrapping: Bool)] = [
            (loop.map { Self.cycled($0, count: roll, endingAtEnd: true) + $0[..<wrap] }, true),
            (loop.map { Array($0[wrap..<(count - wrap)]) }, false),
            (loop.map { Array($0[(count - wrap)...]) + Self.cycled($0, count: roll, endingAtEnd: false) }, true),
        ]
        for part in parts {
            if boost { encoder.context.pointee.bit_rate = part.wrapping ? Self.mostBits(encoder) : rate }
            try encoder.encode(part.samples, presented)
        }
        try encoder.finish(presented)
        if boost { encoder.context.pointee.bit_rate = rate }
    }

    /// Frames of the loop either side of the wrap coded with the most bits (the encoder codes a frame when the next
    /// arrives: the margin covers the frame it looks ahead to).
    static let wrapFrames = 3

    /// AAC's most bits a channel's frame may carry (6144 per 1024 samples) as a bit rate.
    static func mostBits(_ encoder: AudioEncoder) -> Int64 {
        Int64(6 * encoder.context.pointee.sample_rate) * Int64(encoder.channelCount)
    }

    /// `count` samples of the loop played round and round: those just before its start (`endingAtEnd`: the end of
    /// the last pass) or just after its end (the start of the next), however short the loop.
    static func cycled(_ loop: [Float], count: Int, endingAtEnd: Bool) -> [Float] {
        guard !loop.isEmpty, count > 0 else { return [] }
        let n = loop.count
        return (0..<count).map { i in endingAtEnd ? loop[((n - count + i) % n + n) % n] : loop[i % n] }
    }
}
