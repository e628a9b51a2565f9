import Foundation

/// Random access to a file's bytes: a local file, or an http(s) URL read by range requests.
package protocol ByteSource: AnyObject {
    var size: Int64 { get }
    /// Up to `count` bytes from `offset` (fewer at the end).
    func read(at offset: Int64, count: Int) throws -> [UInt8]
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
