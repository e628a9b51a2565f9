import Foundation

/// The one error the media layer throws: which operation failed, on what, and FFmpeg's (or our) reason. Declared
/// here, without C, for the index reader an app links (LoopRange); FFmpeg's codes are read in LoopMedia.
public struct MediaError: Error, CustomStringConvertible, Sendable, Equatable {
    public var operation: String
    public var reason: String
    /// FFmpeg's error code, when FFmpeg reported it.
    public var code: Int32?

    public init(_ operation: String, reason: String, code: Int32? = nil) {
        self.operation = operation
        self.reason = reason
        self.code = code
    }

    public var description: String { "\(operation): \(reason)" }
}
