import LoopAnalysis

/// One file through the whole analysis: probe (index only), seam measurement (a few decoded frames), rules.
/// A file that cannot be read becomes a report with the `unreadable` finding; it never throws, so a batch goes on.
public enum ClipAnalysis {
    public static func report(path: String, options: AnalysisOptions) -> FileReport {
        do {
            let probe = try Probe.probe(path)
            var facts = probe.facts
            if options.seamChecks {
                facts.seam = try SeamProbe.measure(probe.input, facts: facts)
            }
            return FileReport(path: path, facts: facts, findings: Analyzer.findings(in: facts, options: options))
        } catch {
            return unreadable(path: path, error: error)
        }
    }

    public static func unreadable(path: String, error: Error) -> FileReport {
        let reason = MediaError.describe(error)
        return FileReport(path: path, facts: nil, findings: [Finding(
            rule: Analyzer.unreadableID, severity: .error, message: reason,
            hint: "check that the file is complete and is a video or audio file")], error: reason)
    }
}
