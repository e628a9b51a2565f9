import CFFmpeg

/// Owns one AVPacket; reused across reads (each read unreferences the previous payload).
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() throws {
        guard let p = av_packet_alloc() else { throw MediaError("allocate packet", code: lp_error_enomem) }
        pointer = p
    }
    /// A packet holding a copy of `bytes`.
    public convenience init(bytes: [UInt8]) throws {
        try self.init()
        try check(av_new_packet(pointer, Int32(bytes.count)), "allocate packet")
        bytes.withUnsafeBufferPointer { pointer.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    public var streamIndex: Int { Int(pointer.pointee.stream_index) }
    public var pts: Int64? { pointer.pointee.pts == lp_nopts_value ? nil : pointer.pointee.pts }
    public var dts: Int64? { pointer.pointee.dts == lp_nopts_value ? nil : pointer.pointee.dts }
    public var duration: Int64 { pointer.pointee.duration }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    public var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }

    /// Samples to drop at the start and end of this packet (AV_PKT_DATA_SKIP_SAMPLES: two little-endian u32).
    public var skipSamples: (start: Int64, end: Int64)? {
        var size: Int = 0
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else {
            return nil
        }
        func u32(_ at: Int) -> Int64 {
            Int64(data[at]) | Int64(data[at + 1]) << 8 | Int64(data[at + 2]) << 16 | Int64(data[at + 3]) << 24
        }
        return (u32(0), u32(4))
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
