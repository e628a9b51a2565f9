/// A path pattern as `.gitignore` writes them, for `.loopprep.json`'s `ignore`: `*` is any run of characters
/// within one folder or file name, `?` one character, `**` any number of folders. A pattern with no `/` (or one
/// only at its end) matches a file or folder name at any depth; one with a `/` before its end is anchored at the
/// config file's folder. A pattern that matches a folder covers everything under it.
public struct PathPattern: Sendable, Equatable {
    public let text: String
    private let segments: [String]
    private let anchored: Bool

    public init(_ text: String) {
        self.text = text
        var body = text
        while body.hasSuffix("/") { body.removeLast() }
        if body.hasPrefix("./") { body.removeFirst(2) }
        anchored = body.contains("/")
        if body.hasPrefix("/") { body.removeFirst() }
        segments = body.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// `path`: relative to the config file's folder, `/`-separated.
    public func matches(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !segments.isEmpty, !parts.isEmpty else { return false }
        if !anchored { return parts.contains { Self.name(Array(segments[0])[...], Array($0)[...]) } }
        // The whole path or any folder above it.
        return (1...parts.count).contains { Self.segments(segments[...], parts[0..<$0]) }
    }

    private static func segments(_ pattern: ArraySlice<String>, _ parts: ArraySlice<String>) -> Bool {
        guard let first = pattern.first else { return parts.isEmpty }
        if first == "**" {
            // Zero or more folders.
            return (parts.startIndex...parts.endIndex).contains { segments(pattern.dropFirst(), parts[$0...]) }
        }
        guard let part = parts.first, name(Array(first)[...], Array(part)[...]) else { return false }
        return segments(pattern.dropFirst(), parts.dropFirst())
    }

    /// One name against one segment's pattern (`*`, `?`; everything else literal).
    private static func name(_ p: ArraySlice<Character>, _ s: ArraySlice<Character>) -> Bool {
        guard let c = p.first else { return s.isEmpty }
        switch c {
        case "*":
            return (s.startIndex...s.endIndex).contains { name(p.dropFirst(), s[$0...]) }
        case "?":
            return !s.isEmpty && name(p.dropFirst(), s.dropFirst())
        default:
            return s.first == c && name(p.dropFirst(), s.dropFirst())
        }
    }
}
