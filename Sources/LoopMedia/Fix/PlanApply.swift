import Foundation
import LoopAnalysis
import LoopIndex

extension InputFingerprint {
    /// The bytes read for a digest at each end of the file.
    static let window = 1 << 20

    /// The file's size, modification time and a digest of its first and last mebibyte (where a symbolic link
    /// points: a link is the file it names).
    public static func of(_ path: String) throws -> InputFingerprint {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let attributes = try FileManager.default.attributesOfItem(atPath: resolved)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        guard let handle = FileHandle(forReadingAtPath: resolved) else {
            throw MediaError("read input", reason: "\(path) cannot be opened")
        }
        defer { try? handle.close() }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ data: Data) {
            for byte in data {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        add(try handle.read(upToCount: window) ?? Data())
        if size > Int64(window) {
            try handle.seek(toOffset: UInt64(max(Int64(window), size - Int64(window))))
            add(try handle.readToEnd() ?? Data())
        }
        return InputFingerprint(size: size, modified: modified, digest: String(format: "%016llx", hash))
    }

    /// How `path` differs from what a plan read of it (`recorded`), nil where it is the same file (a URL cannot be
    /// told unchanged; a plan that recorded nothing cannot tell).
    public static func change(_ path: String, recorded: InputFingerprint?) -> Refusal.InputChange? {
        if RemoteFile.isRemote(path) { return .remote }
        guard let recorded else { return .unrecorded }
        guard (try? of(path)) != recorded else { return nil }
        return FileManager.default.fileExists(atPath: path) ? .changed : .gone
    }
}

extension ClipFix {
    /// A dry run's plan carried out later (`loopprep apply`), as the dry run said and never planned again: refused
    /// in one sentence where the input changed since (its size, modification time or the bytes at either end) or
    /// the output would be the input; an output that exists is replaced only with `request.force` (one byte for byte
    /// what this writes is kept, as a resumed run keeps it). The report is the write's. `command`: the one that
    /// planned it (fix, or loop for a loop's cut), named where the plan must be made again.
    public static func apply(
        _ path: String, plan: FixPlan, input: InputFingerprint?, _ request: FixRequest, command: String = "fix"
    ) -> FileReport {
        func refused(_ refusal: Refusal) -> FileReport {
            FileReport(
                path: path, facts: nil, findings: [], fix: FixOutcome(status: .failed, refusal: refusal, plan: plan))
        }
        let destination = request.destination
        if let change = InputFingerprint.change(path, recorded: input) {
            return refused(.inputChanged(path: path, change, command: command))
        }
        if OutputPath.sameFile(path, destination) {
            return refused(.outputIsInput(output: destination, input: path, .planned))
        }
        let source: Probe.Result
        do { source = try Probe.probe(path, keepInput: false, locations: true) } catch {
            return FileReport.unreadable(path: path, reason: MediaError.describe(error))
        }
        var refusal: OutputRefusal.Kind?
        return carryOut(plan, path: path, source: source, request, refused: &refusal)
    }
}
