import Foundation
import Testing

/// Bad input of every kind: one clear line naming the file and the cause, the documented exit code, no crash,
/// and the rest of the batch still analyzed.
@Suite struct HostileInputTests {
    static func write(_ bytes: [UInt8], _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Truncations of a good clip (moov first, and moov last) at several points.
    @Test func truncatedAnywhere() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var paths: [String] = []
        for source in ["clean.mp4", "moov-at-end.mp4", "vp9-opus.webm", "prores-pcm.mov"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.fixture(source))))
            for fraction in [1, 5, 20, 50, 80, 95, 99] {
                let n = bytes.count * fraction / 100
                paths.append(try Self.write(Array(bytes[0..<n]), "\(fraction)-\(source)", in: dir))
            }
        }
        let run = try Run.loopprep(["analyze", "--format", "json"] + paths + [Run.fixture("clean.mp4")])
        #expect(run.status == 2 || run.status == 1, "status \(run.status): \(run.stderr)")
        #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("Backtrace"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.count == paths.count + 1)
        // Every unreadable one says why, on one line.
        for file in files where file["error"] != nil {
            let error = try #require(file["error"] as? String)
            #expect(!error.isEmpty && !error.contains("\n"))
        }
        #expect(files.contains { ($0["path"] as? String) == Run.fixture("clean.mp4") && $0["error"] == nil })
    }

    @Test func randomBytesAndTextAndEmpty() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var generator = SystemRandomNumberGenerator()
        let random = try Self.write((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }, "random.mp4", in: dir)
        let ftypOnly = try Self.write(Array("\u{0}\u{0}\u{0}\u{14}ftypisom\u{0}\u{0}\u{2}\u{0}isom".utf8), "ftyp-only.mp4", in: dir)
        // A moov that claims a 4 GB box.
        let huge = try Self.write([0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isom".utf8) + [0xff, 0xff, 0xff, 0xf0] + Array("moov".utf8), "huge-box.mp4", in: dir)
        let run = try Run.loopprep(["analyze", random, ftypOnly, huge, Run.fixture("clean.mp4")])
        #expect(run.status == 2)
        for name in ["random.mp4", "ftyp-only.mp4", "huge-box.mp4"] {
            #expect(run.stderr.split(separator: "\n").contains { $0.contains(name) && $0.contains("[unreadable]") }, "\(name): \(run.stderr)")
        }
        #expect(run.stdout.contains("clean.mp4  OK"))
    }

    @Test func oddPathsPermissionsAndLinks() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spaced = dir.appendingPathComponent("a clip with spaces é ü 日本.mp4").path
        let newline = dir.appendingPathComponent("line\nbreak.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: spaced)
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: newline)
        let locked = dir.appendingPathComponent("locked.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: locked)
        chmod(locked, 0)
        defer { chmod(locked, 0o644) }
        // A symlink loop in a folder must not hang the walk.
        let loopDir = dir.appendingPathComponent("loop")
        try FileManager.default.createDirectory(at: loopDir, withIntermediateDirectories: true)
        symlink(loopDir.path, loopDir.appendingPathComponent("again").path)
        symlink(dir.appendingPathComponent("nowhere.mp4").path, loopDir.appendingPathComponent("dangling.mp4").path)
        let run = try Run.loopprep(["analyze", "--format", "json", spaced, newline, locked, loopDir.path])
        #expect(run.status == 2 || getuid() == 0)   // root reads a file with no permissions
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.contains { ($0["path"] as? String) == spaced && $0["error"] == nil })
        #expect(files.contains { ($0["path"] as? String) == newline && $0["error"] == nil })
        // GitHub annotations and JUnit stay one line per finding even with a newline in a path.
        let github = try Run.loopprep(["analyze", "--format", "github", newline, Run.fixture("audio-longer.mp4")])
        #expect(github.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("::") })
    }

    @Test func tinyClipNoPacketsAndManyTracks() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tiny = dir.appendingPathComponent("tiny.mp4").path, many = dir.appendingPathComponent("many.mkv").path
        _ = try Run.tool(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "smptebars=size=160x90:rate=30:duration=0.01",
                          "-c:v", "libx264", tiny])
        var args = ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.2"]
        for _ in 0..<120 { args += ["-map", "0:a"] }
        _ = try Run.tool(args + ["-c:a", "pcm_s16le", many])
        let run = try Run.loopprep(["analyze", "--format", "json", tiny, many])
        #expect(run.status <= 2)
        #expect(!run.stderr.contains("Fatal error"))
        let files = ((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["files"] as? [[String: Any]]) ?? []
        #expect(files.count == 2)
        let tinyFindings = (files.first { ($0["path"] as? String) == tiny }?["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } ?? []
        #expect(tinyFindings.contains("too-short-to-loop"))
        let manyTracks = ((files.first { ($0["path"] as? String) == many }?["facts"] as? [String: Any])?["tracks"] as? [Any])?.count
        #expect(manyTracks == 120)
        // fix and stitch take them too, without crashing.
        let fix = try Run.loopprep(["fix", tiny, many, "-o", dir.appendingPathComponent("out").path])
        #expect(fix.status <= 2 && !fix.stderr.contains("Fatal error"))
    }
}
