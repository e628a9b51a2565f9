import Foundation
import LoopIndex

/// A value behind a lock, shared by threads: Synchronization's `Mutex` as the systems an app deploys to (iOS 15,
/// tvOS 15, macOS 13) have it, on NSLock (issue 44, item 2). Only `withLock` reaches the value, so it is Sendable
/// whatever it holds, as `Mutex` is.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, no other thread inside at the same time.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
