import Foundation
import LoopAnalysis

/// The fix part of a text report: status, output, what each track loses at its head and tail, notes.
enum FixText {
    /// `remaining`: the rules of the errors the written file still has (what fix does not cure, such as a codec the
    /// target does not play), so a copy is not called clean beside them.
    static func render(_ fix: FixOutcome, remaining: [String] = []) -> String {
        var out = ""
        switch fix.status {
        case _ where fix.alreadyWritten == true:
            out += "  already written: the output is exactly what this run writes, kept -> \(fix.output ?? "?")\n"
        case .fixed: out += "  fixed -> \(fix.output ?? "?")\n"
        case .unchanged where !remaining.isEmpty:
            out += "  nothing for fix to change: copied unchanged -> \(fix.output ?? "?") (fix does not cure "
            out += "\(remaining.joined(separator: ", ")): see below)\n"
        case .unchanged: out += "  already clean: copied unchanged -> \(fix.output ?? "?")\n"
        case .planned: out += "  plan (dry run, nothing written)\(fix.output.map { " -> \($0)" } ?? ""):\n"
        case .failed: out += "  NOT FIXED: \(fix.reason ?? "unknown reason")\n"
        }
        if let web = fix.webPlayer {
            out += "  web player -> \(web.page) (loops \(Figures.seconds(web.loop.length)) gaplessly; serve the folder "
            out += "over HTTP)\n"
            for note in web.notes { out += "    web player note: \(note)\n" }
        }
        // A file that could not be planned has no plan to show.
        guard let plan = fix.plan else { return out }
        for cut in plan.tracks {
            out += "    " + describe(cut, before: fix.before?.tracks.first { $0.index == cut.index }) + "\n"
        }
        let empty = Set((fix.before?.emptyTracks ?? []).map(\.index))
        for dropped in plan.dropped {
            let audio = fix.before?.tracks.first { $0.index == dropped }?.kind == .audio
            let why = empty.contains(dropped) ? "empty" : audio ? "--drop-audio" : "neither audio nor video"
            out += "    track \(dropped): dropped (\(why))\n"
        }
        out +=
            "    output: \(Figures.seconds(plan.outputDuration))"
            + (plan.repeats > 1 ? " (\(plan.repeats) x \(Figures.seconds(plan.duration)))" : "")
            + " from input \(Figures.seconds(plan.start))"
            + (writesMP4(fix) ? ", movie timescale \(plan.movieTimescale)" : "") + "\n"
        if fix.status != .failed { out += "    written: \(plan.writer.description)\n" }
        for note in plan.notes { out += "    note: \(note)\n" }
        // The report's loop range is the written file's; the input's, labelled, for looping the input unwritten (its
        // seam is not measured: fix measures the written file's, whose findings follow).
        if let line = TextFormat.loopRangeLine(
            fix.inputLoopRange, reason: fix.inputLoopRangeReason,
            label: "the input's loop range (unwritten; its seam is measured on the output below)")
        {
            out += "    \(line)\n"
        }
        return out
    }

    /// The output is an MP4 or MOV (kept, or converted to one), where the movie timescale means something.
    static func writesMP4(_ fix: FixOutcome) -> Bool {
        if let output = fix.output {
            return Container(extension: (output as NSString).pathExtension)?.isISO == true
        }
        return fix.before?.isISO == true
            || fix.plan?.convertsTo != nil
    }

    /// `before`: the input's track, whose stored timing fix writes anew where it is a muxer's slip (bumped decode
    /// times, odd audio durations): the track is then not "unchanged", whatever its ends.
    static func describe(_ cut: TrackCut, before: TrackFacts? = nil) -> String {
        var parts: [String] = []
        if let count = before?.relaidDecodeTimes {
            parts.append("lays \(count) bumped decode time\(count == 1 ? "" : "s") a frame apart")
        }
        if let count = before?.relaidStamps {
            parts.append("lays \(count) stray stamp\(count == 1 ? "" : "s") end to end")
        }
        if let count = before?.rewrittenDurations?.count {
            parts.append("rewrites \(count) stored duration\(count == 1 ? "" : "s")")
        }
        if !cut.trimmedHead.isZero {
            parts.append(
                """
                \(cut.trimmedHead.isNegative ? "reveals" : "trims") \(amount(cut.trimmedHead.magnitude, cut)) at \
                the start
                """
            )
        }
        if !cut.trimmedTail.isZero {
            parts.append(
                """
                \(cut.trimmedTail.isNegative ? "extends" : "trims") \(amount(cut.trimmedTail.magnitude, cut)) at \
                the end
                """
            )
        }
        if let shift = cut.shift {
            let way = shift.isNegative ? "later" : "earlier"
            parts.append(
                "moves \(amount(shift.magnitude, cut)) \(way) to start with the other tracks (every frame kept)")
        }
        let what = parts.isEmpty ? "unchanged" : parts.joined(separator: ", ")
        // Video presents whole frames, counted (variable frame rates have no one frame length to divide by).
        let presented =
            cut.presentedFrames.map { "\(Figures.ms(cut.duration)) = \($0) frame\($0 == 1 ? "" : "s")" }
            ?? amount(cut.duration, cut)
        return
            """
            \(cut.kind.rawValue) \(cut.index) (\(cut.codec)): \(what); presents \(presented), packets \
            \(cut.first)-\(cut.last)
            """
    }

    static func amount(_ seconds: Rational, _ cut: TrackCut) -> String {
        var s = Figures.ms(seconds)
        if let rate = cut.sampleRate { s += " = " + Figures.samples(seconds, rate: rate) }
        if let fps = cut.frameRate { s += " = " + Figures.frames(seconds, frameRate: fps) }
        return s
    }
}
