import Foundation
import LoopAnalysis
import LoopIndex

/// Two inputs never share one output: every file a run writes is claimed by the input it
/// comes from, first all together before any work (what the names say), then again at the moment a name is
/// final (a conversion may rename `hero.ts` to `hero.mp4`), so a second input is refused, never written over the
/// first.
public final class OutputClaims: Sendable {
    /// One file a run will write, the input it comes from and what it is (the output, a web player's page).
    public struct Claim: Sendable {
        public var path: String
        public var input: String
        public var what: String

        public init(_ path: String, input: String, what: String = "output") {
            self.path = path
            self.input = input
            self.what = what
        }

        var claimant: Refusal.Claimant { .init(input: input, what: what) }
    }

    private let taken = Locked<[String: Claim]>([:])

    public init() {}

    /// Claims `claim.path` for its input; the refusal when another input holds it, nil when it is this input's.
    public func claim(_ claim: Claim) -> Refusal? {
        let key = Self.key(claim.path)
        let holder = taken.withLock { held -> Claim? in
            if let other = held[key] { return other }
            held[key] = claim
            return nil
        }
        guard let holder, holder.input != claim.input || holder.what != claim.what else { return nil }
        return .outputClaimed(file: claim.path, first: holder.claimant, second: claim.claimant)
    }

    /// Claims each file in turn (every file a run will write, before any work); the first clash in one sentence
    /// naming both inputs (or both files of one input) and the file, nil when none. The same file claimed twice
    /// for the same thing is one claim.
    public func claimAll(_ claims: [Claim]) -> Refusal? {
        for claim in claims {
            if let clash = self.claim(claim) { return clash }
        }
        return nil
    }

    /// One spelling per file: the path made absolute and standard, its folder's links resolved; case folded
    /// where the file system ignores case (a Mac's).
    static func key(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent().resolvingSymlinksInPath().path
        let full = (folder as NSString).appendingPathComponent(url.lastPathComponent)
        #if os(macOS)
            return full.lowercased()
        #else
            return full
        #endif
    }
}
