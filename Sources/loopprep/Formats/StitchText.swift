import Foundation
import LoopAnalysis

/// stitch's report in every format: its own JSON document and text (the timeline, the notes, the output),
/// the shared formats through the output's one-file report.
enum StitchText {
    static let encoder = JSONFormat.encoder()

    /// On stdout in the chosen format; each extra --report to its file; a finding per line on stderr.
    static func emit(_ result: StitchReport, options: ReportOptions) throws {
        switch options.format {
        case .json: Console.stdout(String(decoding: try encoder.encode(result), as: UTF8.self) + "\n")
        case .text: Console.stdout(text(result))
        default: try Output.render(result.report, format: options.format, failOn: options.failOn, to: Console.stdout)
        }
        var report = result.report
        report.ffmpeg = result.ffmpeg
        Output.diagnose(report, options: options, failures: false)
        try Output.writeExtra(report, options: options)
    }

    static func text(_ result: StitchReport) -> String {
        var out = timeline(result.timeline)
        if let render = result.plan?.render { out += work(render, written: result.output != nil) }
        for note in result.reencoded { out += "note: \(note)\n" }
        for note in result.audioLeftOut + result.dataLeftOut { out += "note: \(note)\n" }
        for note in result.colourConverted + result.turned + result.metadataLeftOut { out += "note: \(note)\n" }
        if let error = result.error {
            out += "NOT WRITTEN: \(error)\n"
        } else if let output = result.output, let facts = result.facts {
            let tracks = facts.tracks.filter { $0.kind == .video || $0.kind == .audio }.map { TextFormat.describe($0) }
            let verb = result.alreadyWritten == true ? "kept (already what the plan writes)" : "wrote"
            out += "\(verb) \(output): " + tracks.joined(separator: "; ") + "\n"
            for f in result.findings { out += "  \(f.severity.rawValue) [\(f.rule)] \(f.message)\n" }
            // A reel joined without --loop is a playlist, not a loop: its seam is said (analyze says it too) as how
            // it would loop, not as a fault of the joins.
            let seam = result.findings.filter { $0.ruleID == .seamVisualJump || $0.ruleID == .seamAudioClick }
            if !result.timeline.loop, !seam.isEmpty {
                let rules = seam.map(\.rule).joined(separator: ", ")
                out += "  note: stitched without --loop, the reel is not joined as a loop: \(rules) says how its end "
                out += "would meet its start if looped (stitch --loop joins the last clip back into the first)\n"
            }
            for note in result.notes ?? [] { out += "  note: \(note)\n" }
            if let line = TextFormat.loopRangeLine(result.loopRange, reason: result.loopRangeReason) {
                out += "  " + line + "\n"
            }
            if let web = result.webPlayer { out += "web player -> \(web.page)\n" }
            if let error = result.webPlayerError { out += "NO WEB PLAYER: \(error)\n" }
        } else {
            out += "dry run: nothing written\n"
        }
        return out
    }

    /// What the render plan copies and encodes, a line: "would copy 24 frames and encode 21 (15 blended)".
    static func work(_ render: StitchRenderPlan, written: Bool) -> String {
        var (copied, encoded, blended) = (0, 0, 0)
        for run in render.runs {
            switch run {
            case .copy(let clip): copied += render.bodies[clip].map { $0.end - $0.start } ?? 0
            case .render(let r):
                encoded += r.items.count
                blended += r.items.filter { if case .blend = $0 { true } else { false } }.count
            }
        }
        let verbs = written ? ("copied", "encoded") : ("would copy", "encode")
        return "\(verbs.0) \(copied) frames and \(verbs.1) \(encoded)\(blended > 0 ? " (\(blended) blended)" : "")\n"
    }

    /// The timeline's lines: its length, each clip's range and the joins out of it (`indent` before each).
    static func timeline(_ t: StitchTimeline, indent: String = "") -> String {
        var out =
            """
            \(indent)timeline: \(t.clips.count) clip\(t.clips.count == 1 ? "" : "s"), \
            \(Figures.seconds(t.duration)) = \(t.frames) frames at \(t.frameRate) fps
            """
        if let n = t.samples, let r = t.sampleRate { out += " = \(n) samples at \(r) Hz" }
        out += t.loop ? ", loops\n" : "\n"
        for (i, c) in t.clips.enumerated() {
            // First and last frame, both shown (as loop's candidates count them).
            let last = max(c.span.endFrame - 1, c.span.startFrame)
            out += "\(indent)  \(span(c.span)) s  frames \(c.span.startFrame)-\(last)  \(c.path)\n"
            for j in t.joins where j.from == i && j.frames > 0 {
                out +=
                    "\(indent)    \(j.kind.rawValue) into \(t.clips[j.to].path): \(span(j.span)) s "
                    + "(\(j.frames) frames)\n"
            }
        }
        return out
    }

    static func span(_ s: Span) -> String {
        "\(Figures.decimal(s.start, places: 3))-\(Figures.decimal(s.end, places: 3))"
    }
}
