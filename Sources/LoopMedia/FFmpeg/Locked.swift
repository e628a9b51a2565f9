import Foundation
import LoopIndex

/// A value behind a lock, shared by threads: Synchronization's `Mutex` as the systems an app deploys to (iOS 15,
/// tvOS 15, macOS 13) have it, on NSCondition, with a wait for the value to be ready. Only `withLock` reaches the
/// value, and the value is Sendable itself (as swift-format's ThreadSafeBox asks): the one unchecked conformance the
/// worker threads rely on.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSCondition()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, no other thread inside at the same time.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        return try body(&value)
    }

    /// Waits until `ready` holds of the value (another thread's `withLock` changes it), then runs `body` with it.
    public func withLock<Result>(when ready: (Value) -> Bool, _ body: (inout Value) throws -> Result) rethrows
        -> Result
    {
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        while !ready(value) { lock.wait() }
        return try body(&value)
    }
}

/// Blocking work on `workers` threads (FFmpeg calls block: off Swift's cooperative pool), each item once, the
/// results in the items' order whatever order the work finishes in.
public enum InOrder {
    public static func map<R: Sendable>(_ count: Int, workers: Int, _ work: @Sendable (Int) -> R) -> [R] {
        let results = Locked<[R?]>(Array(repeating: nil, count: count))
        let next = Locked(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, count))) { _ in
            while true {
                let index: Int = next.withLock { n in
                    defer { n += 1 }
                    return n
                }
                guard index < count else { return }
                let result = work(index)
                results.withLock { $0[index] = result }
            }
        }
        // Every index was filled above.
        return results.withLock { $0.compactMap { $0 } }
    }
}
