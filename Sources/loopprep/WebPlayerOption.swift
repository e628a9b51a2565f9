import ArgumentParser
import Foundation
import LoopAnalysis
import LoopIndex
import LoopMedia

/// `--web-player`, the same in every command that writes a loop (fix, stitch, loop).
struct WebPlayerOption: ParsableArguments {
    @Flag(
        name: .customLong("web-player"),
        help:
            """
            Also write, beside each output, NAME.html: a page that loops it gaplessly in a browser through Media \
            Source Extensions, with its player module (loopprep-loop.js), manifest (NAME.web.json) and a copy of \
            each track it appends: fragmented MP4 (NAME.web.video0.mp4, NAME.web.audio1.mp4) or WebM, its Opus \
            encoded again over the loop repeated (NAME.web.audio1.webm and .first.webm).
            """
    )
    var enabled = false

    /// The package for a written and verified output, or the sentence saying why there is none.
    static func package(_ output: String, qualified: Bool = false, temporaries: TemporaryFiles)
        -> Result<WebPlayerOutput, Refusal>
    {
        do { return .success(try WebPackage.write(output, qualified: qualified, temporaries: temporaries)) } catch {
            return .failure(.webPlayer(.notPackaged(output: output, why: MediaError.describe(error))))
        }
    }
}

extension WebPlayerOption {
    /// The web player beside fix's written (or unchanged, copied) output; a failure fails the file, its output kept.
    static func add(to result: inout FileReport, qualified: Bool, temporaries: TemporaryFiles) {
        guard var fix = result.fix, fix.status == .fixed || fix.status == .unchanged, let output = fix.output else {
            return
        }
        switch package(output, qualified: qualified, temporaries: temporaries) {
        case .success(let web): fix.webPlayer = web
        case .failure(let failure):
            fix.status = .failed
            fix.refusal = failure
        }
        result.fix = fix
    }
}

extension WebPlayerOption {
    /// The web player's no-go, decided with fix's plan before anything is written (a dry run says it too): the
    /// library's rule (WebPlayerEligibility), with fix's remedy.
    static func planRefusal(_ plan: FixPlan) -> Refusal? {
        WebPlayerEligibility.refusal(plan, remedy: "fix it with --to mp4")
    }
}

extension WebPlayerOption {
    /// Outputs whose web player needs its whole name: those that share a folder and a stem with another output of
    /// the run (hero.mp4 and hero.webm into site/ would each write site/hero.html).
    static func qualified(_ outputs: [String]) -> Set<String> {
        let stems = Dictionary(grouping: outputs) { ($0 as NSString).deletingPathExtension }
        return Set(stems.values.filter { $0.count > 1 }.flatMap { $0 })
    }
}
