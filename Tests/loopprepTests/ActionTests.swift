import Foundation
import Testing

/// The GitHub Action (action.yml) as far as it runs without GitHub: its Analyze step's script, run by bash with
/// the inputs as the runner passes them (environment variables), on paths with spaces and with shell syntax in
/// them; and no input pasted into a script.
@Suite struct ActionTests {
    static let action =
        (try? String(contentsOf: Run.repository.appendingPathComponent("action.yml"), encoding: .utf8)) ?? ""

    /// The `run: |` block of the step named `name`, dedented.
    static func script(_ name: String) -> String? {
        let lines = action.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let step = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "- name: \(name)" }),
            let run = lines[step...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "run: |" })
        else { return nil }
        let indent = (lines[run].prefix { $0 == " " }.count) + 2
        var body: [String] = []
        for line in lines[(run + 1)...] {
            if !line.trimmingCharacters(in: .whitespaces).isEmpty && line.prefix(while: { $0 == " " }).count < indent {
                break
            }
            body.append(String(line.dropFirst(min(indent, line.count))))
        }
        return body.joined(separator: "\n")
    }

    @Test func noInputIsPastedIntoAScript() {
        var inRun = false
        for line in Self.action.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("run:") {
                inRun = true
            } else if trimmed.hasPrefix("- name:") || trimmed.hasPrefix("env:") {
                inRun = false
            }
            if inRun { #expect(!line.contains("${{ inputs."), "\(line)") }
        }
    }

    @Test(arguments: [false, true])
    func theAnalyzeStepTakesPathsAsGiven(oneWordPerLine: Bool) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spaced = dir.appendingPathComponent("a clip.mp4").path
        // Shell syntax in a name (no space in it, so it also travels in the space-separated form).
        let hostile = dir.appendingPathComponent("$(touch${IFS}pwned).mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: spaced)
        try FileManager.default.copyItem(atPath: Run.fixture("rotated.mp4"), toPath: hostile)
        let script = try #require(Self.script("Analyze"))
        // Space-separated input cannot hold a name with a space: that case uses a line per path.
        let paths =
            oneWordPerLine
            ? [spaced, hostile, Run.fixture("video-longer.mp4")].joined(separator: "\n")
            : [Run.fixture("clean.mp4"), hostile, Run.fixture("video-longer.mp4")].joined(separator: " ")
        let environment = [
            "PATH": Run.binary.deletingLastPathComponent().path + ":/usr/bin:/bin",
            "LOOPPREP_PATHS": paths, "LOOPPREP_FORMAT": "github", "LOOPPREP_FAIL_ON": "error",
            "LOOPPREP_TARGET": "apple", "LOOPPREP_JUNIT": "out.xml", "LOOPPREP_SARIF": "out.sarif",
        ]
        let run = try Run.launch(
            URL(fileURLWithPath: "/bin/bash"), ["-e", "-c", script], environment: environment, in: dir)
        // video-longer.mp4 has an error: the step fails, as it should, after writing both reports.
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("::error file=\(Run.fixture("video-longer.mp4"))"), "\(run.stdout)")
        #expect(run.stdout.contains("rotation"), "\(run.stdout)")
        #expect(!run.stderr.contains("no such file"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.xml").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.sarif").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("pwned").path))
    }

    /// The target input is passed only when set: empty, the project's `.loopprep.json` decides;
    /// set, it wins over the file, as `--target` does on the command line.
    @Test(arguments: [("", "web"), ("apple", "apple")])
    func theTargetIsPassedOnlyWhenSet(input: String, expected: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{ "target": "web" }"#.write(
            to: dir.appendingPathComponent(".loopprep.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: Run.fixture("clean.mp4"), toPath: dir.appendingPathComponent("clip.mp4").path)
        let script = try #require(Self.script("Analyze"))
        let environment = [
            "PATH": Run.binary.deletingLastPathComponent().path + ":/usr/bin:/bin",
            "LOOPPREP_PATHS": "clip.mp4", "LOOPPREP_FORMAT": "json", "LOOPPREP_FAIL_ON": "never",
            "LOOPPREP_TARGET": input, "LOOPPREP_JUNIT": "", "LOOPPREP_SARIF": "",
        ]
        let run = try Run.launch(
            URL(fileURLWithPath: "/bin/bash"), ["-e", "-c", script], environment: environment, in: dir)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let options = object?["options"] as? [String: Any]
        #expect(options?["target"] as? String == expected, "\(run.stdout)")
    }
}
