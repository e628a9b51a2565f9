import Foundation
import LoopAnalysis

/// loop's report: a text block per clip and the HTML page (candidates, scores, seam strips).
enum LoopText {
    /// One page: per clip, the ranked candidates with their scores and seam strips; the chosen one marked.
    /// `path`: where the page is written (the "play loop" buttons load the web players relative to it).
    static func page(_ results: [LoopReport], settings: [String], path: String = "", written: Date = Date()) -> String {
        let x = HTMLReport.x
        var out = """
            <!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>loopprep loop</title><style>
            body{font:14px/1.4 system-ui,sans-serif;margin:1em;max-width:60em}td,th{padding:.2em .6em;text-align:right}
            td:first-child,th:first-child{text-align:left}img{max-width:100%}\
            h2{overflow-wrap:anywhere}.chosen{font-weight:bold}
            .scroll{overflow-x:auto}.meta{color:#666;font-size:.9em}
            </style></head><body><h1>loopprep loop</h1>
            <p class="meta">loopprep \(Report.toolVersion), written \(HTMLReport.stamp(written)). Settings: \
            \(x(settings.joined(separator: ", "))).</p>
            <p>Scores: picture and motion are mean luma differences (0-255) at the seam; audio jump is of full scale;
            level in dB. Lower is better. Pick another with <code>--pick N</code>.</p>

            """
        for r in results {
            out += "<h2>\(x(r.path))</h2>"
            if let output = r.output { out += "<p>wrote \(x(output))</p>" }
            if let web = r.webPlayer { out += PlayerButton.html(web, page: path) }
            if let error = r.error { out += "<p>NOT WRITTEN: \(x(error))</p>" }
            for f in r.findings { out += "<p>\(f.severity.rawValue) [\(f.rule)] \(x(f.message))</p>" }
            out +=
                """
                <div class=\"scroll\"><table><tr><th>#</th><th>start s</th><th>end \
                s</th><th>frames</th><th>seam</th><th>seam motion</th><th>audio jump</th><th>level dB</th><th>tone \
                octaves</th><th>picture</th><th>motion</th><th>seamless</th></tr>
                """
            for (k, c) in r.candidates.enumerated() {
                out += String(
                    format:
                        "<tr%@><td>%d%@</td><td>%.3f</td><td>%.3f</td><td>%d</td>"
                        + "<td>%.1f</td><td>%.1f</td><td>%.3f</td><td>%.1f</td><td>%.2f</td><td>%.1f</td><td>%.1f</td>"
                        + "<td>%@</td></tr>",
                    k == r.chosen ? " class=\"chosen\"" : "", k + 1,
                    k == r.chosen ? (r.output != nil ? " (written)" : " (chosen)") : "",
                    c.start.doubleValue, c.end.doubleValue, c.frames, c.seamDifference, c.seamMotion, c.audioJump,
                    c.levelDifference, c.toneDifference, c.pictureDifference, c.motionDifference,
                    c.seamless ? "yes" : "no")
            }
            out += "</table></div>"
            for (k, strip) in r.strips.enumerated() {
                out +=
                    """
                    <figure><img alt=\"seam of candidate \(k + 1)\" \
                    src=\"data:image/png;base64,\(Data(strip).base64EncodedString())\"/>
                    """
                    + "<figcaption>#\(k + 1): the loop's last three frames, then its first three</figcaption></figure>"
            }
        }
        if results.contains(where: { $0.webPlayer != nil }) {
            out += "<script>\n\(PlayerButton.script)</script>\n"
        }
        return out + "</body></html>\n"
    }

    static func text(_ r: LoopReport) -> String {
        var out = "\(r.path)\n"
        for (k, c) in r.candidates.enumerated() {
            out += String(
                format:
                    """
                      %@#%d  %.3f-%.3f s (frames %d-%d, %d frames): %@seam %.1f against motion %.1f, audio jump \
                    %.3f, level %.1f dB, tone %.2f octaves (picture %.1f, motion %.1f)\n
                    """,
                k == r.chosen ? "*" : " ", k + 1, c.start.doubleValue, c.end.doubleValue, c.inFrame, c.outFrame - 1,
                c.frames, c.seamless ? "" : "NOT SEAMLESS: ", c.seamDifference, c.seamMotion, c.audioJump,
                c.levelDifference, c.toneDifference, c.pictureDifference, c.motionDifference)
        }
        if let output = r.output { out += "  wrote \(output)\n" }
        if let web = r.webPlayer { out += "  web player -> \(web.page)\n" }
        if let error = r.webPlayerError { out += "  NO WEB PLAYER: \(error)\n" }
        for f in r.findings { out += "  \(f.severity.rawValue) [\(f.rule)] \(f.message)\n" }
        if let error = r.error { out += "  NOT WRITTEN: \(error)\n" }
        return out
    }
}
