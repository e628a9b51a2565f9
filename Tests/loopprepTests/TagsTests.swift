import Foundation
import TestSupport
import Testing

/// A file's own tags through fix --to mp4 or mov (fixtures/make-metadata.sh, 13): a screen recorder's FLV
/// (onMetaData's creator and creationdate beside a title) and a VirtualDub AVI (INFO's ISFT, read as software, beside
/// a title and comment). What MP4 or MOV has a box for is written (read back by ffprobe, value for value); the rest
/// is named in the plan, before writing, as left out.
@Suite struct TagsTests {
    static func tags(_ path: String) throws -> [String: String] {
        let lines = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", path,
        ])
        .stdout.split(separator: "\n")
        return Dictionary(
            lines.compactMap { line -> (String, String)? in
                guard line.hasPrefix("TAG:"), let eq = line.firstIndex(of: "=") else { return nil }
                return (
                    String(line[line.index(line.startIndex, offsetBy: 4)..<eq]), String(line[line.index(after: eq)...])
                )
            }, uniquingKeysWith: { a, _ in a })
    }

    @Test(arguments: [
        ("tags-creator.flv", "mp4", ["title"], "the tags creator, creationdate (MP4 has no place for them)"),
        ("tags-creator.flv", "mov", ["title"], "the tags creator, creationdate (MOV has no place for them)"),
        ("tags-info.avi", "mp4", ["title", "comment"], "the tag software (MP4 has no place for it)"),
    ])
    func keptOrNamed(_ name: String, to target: String, kept: [String], named: String) throws {
        let input = Run.fixture(name)
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dry = try Run.loopprep(["fix", input, "--to", target, "--dry-run"]).stdout
        #expect(dry.contains("leaves out \(named)"), "\(dry)")
        let out = dir.appendingPathComponent("out.\(target)").path
        let run = try Run.loopprep(["fix", input, "--to", target, "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("leaves out \(named)"))
        let before = try Self.tags(input)
        let after = try Self.tags(out)
        for key in kept {
            #expect(before[key] != nil && after[key] == before[key], "\(key): \(after)")
        }
    }
}
