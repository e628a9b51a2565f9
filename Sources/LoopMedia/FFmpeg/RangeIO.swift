import CFFmpeg
import LoopIndex

/// FFmpeg's demuxer reading through one of loopprep's byte sources (a custom AVIOContext): a remote file's bounded
/// range requests only, since FFmpeg's own http protocol asks for `bytes=N-` and a real server then streams until
/// the connection closes; or a file still being written (GrowingFile), whose reads wait for the copy. Reads are
/// served from one block fetched ahead of them: 64 KiB after a seek, doubling while reads follow on, up to 1 MiB, so
/// a header costs a header and a run of packets a few requests (a growing file's block stops where its written
/// bytes do).
final class RangeIO {
    let source: any ByteSource
    /// The AVIOContext handed to avformat_open_input (AVFMT_FLAG_CUSTOM_IO): this object outlives it.
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    private var position: Int64 = 0
    private var block: (offset: Int64, bytes: [UInt8]) = (0, [])
    private var ahead = RangeIO.firstAhead
    static let firstAhead = 64 << 10
    static let mostAhead = 1 << 20
    /// The first failure of a read, said in loopprep's words by the opener (FFmpeg sees only an error code).
    private(set) var failure: Error?

    init(_ source: any ByteSource) throws {
        self.source = source
        let size: Int32 = 32 << 10
        guard let buffer = av_malloc(Int(size))?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError("open", code: lp_error_enomem)
        }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        guard
            let io = avio_alloc_context(
                buffer, size, 0, opaque,
                { opaque, buffer, count in
                    guard let opaque, let buffer else { return lp_error_einval }
                    return Unmanaged<RangeIO>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, count)
                }, nil,
                { opaque, offset, whence in
                    guard let opaque else { return Int64(lp_error_einval) }
                    return Unmanaged<RangeIO>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence)
                })
        else {
            av_free(buffer)
            throw MediaError("open", code: lp_error_enomem)
        }
        context = io
    }

    deinit {
        if let context { av_freep(&context.pointee.buffer) }
        avio_context_free(&context)
    }

    private func read(into buffer: UnsafeMutablePointer<UInt8>, _ count: Int32) -> Int32 {
        guard position < source.size else { return lp_error_eof }
        let end = block.offset + Int64(block.bytes.count)
        if position < block.offset || position >= end {
            // Reads that follow on from the block fetch more at a time; a seek starts small again.
            ahead = position == end && !block.bytes.isEmpty ? min(ahead * 2, Self.mostAhead) : Self.firstAhead
            // `count` is the room FFmpeg has, not what it needs: a demuxer may have grown its buffer to megabytes
            // (FFmpeg 7.1 and later's mov demuxer on a network URL, for its interleaving) and asks to fill it
            // whole. A short read is allowed; a large packet is fetched a mebibyte at a time.
            do {
                let want = try source.readable(at: position, upTo: max(ahead, min(Int(count), Self.mostAhead)))
                let bytes = try source.read(at: position, count: want)
                guard !bytes.isEmpty else { return lp_error_eof }
                block = (position, bytes)
            } catch {
                failure = failure ?? error
                return lp_averror(EIO)
            }
        }
        let from = Int(position - block.offset)
        let n = min(Int(count), block.bytes.count - from)
        block.bytes.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress { buffer.update(from: base + from, count: n) }
        }
        position += Int64(n)
        return Int32(n)
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        switch whence & ~Int32(AVSEEK_FORCE) {
        case Int32(AVSEEK_SIZE): return source.size
        case SEEK_SET: position = offset
        case SEEK_CUR: position += offset
        case SEEK_END: position = source.size + offset
        default: return Int64(lp_error_einval)
        }
        return position
    }
}
