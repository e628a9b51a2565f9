import ArgumentParser
import Foundation
import LoopAnalysis
import LoopMedia
import LoopRangeValues

enum Output {
    /// The report on stdout in the chosen format; one diagnostic line per finding on stderr.
    static func emit(_ report: Report, options: ReportOptions, streamed: Bool = false) throws {
        var report = report
        report.ffmpeg = report.ffmpeg ?? FFmpegLibraries.description
        diagnose(report, options: options)
        if !streamed { try render(report, format: options.format, failOn: options.failOn, to: Console.stdout) }
        try writeExtra(report, options: options)
    }

    /// One line per finding on stderr (and per failed output unless `failures` is false: stitch names its own).
    static func diagnose(_ report: Report, options: ReportOptions, failures: Bool = true) {
        // Where stdout and stderr meet (a terminal, a CI log, `2>&1 | tee`; a GitHub Actions job, whose runner
        // reads them through two pipes into one log) the text report already shows every finding: the diagnostics
        // would print each twice. `--format github` puts each finding in the log as an annotation line itself.
        let sameLog = Console.oneOutput || ProcessInfo.processInfo.environment["GITHUB_ACTIONS"] == "true"
        let oneLog = options.format == .github || (options.format == .text && sameLog)
        if !options.quiet && !oneLog { Console.stderr(Diagnostics.render(report, failures: failures)) }
    }

    /// Each --report FORMAT=PATH.
    static func writeExtra(_ report: Report, options: ReportOptions) throws {
        for extra in options.reports {
            var text = ""
            try render(report, format: extra.format, failOn: options.failOn) { text += $0 }
            // A folder that does not exist yet is made, as --html makes its own (out/junit.xml in a fresh CI job).
            let url = URL(fileURLWithPath: extra.path)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            } catch {
                throw ValidationError(
                    "cannot write the \(extra.format.rawValue) report to \(extra.path): \(error.localizedDescription)")
            }
        }
    }

    static func render(_ report: Report, format: OutputFormat, failOn: FailOn, to sink: (String) -> Void) throws {
        switch format {
        case .text: sink(TextFormat.render(report, color: Console.stdoutIsTTY && Console.colorAllowed))
        case .json: try JSONFormat.write(report, to: sink)
        case .jsonl: sink(JSONLines.render(report))
        case .junit: sink(JUnitFormat.render(report, failOn: failOn))
        case .github: sink(GitHubFormat.render(report))
        case .sarif: sink(SARIFFormat.render(report))
        case .gitlab: sink(CodeQualityFormat.render(report))
        case .ranges: sink(RangesFormat.render(report))
        }
    }
}

/// `path: warning: [rule-id] message`, the shape editors and CI log parsers understand.
enum Diagnostics {
    static func render(_ report: Report, failures: Bool = true) -> String {
        report.files.flatMap { file in
            ((failures ? file.fixFailure : nil).map { ["\(file.path): error: [\(report.failureRule)] \($0)\n"] }
                ?? [])
                + file.findings.map { "\(file.path): \($0.severity.rawValue): [\($0.rule)] \($0.message)\n" }
        }.joined()
    }
}

extension FileReport {
    /// fix: why this file could not be repaired.
    var fixFailure: String? { fix?.status == .failed ? (fix?.reason ?? "unknown reason") : nil }
}

enum JSONFormat {
    /// Sorted keys and no run-dependent values (no times, no absolute paths added), so output is byte-stable.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.userInfo[Refusal.wordsKey] = Refusal.words
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Written one value at a time: the encoder's intermediate tree and the finished text for 10,000 files
    /// doubled the peak memory of a large batch. The document is assembled here, key by key in sorted order,
    /// each value encoded on its own and indented (JSON strings escape their newlines, so every line break in
    /// an encoded value is layout), the files one by one: nothing depends on where the encoder puts things.
    static func write(_ report: Report, to sink: (String) -> Void) throws {
        let encoder = encoder()
        func indented(_ data: Data, by spaces: Int) -> String {
            let pad = String(repeating: " ", count: spaces)
            return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated().map { $0.offset == 0 || $0.element.isEmpty ? String($0.element) : pad + $0.element }
                .joined(separator: "\n")
        }
        func key(_ name: String) { sink("  \"\(name)\" : ") }
        sink("{\n")
        key("command")
        sink(indented(try encoder.encode(report.command), by: 2) + ",\n")
        if let ffmpeg = report.ffmpeg {
            key("ffmpeg")
            sink(indented(try encoder.encode(ffmpeg), by: 2) + ",\n")
        }
        key("files")
        if report.files.isEmpty {
            sink("[\n\n  ],\n")
        } else {
            sink("[\n")
            for (i, file) in report.files.enumerated() {
                sink("    " + indented(try encoder.encode(file), by: 4) + (i == report.files.count - 1 ? "\n" : ",\n"))
            }
            sink("  ],\n")
        }
        key("options")
        sink(indented(try encoder.encode(report.options), by: 2) + ",\n")
        key("schemaVersion")
        sink(indented(try encoder.encode(report.schemaVersion), by: 2) + ",\n")
        key("summary")
        sink(indented(try encoder.encode(report.summary), by: 2) + ",\n")
        key("tool")
        sink(indented(try encoder.encode(report.tool), by: 2) + (report.version == nil ? "\n" : ",\n"))
        if let version = report.version {
            key("version")
            sink(indented(try encoder.encode(version), by: 2) + "\n")
        }
        sink("}\n")
    }
}

enum GitHubFormat {
    /// Workflow commands: `::error file=…,title=…::message`. GitHub has no "info" level; it is `notice`.
    static func render(_ report: Report, failures: Bool = true) -> String {
        report.files.flatMap { file in
            ((failures ? file.fixFailure : nil).map {
                [
                    """
                    ::error \
                    file=\(property(file.path)),\
                    title=\(property("loopprep " + report.failureRule))::\(data($0))\n
                    """
                ]
            } ?? [])
                + file.findings.map { f in
                    let level =
                        switch f.severity {
                        case .error: "error"
                        case .warning: "warning"
                        case .info: "notice"
                        }
                    return
                        """
                        ::\(level) \
                        file=\(property(file.path)),title=\(property("loopprep " + f.rule))::\
                        \(data(f.messageWithHint))\n
                        """
                }
        }.joined()
    }

    static func data(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(
            of: "\n", with: "%0A")
    }
    static func property(_ s: String) -> String {
        data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}

enum JUnitFormat {
    /// One testcase per finding (dashboards collapse several failures in one testcase into one): failed at or
    /// above --fail-on, passed below it (the finding in its <system-out>); an <error> for an unreadable file, a
    /// <failure> for an output that could not be made; a file with no finding is one passing testcase.
    static func render(_ report: Report, failOn: FailOn) -> String {
        var failures = 0
        var errors = 0
        var tests = 0
        var cases = ""
        for file in report.files {
            let path = xml(file.path)
            func testcase(_ rule: String?, track: Int?, body: String) {
                tests += 1
                let what = rule.map { " [\($0)]" + (track.map { " track \($0)" } ?? "") } ?? ""
                let classname = "loopprep.\(report.command)" + (rule.map { ".\($0)" } ?? "")
                cases += "    <testcase classname=\"\(classname)\" name=\"\(path)\(xml(what))\" file=\"\(path)\""
                cases += body.isEmpty ? "/>\n" : ">\n\(body)    </testcase>\n"
            }
            if let reason = file.fixFailure {
                failures += 1
                let rule = report.failureRule
                testcase(
                    rule, track: nil,
                    body: "      <failure type=\"\(rule)\" message=\"\(xml(reason))\">\(xml(reason))</failure>\n")
            }
            for f in file.findings {
                let text = xml("[\(f.severity.rawValue)] \(f.message)" + (f.hint.isEmpty ? "" : "\nfix: \(f.hint)"))
                if f.ruleID == .unreadable {
                    errors += 1
                    testcase(
                        f.rule, track: nil,
                        body:
                            "      <error type=\"\(f.rule)\" message=\"\(xml(f.message))\">\(xml(f.message))</error>\n")
                } else if failOn.fails(f.severity) {
                    failures += 1
                    testcase(
                        f.rule, track: f.track,
                        body: "      <failure type=\"\(f.rule)\" message=\"\(xml(f.message))\">\(text)</failure>\n")
                } else {
                    testcase(f.rule, track: f.track, body: "      <system-out>\(text)</system-out>\n")
                }
            }
            if file.findings.isEmpty && file.fixFailure == nil { testcase(nil, track: nil, body: "") }
        }
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="loopprep" \(counts)>
              <testsuite name="loopprep \(report.command)" \(counts)>
            \(cases)  </testsuite>
            </testsuites>

            """
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t": out.unicodeScalars.append(c)
            default:
                // XML 1.0 cannot carry other control characters at all (a file name may hold them).
                if c.value < 0x20 || (0xFFFE...0xFFFF).contains(c.value) {
                    out += "?"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }
}

/// `--format ranges`: a line a file, its path and loop range (`null` with the reason where there is none), as the
/// LoopRange library's `ClipLoopRange` reads it.
enum RangesFormat {
    static func render(_ report: Report) -> String {
        let encoder = JSONLines.encoder()
        return report.files.map { file in
            let reason = file.loopRangeReason ?? file.error.map { "the file cannot be read: \($0)" }
            let line = ClipLoopRange(path: file.path, loopRange: file.loopRange, loopRangeReason: reason)
            return String(decoding: (try? encoder.encode(line)) ?? Data(), as: UTF8.self) + "\n"
        }.joined()
    }
}

extension Report {
    /// The rule a file that was not written is reported under: the command's own (a loop not written is not a
    /// failed fix).
    var failureRule: String {
        switch command {
        case "loop": RuleID.loopFailed.rawValue
        case "stitch": RuleID.stitchFailed.rawValue
        default: RuleID.fixFailed.rawValue
        }
    }
}
