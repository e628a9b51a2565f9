import Foundation
import LoopAnalysis

/// One self-contained page (no network: styles, script and pictures inline), well-formed XHTML so any XML
/// reader can check it. Light and dark by the reader's colour scheme; clips sortable by severity or name.
enum HTMLReport {
    /// `timeline`: a stitch's, drawn above the clips. `written`: when, for the page's header.
    /// `notes`: what the page should say above the clips (a stitch's clips re-encoded whole).
    /// `players`: per file, the web player written beside it (a "play loop" button), with `page` the path the
    /// page is written to.
    static func render(
        _ report: Report, strips: [String: [UInt8]], timeline: StitchTimeline? = nil, notes: [String] = [],
        players: [String: WebPlayerOutput] = [:], page: String = "", written: Date = Date()
    ) -> String {
        let files = report.files.sorted { a, b in
            let (x, y) = (a.worst?.rank ?? -1, b.worst?.rank ?? -1)
            return x != y ? x > y : a.path < b.path
        }
        var body = "<h1>loopprep \(x(report.command))</h1>\n" + header(report, written: written)
        // A stitch's dry run has a timeline and no clip to count or filter.
        if !report.files.isEmpty || timeline == nil { body += summary(report, stitched: timeline?.clips.count) }
        if let timeline { body += Self.timeline(timeline) }
        for note in notes { body += "<p class=\"note\">Note: \(x(note))</p>\n" }
        if !report.files.isEmpty || timeline == nil { body += filters(report) }
        body += "<div id=\"clips\">\n"
        for file in files {
            body += clip(
                file, strip: strips[file.path], player: players[file.path].map { PlayerButton.html($0, page: page) })
        }
        body += "</div>\n"
        return document(
            title: "loopprep \(report.command) report", body: body,
            script: script + "\n" + (players.isEmpty ? "" : PlayerButton.script))
    }

    /// The one page every command writes (analyze, report, stitch, loop): the same head, style (light and dark by
    /// the reader's scheme), XHTML that an XML parser reads, and a script kept as plain text.
    static func document(title: String, body: String, script: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(x(title))</title>
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

    /// Which loopprep, when, and the settings the findings depend on.
    static func header(_ report: Report, written: Date) -> String {
        let stamp = Self.stamp(written)
        let o = report.options
        var settings = [
            "target \(o.target.rawValue)", "min-loop \(Figures.decimal(o.minimumLoopSeconds, places: 3)) s",
            "seam checks \(o.seamChecks ? "on" : "off")",
        ]
        if let disabled = o.disabled, !disabled.isEmpty {
            settings.append("disabled: " + disabled.joined(separator: ", "))
        }
        for (rule, value) in (o.thresholds ?? [:]).sorted(by: { $0.key < $1.key }) {
            settings.append("\(rule) threshold \(value)")
        }
        settings.append("config: " + (o.config ?? "none"))
        return "<p class=\"meta\">loopprep \(x(report.version ?? Report.toolVersion)), written \(x(stamp))</p>\n"
            + "<p class=\"meta\">Settings: \(settings.map { x($0) }.joined(separator: " \u{00B7} "))</p>\n"
    }

    /// "2026-11-22 23:58:00 UTC".
    static func stamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date).replacingOccurrences(of: "T", with: " ").replacingOccurrences(
            of: "Z", with: " UTC")
    }

    /// Clips and findings counted apart: a clip with three warnings is one clip, three findings.
    /// `stitched`: a stitch's page counts the clips it joined, and calls the file it describes the output.
    static func summary(_ report: Report, stitched: Int? = nil) -> String {
        let s = report.summary
        var clean = 0
        var withErrors = 0
        var withWarnings = 0
        for file in report.files where file.error == nil {
            switch file.worst {
            case .error: withErrors += 1
            case .warning: withWarnings += 1
            default: clean += 1
            }
        }
        func n(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        var out = "<div class=\"summary\">\n<div class=\"figures\">\n"
        if let stitched {
            out +=
                """
                <div class=\"figure\" id=\"stitched-count\"><span class=\"label\">Clips</span> \
                <strong>\(stitched)</strong> <span class=\"parts\">stitched into one output</span></div>\n
                """
        }
        out += "<div class=\"figure\" id=\"clip-count\"><span class=\"label\">\(stitched == nil ? "Clips" : "Output")"
        out += "</span> <strong>\(s.files)</strong> "
        out +=
            """
            <span class=\"parts\"><span class=\"badge ok\">\(clean) clean</span> <span class=\"badge \
            error\">\(withErrors) with errors</span> 
            """
        out +=
            """
            <span class=\"badge warning\">\(withWarnings) with warnings</span> <span class=\"badge \
            error\">\(s.unreadable) unreadable</span></span></div>\n
            """
        out +=
            """
            <div class=\"figure\" id=\"finding-count\"><span class=\"label\">Findings</span> \
            <strong>\(s.errors + s.warnings + s.infos)</strong> 
            """
        out += "<span class=\"parts\"><span class=\"badge error\">\(n(s.errors, "error", "errors"))</span> "
        out +=
            """
            <span class=\"badge warning\">\(n(s.warnings, "warning", "warnings"))</span> <span class=\"badge \
            info\">\(s.infos) info</span></span></div>\n
            """
        out += "</div>\n"
        if !s.filesByRule.isEmpty {
            out += "<div class=\"scroll\"><table class=\"rules\"><tr><th>rule</th><th>clips</th></tr>\n"
            for (rule, count) in s.filesByRule.sorted(by: {
                $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
            }) {
                out += "<tr><td><code>\(x(rule))</code></td><td>\(count)</td></tr>\n"
            }
            out += "</table></div>\n"
        }
        return out + "</div>\n"
    }

    /// A stitch's timeline: the picture (scrolls sideways on a narrow screen) and, readable at any width, every
    /// clip and join in order, the --loop wrap-around named as such.
    /// A join's line: a transition, a loop join's transition or cut.
    static func joinEvent(_ j: StitchTimeline.JoinEntry, in t: StitchTimeline, at when: String, name: (Int) -> String)
        -> String
    {
        let what =
            j.frames > 0
            ? """
            \(x(j.kind.rawValue)) \(Figures.decimal(j.span.end - j.span.start, places: 3)) s (\(j.frames) \
            frames)
            """
            : "cut"
        guard t.isLoopJoin(j) else {
            return "<span class=\"when\">\(when)</span> join: \(what) from \(name(j.from)) into \(name(j.to))"
        }
        if j.frames > 0 {
            return """
                <span class=\"when\">\(when)</span> <span class=\"wrap\">\u{21BB} loop join</span>: \
                \(what) from \(name(j.from)) back into \(name(j.to)); its opening frames play here, under the \
                \(x(j.kind.rawValue)), so the file starts after them
                """
        }
        return """
            <span class=\"when\">\(when)</span> <span class=\"wrap\">\u{21BB} loop join</span>: the \
            end of \(name(j.from)) meets the start of \(name(j.to)) (a cut)
            """
    }

    static func timeline(_ t: StitchTimeline) -> String {
        var out = "<h2>Timeline</h2>\n<div class=\"scroll\">" + TimelinePicture.svg(t) + "</div>\n"
        out += "<ol class=\"events\">\n"
        func name(_ i: Int) -> String { x((t.clips[i].path as NSString).lastPathComponent) }
        func at(_ span: Span) -> String {
            "\(Figures.decimal(span.start, places: 3))\u{2013}\(Figures.decimal(span.end, places: 3)) s"
        }
        var events: [(Span, Int, String)] = t.clips.enumerated().map { i, c in
            (
                c.span, 0,
                """
                <span class=\"when\">\(at(c.span))</span> <strong>\(wrappable(c.path))</strong>, frames \
                \(c.span.startFrame)\u{2013}\(max(c.span.endFrame - 1, c.span.startFrame))
                """
            )
        }
        for j in t.joins where j.frames > 0 || t.isLoopJoin(j) {
            events.append((j.span, 1, joinEvent(j, in: t, at: at(j.span), name: name)))
        }
        for e in events.sorted(by: { $0.0.start != $1.0.start ? $0.0.start < $1.0.start : $0.1 < $1.1 }) {
            out += "<li class=\"\(e.1 == 0 ? "clip-event" : "join-event")\">\(e.2)</li>\n"
        }
        return out + "</ol>\n"
    }

    /// Filters by severity and by rule (only the rules this report has), and the two sort orders.
    static func filters(_ report: Report) -> String {
        var out = "<div class=\"filters\">\n<label>Severity <select id=\"filter-severity\" onchange=\"applyFilters()\">"
        out +=
            """
            <option value=\"\">all</option><option value=\"error\">with errors</option><option \
            value=\"warning\">with warnings</option>
            """
        out += "<option value=\"info\">with info</option><option value=\"clean\">clean</option></select></label>\n"
        out += "<label>Rule <select id=\"filter-rule\" onchange=\"applyFilters()\"><option value=\"\">all</option>"
        for rule in report.summary.filesByRule.keys.sorted() {
            out += "<option value=\"\(x(rule))\">\(x(rule))</option>"
        }
        out += "</select></label>\n"
        out += "<span class=\"sort\">Sort <button type=\"button\" onclick=\"sortBy('severity')\">worst first</button> "
        out += "<button type=\"button\" onclick=\"sortBy('name')\">by name</button></span>\n"
        out +=
            """
            <span id=\"shown\" class=\"meta\">\(report.files.count) of \(report.files.count) clips \
            shown</span>\n</div>\n
            """
        return out
    }

    static func clip(_ file: FileReport, strip: [UInt8]?, player: String? = nil) -> String {
        let worst = file.error != nil ? "error" : (file.worst?.rawValue ?? "ok")
        let rank = file.worst?.rank ?? -1
        let rules = Set(file.findings.map(\.rule)).sorted().joined(separator: " ")
        let severities = Set(file.findings.map(\.severity.rawValue)).sorted().joined(separator: " ")
        let clean = file.error == nil && (file.worst ?? .info) == .info
        var out =
            """
            <section class=\"clip \(worst)\" data-rank=\"\(rank)\" data-name=\"\(x(file.path))\" \
            data-rules=\"\(x(rules))\" 
            """
        out += "data-severities=\"\(severities)\(clean ? (severities.isEmpty ? "clean" : " clean") : "")\">\n"
        out +=
            """
            <h2><span class=\"badge \(worst)\">\(file.error != nil ? RuleID.unreadable.rawValue : worst)</span> \
            \(wrappable(file.path))</h2>\n
            """
        if let facts = file.facts {
            out +=
                """
                <ul class=\"facts\">\n<li>\(x(facts.container.name)), \
                \(Figures.decimal(Rational(facts.fileSize, 1024), places: 1)) KiB
                """
            out += facts.moovBeforeMdat.map { $0 ? ", moov first" : ", moov at end" } ?? ""
            out += "</li>\n"
            for t in facts.tracks { out += "<li>\(x(TextFormat.describe(t)))</li>\n" }
            out += "</ul>\n"
        }
        if let player { out += player }
        for note in file.notes ?? [] { out += "<p class=\"meta\">Note: \(x(note))</p>\n" }
        if let ignored = file.ignoredRules, !ignored.isEmpty {
            out +=
                """
                <p class=\"meta\">Not checked here (.loopprep.json ignore): \
                \(ignored.map { "<code>\(x($0))</code>" }.joined(separator: ", "))</p>\n
                """
        }
        if !file.findings.isEmpty {
            out += "<ul class=\"findings\">\n"
            for f in file.findings {
                out +=
                    """
                    <li class=\"\(f.severity.rawValue)\" data-rule=\"\(x(f.rule))\"><span \
                    class=\"sev\">\(f.severity.rawValue)</span> <code>\(x(f.rule))</code> \(x(f.message))
                    """
                if f.ruleID != .unreadable { out += "<br/><span class=\"hint\">fix: \(x(f.hint))</span>" }
                out += "</li>\n"
            }
            out += "</ul>\n"
        }
        if let strip {
            out +=
                """
                <figure><div class=\"scroll\"><img class=\"strip\" alt=\"seam of \(x(file.path))\" \
                src=\"data:image/png;base64,\(Data(strip).base64EncodedString())\"/></div>
                """
            out +=
                """
                <figcaption>Left of the orange line: the last frames and the last 50 ms of audio; right: the \
                first ones. Each frame is labelled with its time from the loop point, each waveform lane with its \
                channel, and the axis under them in milliseconds. Waveforms are scaled to their peak; a red bar \
                marks the audio jump, red boxes what a rule flagged.</figcaption></figure>\n
                """
        }
        return out + "</section>\n"
    }

    /// A path escaped for XML, with a line-break opportunity after each folder separator and before each dot,
    /// underscore and dash, so a long name wraps between its parts on a narrow screen.
    static func wrappable(_ path: String) -> String {
        var out = ""
        for c in path {
            if c == "." || c == "_" || c == "-" { out += "<wbr/>" }
            out += x(String(c))
            if c == "/" { out += "<wbr/>" }
        }
        return out
    }

    /// Escapes text for XML (and drops characters XML 1.0 cannot carry).
    static func x(_ s: String) -> String { JUnitFormat.xml(s) }

    static let css = """
        :root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1f23; --muted: #5d6470; --card: #f4f5f7; --line: \
        #d5d8de;
                --error: #c62828; --warning: #a86200; --info: #1565c0; --ok: #2e7d32; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #15171a; --fg: #e8eaed; --muted: #a2a8b3; --card: #1f2227; --line: #353a42;
                  --error: #ff6b6b; --warning: #ffb74d; --info: #64b5f6; --ok: #81c784; } }
        body { background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; \
        max-width: 1100px; padding: 0 .75rem; }
        h1 { font-size: 1.5rem; } h2 { font-size: 1.05rem; overflow-wrap: anywhere; }
        code, .events strong { overflow-wrap: anywhere; }
        .meta { color: var(--muted); font-size: .85rem; margin: .2rem 0; overflow-wrap: anywhere; }
        .figures { display: flex; flex-wrap: wrap; gap: .5rem 2rem; margin-bottom: .5rem; }
        .figure .label { color: var(--muted); text-transform: uppercase; font-size: .8rem; font-weight: 600; }
        .figure strong { font-size: 1.4rem; margin: 0 .4rem; } .figure .parts .badge { margin: .1rem 0; }
        .filters { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; margin: 1rem 0; }
        .scroll { overflow-x: auto; } .events { padding-left: 1.5rem; } .events li { margin: .2rem 0; }
        .events .when { color: var(--muted); font-variant-numeric: tabular-nums; } .events .wrap { color: \
        var(--warning); font-weight: 700; }
        .clip[hidden] { display: none; } .note { border-left: 4px solid var(--info); padding-left: .6rem; \
        overflow-wrap: anywhere; }
        .summary, .clip { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: \
        .75rem 1rem; margin: 1rem 0; }
        .clip.error { border-left: 6px solid var(--error); } .clip.warning { border-left: 6px solid var(--warning); }
        .clip.info { border-left: 6px solid var(--info); } .clip.ok { border-left: 6px solid var(--ok); }
        .badge { display: inline-block; border-radius: 4px; padding: 0 .4rem; font-size: .8rem; font-weight: 600; \
        color: var(--bg); }
        .badge.error { background: var(--error); } .badge.warning { background: var(--warning); }
        .badge.info { background: var(--info); } .badge.ok { background: var(--ok); }
        .findings li.error .sev { color: var(--error); } .findings li.warning .sev { color: var(--warning); }
        .findings li.info .sev { color: var(--info); } .sev { font-weight: 700; text-transform: uppercase; \
        font-size: .8rem; }
        .hint, .facts, figcaption { color: var(--muted); } .facts { font-size: .9rem; }
        table.scores { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: .85rem; } \
        table.scores td, table.scores th { padding: .15rem .45rem; text-align: right; border-bottom: 1px solid \
        var(--line); white-space: nowrap; } table.scores th { white-space: normal; vertical-align: bottom; } \
        table.scores tr.chosen { font-weight: 700; }
        .player video.loop { display: block; width: 100%; max-height: 70vh; background: #000; margin-top: .5rem; }
        .player .warn { color: var(--error); }
        table.rules { border-collapse: collapse; } table.rules td, table.rules th { padding: .1rem .8rem; \
        text-align: left; border-bottom: 1px solid var(--line); }
        figure { margin: .5rem 0; } img { max-width: 100%; height: auto; display: block; }
        @media (max-width: 700px) { img.strip { max-width: none; width: 800px; } }
        button, select { font: inherit; }
        """

    /// Sorting and filtering without '<' or '&' so the script is plain XML text as well.
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
        function has(list, word) { return (' ' + list + ' ').indexOf(' ' + word + ' ') !== -1; }
        function applyFilters() {
          var severity = document.getElementById('filter-severity').value;
          var rule = document.getElementById('filter-rule').value;
          var items = document.getElementById('clips').children, shown = 0;
          Array.prototype.forEach.call(items, function (el) {
            var keep = severity === '' || has(el.dataset.severities, severity);
            if (rule !== '') keep = keep ? has(el.dataset.rules, rule) : false;
            el.hidden = !keep;
            if (keep) shown += 1;
          });
          document.getElementById('shown').textContent = shown + ' of ' + items.length + ' clips shown';
        }
        """
}
