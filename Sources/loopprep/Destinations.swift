import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia

/// Where each input's files go, claimed all together before any work: two inputs of one
/// name (coll/alice/upload.mp4 and coll/bob/upload.mp4 into out/) would write one output, and the second would
/// replace the first. The run is refused instead, in one sentence naming both (a usage error, exit 64: nothing
/// was done); the claims stay with the run so a name a conversion makes is claimed too.
enum Destinations {
    /// Claims every file; a clash ends the run before any work.
    static func claim(_ claims: [OutputClaims.Claim]) throws -> OutputClaims {
        let run = OutputClaims()
        if let clash = run.claimAll(claims) {
            Console.stderr("loopprep: error: \(clash.sentence); nothing done\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        return run
    }

    /// An output's web player page and manifest (its media are named after the manifest).
    static func webPlayer(_ output: String, input: String, qualified: Bool = false) -> [OutputClaims.Claim] {
        let (page, manifest) = WebPackage.names(output, qualified: qualified)
        return [
            OutputClaims.Claim(page, input: input, what: "web player page"),
            OutputClaims.Claim(manifest, input: input, what: "web player manifest"),
        ]
    }
}
