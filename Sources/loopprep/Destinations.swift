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
            Console.stderr("loopprep: error: \(clash); nothing done\n")
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

    /// The name fix's output will most likely have: containers that cannot say a trim become an MP4 (an M4A for
    /// ADTS) beside it, and --to renames Matroska and WebM. (A file the planner converts otherwise, PCM in
    /// MPEG-TS to a MOV, is claimed again under its final name when it is planned.)
    static func likely(_ destination: String, to: String?) -> String {
        let stem = (destination as NSString).deletingPathExtension
        switch (destination as NSString).pathExtension.lowercased() {
        case "mkv", "webm", "mka": return to.map { stem + "." + $0 } ?? destination
        // A MOV (or a QuickTime-brand .m4v) asked for as an MP4, and an MP4 as a MOV.
        case "mov", "qt", "m4v": return to == "mp4" ? stem + ".mp4" : destination
        case "mp4": return to == "mov" ? stem + ".mov" : destination
        case "ts", "mts", "m2ts", "mpg", "mpeg", "flv", "avi": return stem + "." + (to ?? "mp4")
        case "aac": return stem + ".m4a"
        default: return destination
        }
    }
}
