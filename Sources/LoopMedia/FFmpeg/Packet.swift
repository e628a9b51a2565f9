import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Owns one AVPacket; reused across reads (each read unreferences the previous payload).
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() throws {
        guard let p = av_packet_alloc() else { throw MediaError("allocate packet", code: lp_error_enomem) }
        pointer = p
    }
    /// A packet holding a copy of `bytes`.
    public convenience init(bytes: [UInt8]) throws {
        try self.init()
        try check(av_new_packet(pointer, Int32(bytes.count)), "allocate packet")
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.pointee.data.update(from: base, count: bytes.count) }
        }
    }

    /// Takes ownership of an AVPacket (freed with this owner).
    private init(adopting pointer: UnsafeMutablePointer<AVPacket>) { self.pointer = pointer }

    /// A new reference to the same payload and side data, with the same fields (the bytes are shared).
    public func clone() throws -> Packet {
        guard let copy = av_packet_clone(pointer) else { throw MediaError("allocate packet", code: lp_error_enomem) }
        return Packet(adopting: copy)
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    /// Typed fields, settable (as SwiftFFmpeg's AVPacket has them): nil is FFmpeg's "no timestamp".
    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }
    public var pts: Int64? {
        get { pointer.pointee.pts == lp_nopts_value ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? lp_nopts_value }
    }
    public var dts: Int64? {
        get { pointer.pointee.dts == lp_nopts_value ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? lp_nopts_value }
    }
    public var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }
    public var isKeyframe: Bool {
        get { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
        set {
            if newValue { pointer.pointee.flags |= AV_PKT_FLAG_KEY } else { pointer.pointee.flags &= ~AV_PKT_FLAG_KEY }
        }
    }
    /// Payload bytes.
    var size: Int { Int(max(pointer.pointee.size, 0)) }

    /// Times moved from one clock to another (FFmpeg's rounding: to the nearest, halves away from zero).
    func rescale(from: Rational, to: Rational) {
        guard from != to else { return }
        av_packet_rescale_ts(pointer, from.avRational, to.avRational)
    }

    /// The payload replaced by `bytes`, no longer than it was (NAL units taken out of a copied frame).
    func replacePayload(with bytes: [UInt8]) throws {
        guard bytes.count <= size else { throw MediaError("write packet", reason: "a payload can only shrink") }
        try check(av_packet_make_writable(pointer), "write packet")
        bytes.withUnsafeBufferPointer { b in
            if let from = b.baseAddress, let to = pointer.pointee.data { to.update(from: from, count: b.count) }
        }
        shrink(to: bytes.count)
    }

    /// Keeps only the first `count` payload bytes (uncompressed audio cut to the frame).
    func shrink(to count: Int) {
        if count >= 0, count < size { av_shrink_packet(pointer, Int32(count)) }
    }

    /// Tells the player to drop `samples` decoded samples at the end of this packet (AV_PKT_DATA_SKIP_SAMPLES;
    /// Matroska writes it as DiscardPadding).
    func setSkipEnd(samples: Int64) {
        guard samples > 0, let data = av_packet_new_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, 10) else { return }
        let value = UInt32(clamping: samples)
        for i in 0..<10 { data[i] = 0 }
        for i in 0..<4 { data[4 + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
    public var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }

    /// Samples to drop at the start and end of this packet (AV_PKT_DATA_SKIP_SAMPLES: two little-endian u32).
    public var skipSamples: (start: Int64, end: Int64)? {
        var size: Int = 0
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else {
            return nil
        }
        // Little-endian 32-bit counts. FFmpeg's Ogg demuxer can store a negative end trim there (a granule
        // position before the packets' end, as a stream-copied cut writes): that drops nothing, not 4 billion.
        func count(_ at: Int) -> Int64 {
            let raw =
                UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24
            return max(0, Int64(Int32(bitPattern: raw)))
        }
        return (count(0), count(4))
    }

    func unref() { av_packet_unref(pointer) }

    /// Keeps the decoder from dropping samples at the end of this packet (the timeline trims instead).
    func clearSkipEnd() {
        var size: Int = 0
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else { return }
        for i in 4..<8 { data[i] = 0 }
    }
}

extension Packet {
    /// The payload, for the length of `body` only (the buffer belongs to the packet).
    func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try body(UnsafeBufferPointer(start: pointer.pointee.data, count: Int(max(pointer.pointee.size, 0))))
    }
}
