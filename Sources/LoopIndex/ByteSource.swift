import Foundation

/// Random access to a file's bytes: a local file, or an http(s) URL read by range requests.
package protocol ByteSource: AnyObject {
    var size: Int64 { get }
    /// Up to `count` bytes from `offset` (fewer at the end).
    func read(at offset: Int64, count: Int) throws -> [UInt8]
    /// How many of the `count` bytes from `offset` can be read at once: all of them (to the end), except from a
    /// file still being written, which gives what is there once at least one byte is (fix reads its output while
    /// the media is copied).
    func readable(at offset: Int64, upTo count: Int) throws -> Int
}

extension ByteSource {
    package func readable(at offset: Int64, upTo count: Int) throws -> Int { count }
}

package final class LocalFile: ByteSource {
    package let handle: FileHandle
    package let size: Int64

    package init(_ path: String) throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw MediaError("open", reason: "cannot open \(path)")
        }
        handle = file
        size = Int64(try file.seekToEnd())
    }

    deinit { try? handle.close() }

    package func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }
}
