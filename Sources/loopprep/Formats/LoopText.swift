import Foundation
import LoopAnalysis

/// loop's report (each clip's FileReport, its LoopChoice beside): a text block per clip and the HTML page
/// (candidates, scores, seam strips).
enum LoopText {
    /// One page: per clip, the ranked candidates with their scores and seam strips; the chosen one marked.
    /// `path`: where the page is written (the "play loop" buttons load the web players relative to it).
    static func page(_ results: [FileReport], settings: [String], path: String = "", written: Date = Date()) -> String {
        let x = HTMLReport.x
        var body = """
            <h1>loopprep loop</h1>
            <p class="meta">loopprep \(Report.toolVersion), written \(x(HTMLReport.stamp(written)))</p>
            <p class="meta">Settings: \(settings.map(x).joined(separator: " \u{00B7} "))</p>
            <p class="note">Seam and seam motion are analyze's seam-visual-jump figures on the loop as it would be \
            written (mean luma or colour difference of 255), the audio jump its seam-audio-click figure (of full \
            scale); seamless means analyze will find neither. Lower is better. Another candidate: \
            <code>--pick N</code>.</p>

            """
        for r in results {
            let (output, reason, loop) = (r.written, r.outcome?.reason, r.loop ?? LoopChoice())
            let state = output != nil ? "ok" : reason != nil ? "error" : "info"
            body += "<section class=\"clip \(state)\">\n<h2>\(HTMLReport.wrappable(r.path))</h2>\n"
            if let output { body += "<p><span class=\"badge ok\">written</span> \(x(output))</p>\n" }
            if let web = r.fix?.webPlayer { body += PlayerButton.html(web, page: path) }
            if let reason {
                body += "<p><span class=\"badge error\">not written</span> \(x(reason))</p>\n"
            }
            if !r.findings.isEmpty {
                body += "<ul class=\"findings\">"
                for f in r.findings {
                    body += """
                        <li class="\(f.severity.rawValue)"><span class="sev">\(f.severity.rawValue)</span> \
                        [\(x(f.rule))] \(x(f.message))</li>
                        """
                }
                body += "</ul>\n"
            }
            body += """
                <div class="scroll"><table class="scores"><tr><th>#</th><th>start s</th><th>end s</th>\
                <th>frames</th><th>seam</th><th>seam motion</th><th>structure</th><th>audio jump</th><th>level dB</th>\
                <th>tone octaves</th><th>picture</th><th>motion</th><th>seamless</th></tr>

                """
            for (k, c) in loop.candidates.enumerated() {
                let mark = k == loop.chosen ? (output != nil ? " (written)" : " (chosen)") : ""
                body += String(
                    format:
                        "<tr%@><td>%d%@</td><td>%.3f</td><td>%.3f</td><td>%d</td>"
                        + "<td>%.1f</td><td>%.1f</td><td>%.2f / %.2f</td><td>%.3f</td><td>%.1f</td><td>%.2f</td>"
                        + "<td>%.1f</td><td>%.1f</td><td>%@</td></tr>\n",
                    k == loop.chosen ? " class=\"chosen\"" : "", k + 1, mark, c.start.doubleValue, c.end.doubleValue,
                    c.frames, c.seamDifference, c.seamMotion, c.seamDissimilarity, c.neighbourDissimilarity.max() ?? 0,
                    c.audioJump, c.levelDifference, c.toneDifference, c.pictureDifference, c.motionDifference,
                    c.seamless ? "yes" : "no")
            }
            body += "</table></div>\n"
            for (k, strip) in loop.strips.enumerated() {
                body += """
                    <figure><img class="strip" alt="seam of candidate \(k + 1)" \
                    src="data:image/png;base64,\(Data(strip).base64EncodedString())"/>\
                    <figcaption>#\(k + 1): the loop's last three frames, the seam, its first three, with the sound \
                    either side</figcaption></figure>

                    """
            }
            body += "</section>\n"
        }
        return HTMLReport.document(
            title: "loopprep loop report", body: body,
            script: results.contains(where: { $0.fix?.webPlayer != nil }) ? PlayerButton.script : "")
    }

    static func text(_ r: FileReport) -> String {
        let (output, loop) = (r.written, r.loop ?? LoopChoice())
        var out = "\(r.path)\n"
        for (k, c) in loop.candidates.enumerated() {
            out += String(
                format:
                    """
                      %@#%d  %.3f-%.3f s (frames %d-%d, %d frames): %@seam %.1f against motion %.1f, structure \
                    %.2f against %.2f, audio jump %.3f, level %.1f dB, tone %.2f octaves (picture %.1f, motion %.1f)\n
                    """,
                k == loop.chosen ? "*" : " ", k + 1, c.start.doubleValue, c.end.doubleValue, c.inFrame, c.outFrame - 1,
                c.frames, c.seamless ? "" : "NOT SEAMLESS: ", c.seamDifference, c.seamMotion, c.seamDissimilarity,
                c.neighbourDissimilarity.max() ?? 0, c.audioJump, c.levelDifference, c.toneDifference,
                c.pictureDifference, c.motionDifference)
        }
        for note in r.notes ?? [] { out += "  note: \(note)\n" }
        if let plan = r.fix?.plan, let video = plan.tracks.first(where: { $0.kind == .video }),
            let frames = video.presentedFrames
        {
            let encoded = [video.head, video.tail].compactMap { $0?.frames }.reduce(0, +)
            out +=
                "  \(output == nil ? "would write" : "wrote") \(frames) frames: \(frames - encoded) copied, "
                + "\(encoded) encoded again; \(Figures.seconds(plan.duration))\n"
        }
        if let blend = loop.blend {
            out += "  \(output == nil ? "would blend" : "blended") the seam, as stitch joins the loop to itself:\n"
            out += StitchText.timeline(blend, indent: "  ")
        }
        if let output {
            out += "  wrote \(output)\n"
            if let line = TextFormat.loopRangeLine(r.loopRange, reason: r.loopRangeReason) { out += "  " + line + "\n" }
        }
        if let web = r.fix?.webPlayer { out += "  web player -> \(web.page)\n" }
        // A refusal beside a loop written is its web player's; without one, the loop's.
        if let refusal = r.outcome?.refusal, output != nil { out += "  NO WEB PLAYER: \(refusal.sentence)\n" }
        for f in r.findings {
            out += "  \(f.severity.rawValue) [\(f.rule)] \(f.message)\n"
            if f.ruleID != .unreadable { out += "          fix: \(f.hint)\n" }
        }
        if let refusal = r.outcome?.refusal, output == nil { out += "  NOT WRITTEN: \(refusal.sentence)\n" }
        return out
    }
}

extension FileReport {
    /// The loop written and kept (its web player may have failed beside it); nil where none was (a refusal, a
    /// dry run: a refused loop names no output).
    fileprivate var written: String? {
        guard let fix, fix.status == .fixed || fix.status == .failed else { return nil }
        return fix.output
    }
}
