import Foundation
import LoopIndex

/// How far the copy into a file being written has come: the byte ranges written so far, of a size fixed in
/// advance. fix's MP4 writer lays out its output whole (the moov first, every sample's place known), then copies
/// the media on a thread of its own while the output is read back and checked; a read of bytes
/// not yet written waits for them, so every reading sees the output as it will be kept, never a hole.
final class CopyProgress: Sendable {
    let size: Int64
    private struct State {
        /// Written ranges, sorted, none touching another.
        var done: [Range<Int64>] = []
        var failure: MediaError?
        var finished = false
        var cancelled = false
    }
    private let state = Locked(State())

    init(size: Int64) { self.size = size }

    /// `range` is written (the copier's slices as they complete). Throws once the copy is called off.
    func written(_ range: Range<Int64>) throws {
        let cancelled = state.withLock { state in
            guard !range.isEmpty else { return state.cancelled }
            var merged = range
            state.done.removeAll { other in
                guard other.upperBound >= merged.lowerBound, other.lowerBound <= merged.upperBound else { return false }
                merged = min(merged.lowerBound, other.lowerBound)..<max(merged.upperBound, other.upperBound)
                return true
            }
            let at = state.done.firstIndex { $0.lowerBound > merged.lowerBound } ?? state.done.count
            state.done.insert(merged, at: at)
            return state.cancelled
        }
        if cancelled { throw CalledOff() }
    }

    /// What `written` throws once the copy is called off: the copier stops, on no error of its own.
    struct CalledOff: Error {}

    /// The copier's end: every byte written, or the error it stopped on (which readers then throw).
    func finish(_ failure: Error?) {
        state.withLock {
            $0.finished = true
            guard let failure, !(failure is CalledOff) else { return }
            $0.failure = (failure as? MediaError) ?? MediaError("write output", reason: MediaError.describe(failure))
        }
    }

    /// Stops the copy at its next slice (a check that refused the output needs the rest no more).
    func cancel() { state.withLock { $0.cancelled = true } }

    /// The error the copier stopped on, if it has (a copy called off stops on none); nil while it runs.
    var failure: MediaError? { state.withLock { $0.failure } }

    /// Waits for the copier's end; throws the error it stopped on.
    func wait() throws {
        let failure = state.withLock(when: \.finished) { $0.failure }
        if let failure { throw failure }
    }

    /// Bytes that can be read from `offset` now, at most `count`: waits until at least one is written (0 at the
    /// end of the file); throws when the copy failed before reaching them.
    func readable(at offset: Int64, upTo count: Int) throws -> Int {
        guard offset < size, count > 0 else { return 0 }
        let (available, failure) = state.withLock(
            when: { state in state.finished || state.done.contains { $0.contains(offset) } },
            { state in (state.done.first { $0.contains(offset) }.map { $0.upperBound - offset }, state.failure) })
        guard let available else {
            throw failure ?? MediaError("read", reason: "the output's bytes at \(offset) were never written")
        }
        return Int(min(Int64(count), available))
    }
}

/// Files being written while they are read: their paths and copies in progress. A reader opening one of them
/// (the index reader, FFmpeg's demuxer through a custom IO) goes through `GrowingFile`.
enum GrowingFiles {
    private static let files = Locked<[String: CopyProgress]>([:])

    static func register(_ path: String, _ progress: CopyProgress) { files.withLock { $0[path] = progress } }
    static func unregister(_ path: String) { _ = files.withLock { $0.removeValue(forKey: path) } }
    static func progress(_ path: String) -> CopyProgress? { files.withLock { $0[path] } }

    /// The byte source for `path`: a growing file's, whose reads wait for the copy; nil for any other file.
    static func source(_ path: String) throws -> GrowingFile? {
        try progress(path).map { try GrowingFile(path, $0) }
    }
}

/// A file still being written, read as it will be: its final size, and each read waiting for its bytes.
final class GrowingFile: ByteSource {
    private let file: LocalFile
    let progress: CopyProgress
    var size: Int64 { progress.size }

    init(_ path: String, _ progress: CopyProgress) throws {
        file = try LocalFile(path)
        self.progress = progress
    }

    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let end = min(offset + Int64(max(count, 0)), size)
        var at = offset
        while at < end {
            let n = try progress.readable(at: at, upTo: Int(end - at))
            guard n > 0 else { break }
            at += Int64(n)
        }
        return try file.read(at: offset, count: Int(max(0, end - offset)))
    }

    func readable(at offset: Int64, upTo count: Int) throws -> Int {
        try progress.readable(at: offset, upTo: count)
    }
}
