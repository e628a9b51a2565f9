import CFFmpeg
import Foundation
import LoopIndex

/// An http(s) URL through FFmpeg's own protocol. Every read is one bounded range request (`Range: bytes=a-b`),
/// so reading an MP4's index costs the index's bytes, not the media's. What is fetched is counted per URL
/// (`--verbose` reports it).
public final class RemoteFile: ByteSource {
    package let size: Int64
    let url: String

    public static func isRemote(_ path: String) -> Bool { path.hasPrefix("http://") || path.hasPrefix("https://") }

    init(_ url: String) throws {
        self.url = url
        // One byte asked for: the answer's Content-Range says the length.
        var ctx: UnsafeMutablePointer<AVIOContext>? = try Self.open(url, from: 0, count: 1)
        let io = ctx
        let n = avio_size(io)
        // FFmpeg's http protocol marks a connection seekable only when the server answered the range with 206 or
        // says Accept-Ranges: bytes.
        let ranges = (io?.pointee.seekable ?? 0) & AVIO_SEEKABLE_NORMAL != 0
        Self.count(url, 1)
        avio_closep(&ctx)
        guard ranges else {
            throw MediaError(
                "open",
                reason: """
                    \(Self.noRanges): it answered without 206 or Accept-Ranges, so loopprep cannot read the clip in \
                    place; download it and give the local file
                    """)
        }
        guard n > 0 else {
            throw MediaError("open", reason: "the server does not say the file's size, so it cannot be read by ranges")
        }
        size = n
    }

    static let noRanges = "the server does not serve byte ranges"

    /// Whether `error` is a server's refusal of byte ranges (the clip can still be fetched whole).
    public static func refusedRanges(_ error: Error) -> Bool {
        (error as? MediaError)?.reason.hasPrefix(noRanges) == true
    }

    /// One bounded range request, bytes [offset, offset + count); the caller closes it.
    static func open(_ url: String, from offset: Int64, count: Int) throws -> UnsafeMutablePointer<AVIOContext> {
        var ctx: UnsafeMutablePointer<AVIOContext>?
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "offset", String(offset), 0)
        av_dict_set(&options, "end_offset", String(offset + Int64(count)), 0)
        try check(avio_open2(&ctx, url, AVIO_FLAG_READ, nil, &options), "open")
        guard let ctx else { throw MediaError("open", reason: "FFmpeg opened no connection") }
        return ctx
    }

    package func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let want = Int(max(0, min(Int64(count), size - offset)))
        guard want > 0 else { return [] }
        let io = try Self.open(url, from: offset, count: want)
        var ctx: UnsafeMutablePointer<AVIOContext>? = io
        defer { avio_closep(&ctx) }
        var out = [UInt8](repeating: 0, count: want)
        var filled = 0
        while filled < want {
            let n = out.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { avio_read(io, $0 + filled, Int32(want - filled)) } ?? lp_error_eof
            }
            if n == lp_error_eof || n == 0 { break }
            _ = try check(n, "read")
            filled += Int(n)
        }
        Self.count(url, Int64(filled))
        return Array(out[0..<filled])
    }

    /// `path` itself when it is local; a remote clip downloaded to a temporary beside `destination` (fix copies
    /// byte ranges of a local file), which the caller removes with `temporaries.remove`.
    public static func localCopy(of path: String, beside destination: String, temporaries: TemporaryFiles) throws
        -> String
    {
        guard isRemote(path) else { return path }
        let temp = try temporaries.make(beside: destination)
        do {
            do { try download(path, to: temp) } catch  where refusedRanges(error) { try downloadWhole(path, to: temp) }
        } catch {
            temporaries.remove(temp)
            throw MediaError("download", reason: MediaError.describe(error))
        }
        return temp
    }

    /// Copies the whole file to `path`.
    static func download(_ url: String, to path: String) throws {
        let remote = try RemoteFile(url)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let out = FileHandle(forWritingAtPath: path) else {
            throw MediaError("download", reason: "cannot write \(path)")
        }
        defer { try? out.close() }
        var offset: Int64 = 0
        while offset < remote.size {
            let chunk = try remote.read(at: offset, count: Int(min(1 << 20, remote.size - offset)))
            guard !chunk.isEmpty else {
                throw MediaError("download", reason: "the connection ended at byte \(offset) of \(remote.size)")
            }
            try out.write(contentsOf: Data(chunk))
            offset += Int64(chunk.count)
        }
    }

    /// Copies the whole file to `path` in one plain request, for a server that does not serve ranges.
    static func downloadWhole(_ url: String, to path: String) throws {
        var ctx: UnsafeMutablePointer<AVIOContext>?
        try check(avio_open2(&ctx, url, AVIO_FLAG_READ, nil, nil), "open")
        defer { avio_closep(&ctx) }
        guard let io = ctx else { throw MediaError("open", reason: "FFmpeg opened no connection") }
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let out = FileHandle(forWritingAtPath: path) else {
            throw MediaError("download", reason: "cannot write \(path)")
        }
        defer { try? out.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { b in
                b.baseAddress.map { avio_read(io, $0, Int32(b.count)) } ?? lp_error_eof
            }
            if n == lp_error_eof || n == 0 { break }
            _ = try check(n, "read")
            try out.write(contentsOf: Data(buffer[0..<Int(n)]))
            count(url, Int64(n))
        }
    }

    // Bytes fetched so far, per URL: every range asked for (the index reader's and, through RangeIO, FFmpeg's
    // demuxer's), which a server that honours ranges sends and no more.
    private static let fetched = Locked<[String: Int64]>([:])
    static func count(_ url: String, _ bytes: Int64) { fetched.withLock { $0[url, default: 0] += bytes } }
    public static func bytesFetched(_ url: String) -> Int64 { fetched.withLock { $0[url] ?? 0 } }
}
