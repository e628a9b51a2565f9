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
        -> Result<WebPlayerOutput, WebPlayerFailure>
    {
        do { return .success(try WebPackage.write(output, qualified: qualified, temporaries: temporaries)) } catch {
            return .failure(
                WebPlayerFailure(
                    reason: "\(output) is written and verified, but not its web player: \(MediaError.describe(error))"))
        }
    }
}

struct WebPlayerFailure: Error { var reason: String }

extension WebPlayerOption {
    /// The web player's no-go, decided with fix's plan before anything is written (a dry run says it too): a
    /// container or a codec Media Source Extensions do not take. nil: go (what only the written file can show,
    /// such as frames stored after the loop's last, is said after the write).
    static func planRefusal(_ plan: FixPlan) -> String? {
        guard let path = plan.outputPath else { return nil }
        let name = (path as NSString).lastPathComponent
        let container = Container(extension: (path as NSString).pathExtension)
        let webm = container == .webm
        guard webm || container?.isISO == true, let container else {
            return """
                the web player needs an MP4, a MOV or a WebM: browsers append only ISO files (MP4, MOV) and WebM \
                through Media Source Extensions, and \(name) is not one; nothing written (fix it with --to mp4 for a \
                web player, or without --web-player)
                """
        }
        guard let refused = plan.tracks.first(where: { !CodecStrings.takes($0.codec, webm: webm) }) else { return nil }
        return """
            \(CodecStrings.webPlayerTakes); \(refused.kind.rawValue) track \(refused.index) \
            (\(refused.codec)) in \(container.name.uppercased()) is not one of them; nothing written (without \
            --web-player the clip is fixed as it is)
            """
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
