import Foundation
import LoopAnalysis
import LoopIndex
import LoopMedia

/// fix's work on one input, the same for every input of a run: where its output goes, what it claims, the fix
/// itself and the web player beside it.
struct FixJob: Sendable {
    let outputDir: String?
    /// The one output file -o names, where it names one.
    let outputFile: String?
    let inPlace: Bool
    let dryRun: Bool
    let force: Bool
    let webPlayer: Bool
    let options: FixOptions
    let shared: CommandRunner.Shared
    /// Outputs whose web players are named in full: two outputs with one stem in one folder (hero.mp4, hero.webm).
    var qualified: Set<String> = []

    /// Every output and web player claimed before any work: two inputs never share one (a dry run says so too).
    func claims(_ items: [Inputs.Item]) throws -> OutputClaims {
        try Destinations.claim(
            items.flatMap { item -> [OutputClaims.Claim] in
                let destination = destination(item)
                let likely = FixConversion.expectedPath(destination, to: options.convertTo)
                return [OutputClaims.Claim(likely, input: item.path)]
                    + (webPlayer
                        ? Destinations.webPlayer(likely, input: item.path, qualified: qualified.contains(destination))
                        : [])
            })
    }

    /// Where an item's output goes (before a conversion names it .mp4): in place, under -o, or beside itself. In
    /// place, a symbolic link's target is replaced and the link kept: a link is the file it points to.
    func destination(_ item: Inputs.Item) -> String {
        if let outputFile { return outputFile }
        if inPlace {
            return RemoteFile.isRemote(item.path)
                ? item.path : URL(fileURLWithPath: item.path).resolvingSymlinksInPath().path
        }
        return outputDir.map { ($0 as NSString).appendingPathComponent(item.relativePath) } ?? item.path
    }

    /// One input fixed (or planned), under the options its path is given, with its web player where asked.
    func fix(
        _ item: Inputs.Item, _ analysis: (options: AnalysisOptions, ignored: [String]?), claims: OutputClaims
    ) -> FileReport {
        var result = fixOne(
            item, analysis: analysis.options, claim: { claims.claim(OutputClaims.Claim($0, input: item.path)) },
            accepts: webPlayer ? { WebPlayerOption.planRefusal($0) } : nil)
        result.ignoredRules = analysis.ignored
        // What fix's dry run read of its input: a plan carried out later (`apply`) is refused where it changed (a
        // URL has no such reading: none).
        if dryRun, result.fix?.status == .planned {
            result.fix?.input = try? InputFingerprint.of(item.path)
            if webPlayer { result.fix?.webPlayerPlanned = true }
        }
        if webPlayer, !dryRun {
            WebPlayerOption.add(
                to: &result, qualified: qualified.contains(destination(item)), temporaries: shared.temporaries)
        }
        if !dryRun, result.fix?.status == .fixed || result.fix?.status == .unchanged {
            shared.written.withLock { $0.done += 1 }
        }
        return result
    }

    /// The fix itself: the input fetched where it is remote, its output never the input.
    func fixOne(
        _ item: Inputs.Item, analysis: AnalysisOptions, claim: @escaping (String) -> Refusal?,
        accepts: ((FixPlan) -> Refusal?)?
    ) -> FileReport {
        let destination = destination(item)
        if !inPlace && !dryRun && OutputPath.sameFile(item.path, destination) {
            // An output that cannot be written, as in every command: exit 1 (the input was read).
            return FileReport(
                path: item.path, facts: nil, findings: [],
                fix: FixOutcome(
                    status: .failed,
                    refusal: .outputIsInput(output: destination, input: item.path, .notInPlace)))
        }
        if RemoteFile.isRemote(item.path), outputDir == nil {
            return ClipAnalysis.unreadable(
                path: item.path,
                error: MediaError("write output", reason: "a URL has no folder to write beside: name one with -o"))
        }
        let temporaries = shared.temporaries
        let source: String
        do { source = try RemoteFile.localCopy(of: item.path, beside: destination, temporaries: temporaries) } catch {
            return ClipAnalysis.unreadable(path: item.path, error: error)
        }
        defer { if source != item.path { temporaries.remove(source) } }
        var request = FixRequest(
            to: destination, options: options, analysis: analysis, dryRun: dryRun, temporaries: temporaries)
        (request.force, request.accepts, request.claim) = (force, accepts, claim)
        var result = ClipFix.fix(source, request)
        result.path = item.path
        return result
    }
}
