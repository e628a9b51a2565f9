import Foundation
import LoopIndex

/// The web player's files: one dependency-free ES module (`loopprep-loop.js`, kept beside this file as JavaScript
/// and linted as such; the EmbedPlayer plugin builds it into the binary as `PlayerAssets.module`) and the page that
/// uses it.
enum PlayerAssets {
    /// A page that loops one clip by itself, muted (browsers start muted video without a gesture).
    static func page(title: String, manifest: String) -> String {
        let safe = escape(title)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(safe): gapless loop</title>
            <style>
              html, body { margin: 0; height: 100%; background: #000; }
              video { display: block; width: 100%; height: 100%; object-fit: contain; }
              #served { position: fixed; inset: 1rem; color: #fff; font: 16px/1.5 system-ui, sans-serif; }
            </style>
            </head>
            <body>
            <video id="loop" muted autoplay playsinline></video>
            <p id="served" hidden>This page loops the clip through a module, which a browser will not load from a \
            file: serve this folder over HTTP (run <code>python3 -m http.server</code> in it) and open \
            <code>http://localhost:8000/</code> and this page.</p>
            <script>
              if (location.protocol === "file:") document.getElementById("served").hidden = false;
            </script>
            <script type="module">
              import { LoopPlayer } from "./\(PlayerAssets.moduleName)";
              const manifest = await (await fetch("\(relativeURL(manifest))")).json();
              window.loopPlayer = new LoopPlayer(document.getElementById("loop"), manifest);
              // What cannot play here (a codec this browser does not decode) is said on the page, not only logged.
              await window.loopPlayer.start().catch((error) => {
                const line = document.getElementById("served");
                line.textContent = "The loop cannot play here: " + error.message;
                line.hidden = false;
              });
            </script>
            </body>
            </html>

            """
    }

    static let moduleName = "loopprep-loop.js"

    /// A file name as a relative URL inside a JavaScript string in a `<script>` (where HTML entities are not
    /// decoded): percent-encoded, so `&`, `#`, `?`, `<`, quotes, spaces and a colon (a scheme) are only the name.
    static func relativeURL(_ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":&'+;=$!*(),@")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
