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
