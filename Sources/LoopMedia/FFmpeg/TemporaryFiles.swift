import Foundation
import LoopAnalysis
import LoopIndex

/// Temporary files beside their targets, named so a batch skips them (hidden), removed on failure and on
/// SIGINT/SIGTERM; `commit` renames one into place atomically.
public final class TemporaryFiles: Sendable {
    private let live = Locked<Set<String>>([])
    /// Flushes begun ahead of the commit (see `beginFlush`), by temporary: the errno they ended with, once done.
    private let flushes = Locked<[String: Flush]>([:])

    /// One fsync running on its own thread; `wait` returns its errno (0: flushed).
    private final class Flush: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let result = Locked<Int32>(0)

        init(_ path: String) {
            let thread = Thread { [self] in
                let fd = open(path, O_RDONLY)
                let status = fd >= 0 && fsync(fd) == 0 ? 0 : errno
                if fd >= 0 { close(fd) }
                result.withLock { $0 = status }
                done.signal()
            }
            thread.start()
        }

        func wait() -> Int32 {
            done.wait()
            done.signal()
            return result.withLock { $0 }
        }
    }

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
        live.withLock { _ = $0.insert(temp) }
        return temp
    }

    /// Starts flushing a written temporary to disk while the caller goes on (verifies it): `commit` then waits for
    /// this flush instead of starting its own.
    public func beginFlush(_ temp: String) {
        flushes.withLock { $0[temp] = Flush(temp) }
    }

    public func remove(_ temp: String) {
        _ = flushes.withLock { $0.removeValue(forKey: temp) }
        live.withLock { _ = $0.remove(temp) }
        try? FileManager.default.removeItem(atPath: temp)
    }

    /// rename(2) replaces the target atomically: readers see the old file or the new one, never a part. The
    /// data is flushed to disk first, so a power cut cannot leave the new name on a file with holes in it, and
    /// the folder after, so it cannot take the name back.
    public func commit(_ temp: String, to target: String) throws {
        let flush = flushes.withLock { $0.removeValue(forKey: temp) } ?? Flush(temp)
        let status = flush.wait()
        guard status == 0 else {
            throw MediaError("write output", reason: Self.meaning(status) + " (flushing \(target))")
        }
        guard rename(temp, target) == 0 else {
            throw MediaError("write output", reason: Self.meaning(errno) + " (\(target))")
        }
        live.withLock { _ = $0.remove(temp) }
        // The new name is made durable too: once a command says "written", a power cut does not take it back.
        let folder = (target as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // (A filesystem that cannot flush a folder says EINVAL: nothing more can be done there.)
        if fsync(fd) != 0, errno != EINVAL {
            throw MediaError(
                "write output", reason: Self.meaning(errno) + " (flushing the folder of \(target))")
        }
    }

    /// An errno in loopprep's words where one matters to the user (every disk-full line says the
    /// disk is full), the system's text kept beside it.
    static func meaning(_ code: Int32) -> String {
        let system = String(cString: strerror(code)).lowercased()
        switch code {
        case ENOSPC: return "the disk is full (\(system))"
        case EDQUOT: return "the disk quota is used up (\(system))"
        case EACCES, EPERM, EROFS: return "loopprep may not write there (\(system))"
        default: return "the system refused (\(system))"
        }
    }

    /// Removes every live temporary (from a signal handler's queue).
    public func removeAll() {
        let all = live.withLock { set in
            defer { set = [] }
            return set
        }
        for temp in all { unlink(temp) }
    }
}

/// The rule for every file loopprep writes: never over one of its inputs, over an existing file only when
/// asked (--force).
public enum OutputPath {
    /// Why `output` may not be written (one sentence naming it), or nil.
    public static func refusal(_ output: String, inputs: [String], force: Bool) -> Refusal? {
        if let input = inputs.first(where: { sameFile($0, output) }) {
            return .outputIsInput(output: output, input: input, .named)
        }
        if FileManager.default.fileExists(atPath: output), !force {
            return .outputExists(output)
        }
        return nil
    }

    /// An output that exists and is not what this run writes (a run resumed keeps one that is).
    static func differs(_ output: String) -> Refusal {
        .outputExists(output, differs: true)
    }

    /// An output that exists already and is not the input itself (in place replaces the input, by design).
    static func existsBeside(_ input: String, _ output: String) -> Bool {
        !sameFile(input, output) && FileManager.default.fileExists(atPath: output)
    }

    /// The same file, links and relative paths resolved.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.resolvingSymlinksInPath().path
            == URL(fileURLWithPath: b).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
