import LoopAnalysis
import LoopRangeValues

/// The people's format: one block per file, worst file first, each track's facts on a line, then findings.
enum TextFormat {
    static func render(_ report: Report, color: Bool) -> String {
        // loop's clips: each one's candidates, what was written and its findings (LoopText).
        if report.command == "loop" { return report.files.map(LoopText.text).joined() }
        // stitch's reel: its timeline, its plan's work and the reel written (StitchText).
        if report.command == "stitch" { return report.files.map(StitchText.text).joined() }
        let paint = Paint(enabled: color)
        let files = report.files.sorted { a, b in
            let (x, y) = (a.worst?.rank ?? -1, b.worst?.rank ?? -1)
            return x != y ? x > y : a.path < b.path
        }
        var out = ""
        for file in files { out += section(file, options: report.options, paint: paint) }
        let s = report.summary
        let clean = report.files.filter { $0.findings.allSatisfy { $0.severity == .info } }.count
        // fix: what was written comes first; the findings are the outputs' where written, the inputs' elsewhere.
        if let written = s.written, let notFixed = s.notFixed {
            out +=
                """
                \(s.files) file\(s.files == 1 ? "" : "s"): \(written) written, \(notFixed) not fixed, \(s.unreadable) \
                unreadable; findings: \(s.errors) error\(s.errors == 1 ? "" : "s"), \(s.warnings) \
                warning\(s.warnings == 1 ? "" : "s")\n
                """
            return out
        }
        out +=
            """
            \(s.files) file\(s.files == 1 ? "" : "s"): \(clean) clean, \(s.errors) \
            error\(s.errors == 1 ? "" : "s"), \(s.warnings) warning\(s.warnings == 1 ? "" : "s"), \(s.unreadable) \
            unreadable\n
            """
        return out
    }

    /// One file's block: its status, what fix did, its facts, its loop range and its findings.
    static func section(_ file: FileReport, options: AnalysisOptions, paint: Paint) -> String {
        let status =
            file.error != nil
            ? paint.red("UNREADABLE")
            : (file.worst.map { paint.severity($0, $0.rawValue.uppercased()) } ?? paint.green("OK"))
        var out = "\(paint.bold(file.path))  \(status)\n"
        if let fix = file.fix {
            // A copy is not called clean beside the errors fix does not cure.
            let errors = file.findings.filter { $0.severity == .error }.map(\.rule)
            out += FixText.render(fix, remaining: Array(Set(errors)).sorted())
        }
        if let facts = file.facts {
            out += "  \(facts.container), \(Figures.decimal(Rational(facts.fileSize, 1024), places: 1)) KiB"
            out += facts.moovBeforeMdat.map { $0 ? ", moov first" : ", moov at end" } ?? ""
            out += "\n"
            for track in facts.tracks { out += "  " + describe(track) + "\n" }
        }
        if let line = loopRangeLine(file) {
            out += "  " + line + "\n"
            // A browser loops a range only through Media Source Extensions (what a CMTime is to AVFoundation).
            if options.target.isBrowser, file.loopRange != nil {
                out += "    in a browser: <video loop> seeks back to 0 at every wrap and stalls; "
                out += "loopprep fix --web-player writes a player that loops gaplessly (Media Source Extensions)\n"
            }
        }
        for note in file.notes ?? [] { out += "  note: \(note)\n" }
        for f in file.findings {
            out +=
                "  " + paint.severity(f.severity, f.severity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))
            out += " [\(f.rule)] \(f.message)\n"
            if f.ruleID != .unreadable { out += "          fix: \(f.hint)\n" }
        }
        return out + "\n"
    }

    /// The loop range on one line: the span (seconds, exact), as CMTime, what it cures and what needs a rewrite.
    static func loopRangeLine(_ file: FileReport) -> String? {
        loopRangeLine(file.loopRange, reason: file.loopRangeReason)
    }

    /// `label`: whose range it is ("the input's loop range" beside a written output's).
    static func loopRangeLine(_ range: LoopRange?, reason: String?, label: String = "loop range") -> String? {
        guard let range else {
            return reason.map { "\(label): none (\($0))" }
        }
        guard let s = range.exactStart, let d = range.exactDuration else { return nil }
        let (start, duration) = (Rational(s.numerator, s.denominator), Rational(d.numerator, d.denominator))
        var line =
            "\(label): \(Figures.decimal(start, places: 3))-\(Figures.decimal(start + duration, places: 3)) s "
            + "(start \(range.start), duration \(range.duration) s"
        if let t = range.cmTime {
            line += "; CMTime \(t.start.value)/\(t.start.timescale) + \(t.duration.value)/\(t.duration.timescale)"
        }
        line += ")"
        if !range.cures.isEmpty { line += "; cures \(range.cures.joined(separator: ", "))" }
        if !range.remains.isEmpty { line += "; a rewrite needed for \(range.remains.joined(separator: ", "))" }
        if let note = range.note { line += "\n    range note: \(note)" }
        return line
    }

    /// A track that is neither picture nor sound, by what its sample entry says it carries (FFmpeg names a
    /// timecode's codec "none"): nil for another.
    static func carries(_ t: TrackFacts) -> String? {
        guard t.kind == .data || t.kind == .subtitle else { return nil }
        switch t.codecTag?.trimmingCharacters(in: .whitespaces) {
        case "tmcd": return "timecode \(t.index): \(t.timecode.map { "starts at \($0) (tmcd)" } ?? "tmcd")"
        case "gpmd": return "telemetry \(t.index): GoPro gpmd"
        case "text": return "text \(t.index): QuickTime text (chapter titles or captions)"
        case "tx3g": return "text \(t.index): timed text (tx3g: chapter titles or captions)"
        case "rtmd": return "metadata \(t.index): Sony rtmd"
        case "camm": return "metadata \(t.index): camera motion (camm)"
        default: return nil
        }
    }

    static func describe(_ t: TrackFacts) -> String {
        var parts = [
            carries(t)
                ?? "\(t.kind.rawValue) \(t.index): \(t.codec)" + (t.profile.map { " \($0)" } ?? "")
                + (t.beyondEntry.map { " (with \($0) frames inside)" } ?? "")
        ]
        if let w = t.width, let h = t.height { parts.append("\(w)x\(h)") }
        if let steps = t.variableFrameRate {
            let ms = { (f: TimeFigure) in Figures.ms(f.ticks * t.timeBase) }
            parts.append("variable frame rate (frames of \(ms(steps.shortest)) to \(ms(steps.longest)))")
        } else if let fps = t.frameRate {
            parts.append("\(fps) fps")
        }
        if let rate = t.sampleRate { parts.append("\(rate) Hz") }
        if let ch = t.channels { parts.append("\(ch) ch") }
        var range = "\(Figures.decimal(t.startSeconds, places: 3))-\(Figures.decimal(t.endSeconds, places: 3)) s"
        if let n = t.frameCount { range += " (\(n) frames)" }
        if let n = t.sampleCount {
            range += " (\(n.denominator == 1 ? "\(n.numerator)" : Figures.decimal(n, places: 1)) samples)"
        }
        parts.append(range)
        if let p = t.priming { parts.append(priming(p)) }
        if t.firstFrameIsKeyframe == false { parts.append("starts mid-GOP") }
        if let r = t.rotation, r != 0 { parts.append("rotated " + Rotation.describe(r)) }
        return parts.joined(separator: ", ")
    }

    /// An edit that skips more than any encoder's delay is trimming content too; say what it skips.
    static func priming(_ p: PrimingFacts) -> String {
        guard p.signalled else { return "priming not signalled" }
        guard let n = p.samples else { return "priming signalled (\(p.method))" }
        return n <= PrimingFacts.largestKnownDelay
            ? "priming \(n) signalled (\(p.method))" : "priming hidden (\(p.method) skips \(n) samples)"
    }
}

struct Paint {
    var enabled: Bool
    func wrap(_ code: String, _ s: String) -> String { enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func bold(_ s: String) -> String { wrap("1", s) }
    func red(_ s: String) -> String { wrap("31", s) }
    func green(_ s: String) -> String { wrap("32", s) }
    func severity(_ sev: Severity, _ s: String) -> String {
        switch sev {
        case .error: wrap("31", s)
        case .warning: wrap("33", s)
        case .info: wrap("36", s)
        }
    }
}
