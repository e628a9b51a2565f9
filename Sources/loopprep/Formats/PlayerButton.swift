import Foundation
import LoopAnalysis
import LoopMedia

/// A "play loop" button on a report page (stitch --html, loop --html with --web-player): it loads the web
/// player beside the loop (loopprep-loop.js and NAME.web.json, by paths relative to the page) and plays the loop
/// gaplessly with sound, so a person sees and hears the seam before shipping. The page must be served over HTTP
/// from a folder that holds both (a page opened from a file cannot load a module).
enum PlayerButton {
    /// The button and its (hidden until played) video, as XHTML.
    static func html(_ web: WebPlayerOutput, page: String) -> String {
        let folder = (page as NSString).deletingLastPathComponent
        // Percent-encoded: a clip named `take #2?.mp4` is that file, not `take` and a fragment.
        let manifest = WebPackage.urlReference(relative(web.manifest, from: folder))
        let module = WebPackage.urlReference(relative(web.player, from: folder))
        return """
            <div class="player"><button type="button" class="play-loop" data-manifest="\(HTMLReport.x(manifest))" \
            data-module="\(HTMLReport.x(module))">play loop</button> <span class="meta">gapless, through \
            \(HTMLReport.x((web.page as NSString).lastPathComponent))'s player (serve this folder over HTTP)</span>\
            <video class="loop" playsinline="playsinline" controls="controls" hidden="hidden"></video></div>\n
            """
    }

    /// The click handler every page with a button carries: "play loop" shows the video under the button (its
    /// full width) and becomes "stop", which stops feeding it and hides it again. A page opened from a file
    /// cannot load the module: it says how to serve the folder instead of failing silently, as any other error.
    static let script = """
        document.querySelectorAll("button.play-loop").forEach((button) => {
          const box = button.parentElement;
          const video = box.querySelector("video.loop");
          const say = (text) => {
            let line = box.querySelector("p.warn");
            if (!line) { line = document.createElement("p"); line.className = "warn"; box.appendChild(line); }
            line.textContent = text;
          };
          let player = null;
          button.addEventListener("click", async () => {
            if (player) {
              player.stop();
              video.pause();
              video.hidden = true;
              player = null;
              button.textContent = "play loop";
              return;
            }
            if (location.protocol === "file:") {
              say("A page opened from a file cannot load the player: serve this folder over HTTP " +
                "(python3 -m http.server in it) and open the page from http://localhost:8000/.");
              return;
            }
            try {
              const manifestURL = new URL(button.dataset.manifest, location.href);
              const { LoopPlayer } = await import(new URL(button.dataset.module, location.href).href);
              const manifest = await (await fetch(manifestURL)).json();
              video.hidden = false;
              player = new LoopPlayer(video, manifest, { baseURL: manifestURL.href });
              button.textContent = "stop";
              await player.start();
            } catch (error) {
              player = null;
              button.textContent = "play loop";
              video.hidden = true;
              say("The loop could not be played: " + error.message);
            }
          });
        });
        """

    static func relative(_ path: String, from folder: String) -> String { WebPackage.relative(path, from: folder) }
}
