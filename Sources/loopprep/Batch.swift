import Dispatch
import Foundation
import Synchronization

/// Runs blocking per-file work on `jobs` threads. FFmpeg calls block, so they stay off Swift's cooperative
/// pool (two threads here); results come back in input order whatever order the work finishes in.
enum Batch {
    static func run<R: Sendable>(_ items: [Inputs.Item], jobs: Int, label: String,
                                 _ work: @Sendable @escaping (Inputs.Item) -> R) -> [R] {
        let results = Mutex<[R?]>(Array(repeating: nil, count: items.count))
        let next = Mutex(0)
        let progress = Progress(total: items.count, label: label)
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, items.count))) { _ in
            while true {
                let index: Int = next.withLock { n in defer { n += 1 }; return n }
                guard index < items.count else { return }
                let result = work(items[index])
                results.withLock { $0[index] = result }
                progress.advance(items[index].path)
            }
        }
        progress.finish()
        return results.withLock { $0.map { $0! } }
    }
}

/// A one-line progress bar on stderr, only when stderr is a terminal.
final class Progress: Sendable {
    private let total: Int
    private let label: String
    private let done = Mutex(0)
    private let enabled: Bool

    init(total: Int, label: String) {
        self.total = total; self.label = label
        enabled = Console.stderrIsTTY && total > 1
    }

    func advance(_ path: String) {
        let n = done.withLock { $0 += 1; return $0 }
        guard enabled else { return }
        let width = 24, filled = width * n / max(total, 1)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let name = path.count > 40 ? "…" + path.suffix(39) : path
        Console.stderr("\r\u{1B}[2K\(label) [\(bar)] \(n)/\(total) \(name)")
    }

    /// For work that knows its own count (stitch's parts).
    func show(_ done: Int, of total: Int, _ what: String) {
        guard Console.stderrIsTTY else { return }
        let width = 24, filled = width * done / max(total, 1)
        Console.stderr("\r\u{1B}[2K\(label) [\(String(repeating: "#", count: filled))\(String(repeating: "-", count: width - filled))] \(done)/\(total) \(what)")
    }

    func finish() {
        if enabled { Console.stderr("\r\u{1B}[2K") }
    }
}
