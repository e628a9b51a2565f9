import Foundation
import LoopAnalysis

/// One self-contained page (no network: styles, script and pictures inline), well-formed XHTML so any XML
/// reader can check it. Light and dark by the reader's colour scheme; clips sortable by severity or name.
enum HTMLReport {
    /// `timeline`: a stitch's, drawn above the clips.
    static func render(_ report: Report, strips: [String: [UInt8]], timeline: StitchTimeline? = nil) -> String {
        let files = report.files.sorted { a, b in
            let (x, y) = (a.worst?.rankValue ?? -1, b.worst?.rankValue ?? -1)
            return x != y ? x > y : a.path < b.path
        }
        var body = "<h1>loopprep \(x(report.command))</h1>\n" + summary(report)
        if let timeline {
            body += "<h2>Timeline</h2>\n" + TimelinePicture.svg(timeline)
            body += "<table class=\"rules\"><tr><th>clip</th><th>start</th><th>end</th><th>frames</th></tr>\n"
            for c in timeline.clips {
                body += "<tr><td>\(x(c.path))</td><td>\(Figures.decimal(c.span.start, places: 3)) s</td><td>\(Figures.decimal(c.span.end, places: 3)) s</td><td>\(c.span.startFrame)-\(c.span.endFrame)</td></tr>\n"
            }
            body += "</table>\n"
        }
        body += """
        <p class="sort">Sort: <button type="button" onclick="sortBy('severity')">worst first</button> \
        <button type="button" onclick="sortBy('name')">by name</button></p>
        <div id="clips">

        """
        for file in files { body += clip(file, strip: strips[file.path]) }
        body += "</div>\n"
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>loopprep report</title>
        <style>\(css)\(TimelinePicture.css)</style>
        </head>
        <body>
        \(body)<script>//<![CDATA[
        \(script)
        //]]></script>
        </body>
        </html>

        """
    }

    static func summary(_ report: Report) -> String {
        let s = report.summary
        let clean = report.files.filter { $0.findings.allSatisfy { $0.severity == .info } }.count
        var out = "<div class=\"summary\">\n<p><strong>\(s.files)</strong> clip\(s.files == 1 ? "" : "s"): "
        out += "<span class=\"badge ok\">\(clean) clean</span> <span class=\"badge error\">\(s.errors) error\(s.errors == 1 ? "" : "s")</span> "
        out += "<span class=\"badge warning\">\(s.warnings) warning\(s.warnings == 1 ? "" : "s")</span> "
        out += "<span class=\"badge info\">\(s.infos) info</span> <span class=\"badge error\">\(s.unreadable) unreadable</span></p>\n"
        if !s.filesByRule.isEmpty {
            out += "<table class=\"rules\"><tr><th>rule</th><th>clips</th></tr>\n"
            for (rule, count) in s.filesByRule.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                out += "<tr><td><code>\(x(rule))</code></td><td>\(count)</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out + "</div>\n"
    }

    static func clip(_ file: FileReport, strip: [UInt8]?) -> String {
        let worst = file.error != nil ? "error" : (file.worst?.rawValue ?? "ok")
        let rank = file.worst?.rankValue ?? -1
        var out = "<section class=\"clip \(worst)\" data-rank=\"\(rank)\" data-name=\"\(x(file.path))\">\n"
        out += "<h2><span class=\"badge \(worst)\">\(file.error != nil ? "unreadable" : worst)</span> \(x(file.path))</h2>\n"
        if let facts = file.facts {
            out += "<ul class=\"facts\">\n<li>\(x(facts.container)), \(Figures.decimal(Rational(facts.fileSize, 1024), places: 1)) KiB"
            out += facts.moovBeforeMdat.map { $0 ? ", moov first" : ", moov at end" } ?? ""
            out += "</li>\n"
            for t in facts.tracks { out += "<li>\(x(TextFormat.describe(t)))</li>\n" }
            out += "</ul>\n"
        }
        if !file.findings.isEmpty {
            out += "<ul class=\"findings\">\n"
            for f in file.findings {
                out += "<li class=\"\(f.severity.rawValue)\"><span class=\"sev\">\(f.severity.rawValue)</span> <code>\(x(f.rule))</code> \(x(f.message))"
                if f.rule != Analyzer.unreadableID { out += "<br/><span class=\"hint\">fix: \(x(f.hint))</span>" }
                out += "</li>\n"
            }
            out += "</ul>\n"
        }
        if let strip {
            out += "<figure><img alt=\"seam of \(x(file.path))\" src=\"data:image/png;base64,\(Data(strip).base64EncodedString())\"/>"
            out += "<figcaption>Left of the orange line: the last frames and the last 50 ms of audio; right: the first ones. Waveforms are scaled to their peak; a red bar marks the audio jump, red boxes what a rule flagged.</figcaption></figure>\n"
        }
        return out + "</section>\n"
    }

    /// Escapes text for XML (and drops characters XML 1.0 cannot carry).
    static func x(_ s: String) -> String { JUnitFormat.xml(s) }

    static let css = """
    :root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1f23; --muted: #5d6470; --card: #f4f5f7; --line: #d5d8de;
            --error: #c62828; --warning: #a86200; --info: #1565c0; --ok: #2e7d32; }
    @media (prefers-color-scheme: dark) {
      :root { --bg: #15171a; --fg: #e8eaed; --muted: #a2a8b3; --card: #1f2227; --line: #353a42;
              --error: #ff6b6b; --warning: #ffb74d; --info: #64b5f6; --ok: #81c784; } }
    body { background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; }
    h1 { font-size: 1.5rem; } h2 { font-size: 1.05rem; word-break: break-all; }
    .summary, .clip { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
    .clip.error { border-left: 6px solid var(--error); } .clip.warning { border-left: 6px solid var(--warning); }
    .clip.info { border-left: 6px solid var(--info); } .clip.ok { border-left: 6px solid var(--ok); }
    .badge { display: inline-block; border-radius: 4px; padding: 0 .4rem; font-size: .8rem; font-weight: 600; color: var(--bg); }
    .badge.error { background: var(--error); } .badge.warning { background: var(--warning); }
    .badge.info { background: var(--info); } .badge.ok { background: var(--ok); }
    .findings li.error .sev { color: var(--error); } .findings li.warning .sev { color: var(--warning); }
    .findings li.info .sev { color: var(--info); } .sev { font-weight: 700; text-transform: uppercase; font-size: .8rem; }
    .hint, .facts, figcaption { color: var(--muted); } .facts { font-size: .9rem; }
    table.rules { border-collapse: collapse; } table.rules td, table.rules th { padding: .1rem .8rem; text-align: left; border-bottom: 1px solid var(--line); }
    figure { margin: .5rem 0; } img { max-width: 100%; height: auto; display: block; }
    button { font: inherit; }
    """

    /// Sorting without '<' or '&' so the script is plain XML text as well.
    static let script = """
    function sortBy(key) {
      var box = document.getElementById('clips');
      var items = Array.prototype.slice.call(box.children);
      items.sort(function (a, b) {
        if (key === 'name') return a.dataset.name.localeCompare(b.dataset.name);
        return (Number(b.dataset.rank) - Number(a.dataset.rank)) || a.dataset.name.localeCompare(b.dataset.name);
      });
      items.forEach(function (el) { box.appendChild(el); });
    }
    """
}
