import Foundation

/// Temporary files beside their targets, named so a batch skips them (hidden), removed on failure and on
/// SIGINT/SIGTERM; `commit` renames one into place atomically.
public final class TemporaryFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var live: Set<String> = []

    public init() {}

    public func make(beside target: String) throws -> String {
        let dir = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        if !dir.isEmpty {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw MediaError("write output", reason: "cannot create the folder \(MediaError.describe(error))")
            }
        }
        let temp = (dir.isEmpty ? "" : dir + "/") + ".\(name).loopprep-\(getpid())-\(UUID().uuidString.prefix(8)).tmp"
        lock.withLock { _ = live.insert(temp) }
        return temp
    }

    public func remove(_ temp: String) {
        lock.withLock { _ = live.remove(temp) }
        try? FileManager.default.removeItem(atPath: temp)
    }

    /// rename(2) replaces the target atomically: readers see the old file or the new one, never a part. The
    /// data is flushed to disk first, so a power cut cannot leave the new name on a file with holes in it.
    public func commit(_ temp: String, to target: String) throws {
        let fd = open(temp, O_RDONLY)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw MediaError("write output", reason: reason + " (flushing \(target))")
        }
        close(fd)
        guard rename(temp, target) == 0 else {
            throw MediaError("write output", reason: String(cString: strerror(errno)) + " (\(target))")
        }
        lock.withLock { _ = live.remove(temp) }
    }

    /// Removes every live temporary (from a signal handler's queue).
    public func removeAll() {
        let all = lock.withLock {
            let a = live
            live = []
            return a
        }
        for temp in all { unlink(temp) }
    }
}
