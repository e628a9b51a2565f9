import Foundation
import LoopAnalysis

/// stitch's text: the reel's timeline, what its plan copies and encodes, the notes, and the reel written (its
/// tracks, findings and loop range) or why not. Every other format is the report's, as every command's.
enum StitchText {
    static let encoder = JSONFormat.encoder()

    /// The reel's record in words.
    static func text(_ file: FileReport) -> String {
        guard let reel = file.reel else { return "" }
        var out = timeline(reel.timeline)
        // (Only a reel written has facts: a dry run's or a refused write's would copy.)
        let written = file.facts != nil
        if let render = reel.plan?.render { out += work(render, written: written) }
        for note in reel.reencoded { out += "note: \(note)\n" }
        for note in reel.audioLeftOut + reel.dataLeftOut { out += "note: \(note)\n" }
        for note in reel.colourConverted + reel.turned + reel.metadataLeftOut { out += "note: \(note)\n" }
        // A web player that failed beside a written reel is said after the reel; any other refusal wrote nothing.
        let (fix, refusal) = (file.fix, file.outcome?.refusal)
        let besideWritten = refusal?.cause == .webPlayer && file.facts != nil
        if let refusal, !besideWritten {
            out += "NOT WRITTEN: \(refusal.sentence)\n"
        } else if let output = fix?.output, fix?.status != .planned, let facts = file.facts {
            let tracks = facts.tracks.filter { $0.kind == .video || $0.kind == .audio }.map { TextFormat.describe($0) }
            let verb = fix?.alreadyWritten == true ? "kept (already what the plan writes)" : "wrote"
            out += "\(verb) \(output): " + tracks.joined(separator: "; ") + "\n"
            for f in file.findings { out += "  \(f.severity.rawValue) [\(f.rule)] \(f.message)\n" }
            // A reel joined without --loop is a playlist, not a loop: its seam is said (analyze says it too) as how
            // it would loop, not as a fault of the joins.
            let seam = file.findings.filter { $0.ruleID == .seamVisualJump || $0.ruleID == .seamAudioClick }
            if !reel.timeline.loop, !seam.isEmpty {
                let rules = seam.map(\.rule).joined(separator: ", ")
                out += "  note: stitched without --loop, the reel is not joined as a loop: \(rules) says how its end "
                out += "would meet its start if looped (stitch --loop joins the last clip back into the first)\n"
            }
            for note in file.notes ?? [] { out += "  note: \(note)\n" }
            if let line = TextFormat.loopRangeLine(file.loopRange, reason: file.loopRangeReason) {
                out += "  " + line + "\n"
            }
            if let web = fix?.webPlayer { out += "web player -> \(web.page)\n" }
            if let refusal, besideWritten { out += "NO WEB PLAYER: \(refusal.sentence)\n" }
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
