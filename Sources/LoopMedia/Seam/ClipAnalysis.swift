import LoopAnalysis
import LoopIndex

/// One file through the whole analysis: probe (index only), seam measurement (a few decoded frames), rules.
/// A file that cannot be read becomes a report with the `unreadable` finding; it never throws, so a batch goes on.
public enum ClipAnalysis {
    public static func report(path: String, options: AnalysisOptions) -> FileReport {
        report(path: path, options: options, picture: false).report
    }

    /// With `picture`, also the seam strip as PNG bytes (from the same decoding as the seam check).
    public static func report(path: String, options: AnalysisOptions, picture: Bool) -> (
        report: FileReport, strip: [UInt8]?
    ) {
        do {
            // Without the seam check nothing is decoded: the input is not kept (an MP4 then needs no FFmpeg).
            let probe = try Probe.probe(path, keepInput: options.seamChecks)
            return try describe(probe, path: path, options: options, picture: picture)
        } catch {
            return (unreadable(path: path, error: error), nil)
        }
    }

    /// What of the seam a reading that decoded without fault did not measure, said: no samples or pictures came
    /// from the clip's ends.
    static func unmeasured(_ facts: ClipFacts) -> String? {
        let seam = facts.seam
        var missing: [String] = []
        if facts.mainAudio != nil, seam?.audioJump == nil { missing.append("sound") }
        if facts.mainVideo != nil, seam?.videoDifference == nil { missing.append("picture") }
        guard !missing.isEmpty else { return nil }
        return """
            the seam's \(missing.joined(separator: " and ")) could not be measured: FFmpeg gave no \
            \(missing.count == 2 ? "frames" : missing == ["sound"] ? "samples" : "pictures") at the clip's ends; \
            the timing checks stand
            """
    }

    /// A probed file's report, as analyze gives it: its seam measured (with `options.seamChecks`), its findings and
    /// its loop range. Every command describes the file it wrote through this (fix, loop and stitch alike), so
    /// what it prints of an output is what `analyze OUTPUT` finds. `given`: the file's first and last pictures as
    /// its source's decoding gave them (SeamProbe: a loop's copied cut), or nil.
    static func describe(
        _ probe: Probe.Result, path: String, options: AnalysisOptions, picture: Bool = false,
        given: SourcePictures? = nil
    ) throws -> (report: FileReport, strip: [UInt8]?) {
        var (facts, shot, notes): (ClipFacts, SeamCapture?, [String]?) = (probe.facts, nil, nil)
        var pictures: SeamPictures?
        // A probe that kept no input (fix's, from the index alone) opens the file afresh for the seam.
        if options.seamChecks {
            let input = try probe.input ?? InputFile(path: path)
            // The seam check is auxiliary: a file it cannot decode is still read, with a note saying so.
            do {
                let measured = try SeamProbe.measure(input, facts: facts, capture: picture, given: given)
                (facts.seam, shot, pictures) = (measured.seam, measured.capture, measured.pictures)
                if let unmeasured = Self.unmeasured(facts) { notes = [unmeasured] }
            } catch {
                // A format FFmpeg only guessed from a few bytes, of which no frame decodes, is not media.
                if input.probeScore < 50 {
                    throw MediaError(
                        "open",
                        reason:
                            """
                            FFmpeg only guesses this is \(facts.container) (from a few of its bytes) and none of \
                            it decodes: it is not a video or audio file, or a damaged one
                            """)
                }
                notes = [
                    """
                    the seam checks were skipped: FFmpeg could not decode the clip's first and last frames \
                    (\(MediaError.describe(error))); the timing checks stand, and --no-seam skips this step
                    """
                ]
            }
        }
        let findings = Analyzer.findings(in: facts, options: options)
        let rules = Set(findings.compactMap(\.ruleID))
        let strip = try shot.map {
            try PNG.encode(
                SeamStrip.draw($0, click: rules.contains(.seamAudioClick), cut: rules.contains(.seamVisualJump)))
        }
        var report = FileReport(path: path, facts: facts, findings: findings)
        (report.loopRange, report.loopRangeReason) = LoopRanges.range(
            facts, timelines: probe.timelines, findings: findings)
        report.notes = notes
        if options.seamChecks, facts.seam != nil { try measureRange(&report, options: options, pictures: pictures) }
        return (report, strip)
    }

    /// A range that is not the whole clip wraps elsewhere: its own seam is measured there, and the report's range
    /// says what it cures and leaves. Where the clip's own reading (`pictures`) kept the range's first and last
    /// pictures (a range that trims the sound, or ends a few frames before the picture does), only its audio is
    /// read again.
    static func measureRange(_ report: inout FileReport, options: AnalysisOptions, pictures: SeamPictures?) throws {
        guard let facts = report.facts, let range = report.loopRange,
            !LoopRanges.isWhole(range, tracks: [facts.mainVideo, facts.mainAudio].compactMap { $0 }),
            let s = range.exactStart, let d = range.exactDuration
        else { return }
        let start = Rational(s.numerator, s.denominator)
        var spanFacts = facts
        spanFacts.seam = try? SeamProbe.measure(
            try InputFile(path: report.path), facts: facts, capture: false,
            span: (start, start + Rational(d.numerator, d.denominator)), seen: pictures
        ).seam
        guard spanFacts.seam != nil else { return }
        report.loopRange = LoopRanges.measured(
            range, clip: report.findings, span: Analyzer.findings(in: spanFacts, options: options))
    }

    public static func unreadable(path: String, error: Error) -> FileReport {
        FileReport.unreadable(path: path, reason: MediaError.describe(error))
    }
}
