import ArgumentParser
import LoopAnalysis
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
    static func package(_ output: String, temporaries: TemporaryFiles) -> Result<WebPlayerOutput, WebPlayerFailure> {
        do { return .success(try WebPackage.write(output, temporaries: temporaries)) } catch {
            return .failure(
                WebPlayerFailure(
                    reason: "\(output) is written and verified, but not its web player: \(MediaError.describe(error))"))
        }
    }
}

struct WebPlayerFailure: Error { var reason: String }
