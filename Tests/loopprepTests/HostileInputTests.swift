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
        // Fixed noise (SplitMix64 from one seed): system randomness now and then made bytes FFmpeg's probe takes
        // for raw H.263, which is then a file, not unreadable.
        var state: UInt64 = 0x5EED_1234
        let noise = (0..<50_000).map { _ -> UInt8 in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
        let random = try Self.write(noise, "random.mp4", in: dir)
        let ftypOnly = try Self.write(
            Array("\u{0}\u{0}\u{0}\u{14}ftypisom\u{0}\u{0}\u{2}\u{0}isom".utf8), "ftyp-only.mp4", in: dir)
        // A moov that claims a 4 GB box.
        let huge = try Self.write(
            [0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isom".utf8) + [0xff, 0xff, 0xff, 0xf0]
                + Array("moov".utf8), "huge-box.mp4", in: dir)
        let run = try Run.loopprep(["analyze", random, ftypOnly, huge, Run.fixture("clean.mp4")])
        #expect(run.status == 2)
        for name in ["random.mp4", "ftyp-only.mp4", "huge-box.mp4"] {
            #expect(
                run.stderr.split(separator: "\n").contains { $0.contains(name) && $0.contains("[unreadable]") },
                "\(name): \(run.stderr)")
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
        #expect(run.status == 2 || getuid() == 0)  // root reads a file with no permissions
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
        let tiny = dir.appendingPathComponent("tiny.mp4").path
        let many = dir.appendingPathComponent("many.mkv").path
        _ = try Run.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "smptebars=size=160x90:rate=30:duration=0.01",
            "-c:v", "libx264", tiny,
        ])
        var args = ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.2"]
        for _ in 0..<120 { args += ["-map", "0:a"] }
        _ = try Run.tool(args + ["-c:a", "pcm_s16le", many])
        let run = try Run.loopprep(["analyze", "--format", "json", tiny, many])
        #expect(run.status <= 2)
        #expect(!run.stderr.contains("Fatal error"))
        let files =
            ((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["files"]
                as? [[String: Any]]) ?? []
        #expect(files.count == 2)
        let tinyFindings =
            (files.first { ($0["path"] as? String) == tiny }?["findings"] as? [[String: Any]])?.compactMap {
                $0["rule"] as? String
            } ?? []
        #expect(tinyFindings.contains("too-short-to-loop"))
        let manyTracks =
            ((files.first { ($0["path"] as? String) == many }?["facts"] as? [String: Any])?["tracks"] as? [Any])?.count
        #expect(manyTracks == 120)
        // fix and stitch take them too, without crashing.
        let fix = try Run.loopprep(["fix", tiny, many, "-o", dir.appendingPathComponent("out").path])
        #expect(fix.status <= 2 && !fix.stderr.contains("Fatal error"))
    }

    /// A copy of `source` with big-endian fields overwritten: (box type, which occurrence, byte offset from the
    /// box start, value). Offsets follow ISO/IEC 14496-12 for version-0 boxes.
    static func patched(
        _ source: String, _ edits: [(box: String, occurrence: Int, offset: Int, value: UInt32)], name: String,
        in dir: URL
    ) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.fixture(source))))
        for edit in edits {
            let type = Array(edit.box.utf8)
            let starts = (4..<(bytes.count - 4)).filter { Array(bytes[$0..<$0 + 4]) == type }.map { $0 - 4 }
            let at = starts[edit.occurrence] + edit.offset
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: edit.value >> (24 - 8 * UInt32(i))) }
        }
        return try write(bytes, name, in: dir)
    }

    /// Index values no encoder writes: zero, huge, negative and overflowing time bases, timestamps and durations,
    /// 0 fps, tracks without packets, an index pointing past the file. Each file is read or refused with one line
    /// naming the cause; fix writes a verified file or nothing; the batch goes on.
    /// A media track whose sample table lacks stsz, stsc or stco (each renamed `free` in clean.mp4's video track:
    /// FFmpeg says "missing mandatory atoms, broken header" and drops the track) is damaged: analyze and fix say so
    /// in loopprep's words (exit 2, nothing written), never read it as empty, nor write the audio alone, nor
    /// answer with a bare "Invalid argument".
    @Test(arguments: ["stsz", "stsc", "stco"])
    func aSampleTableWithoutItsPlacesIsDamaged(table: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.fixture("clean.mp4"))))
        let type = Array(table.utf8)
        let at = try #require((0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == type })
        bytes.replaceSubrange(at..<at + 4, with: Array("free".utf8))
        let path = dir.appendingPathComponent("broken-\(table).mov").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let names = ["stsz": "stsz (the samples' sizes)", "stsc": "stsc (the samples' chunks)"]
        let what = names[table] ?? "stco (the chunks' places)"
        for command in [["analyze", path, "--no-seam"], ["fix", path, "-o", dir.appendingPathComponent("o").path]] {
            let run = try Run.loopprep(command)
            #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
            #expect(
                run.stdout.contains(
                    "the video track (ID 1) counts 30 samples but its index has no \(what), so no reader can find "
                        + "them"),
                "\(run.stdout)")
            #expect(!run.stdout.contains("Invalid argument"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o/broken-\(table).mov").path))
    }

    @Test func absurdIndexValues() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, [(box: String, occurrence: Int, offset: Int, value: UInt32)])] = [
            ("mdhd-timescale-0", [("mdhd", 0, 20, 0)]),
            ("mdhd-timescale-max", [("mdhd", 0, 20, .max), ("mdhd", 1, 20, .max)]),
            ("mdhd-timescale-1", [("mdhd", 0, 20, 1)]),
            ("mvhd-timescale-0", [("mvhd", 0, 20, 0)]),
            ("stts-delta-huge", [("stts", 0, 20, .max), ("stts", 1, 20, .max)]),
            ("stts-delta-0-fps", [("stts", 0, 20, 0)]),
            ("stts-sample-count-huge", [("stts", 0, 16, 0x7fff_ffff)]),
            ("stts-entry-count-huge", [("stts", 0, 12, .max)]),
            ("elst-media-time-max", [("elst", 0, 20, 0x7fff_ffff), ("elst", 1, 20, 0x7fff_ffff)]),
            ("elst-media-time-negative", [("elst", 1, 20, UInt32(bitPattern: -5))]),
            ("elst-duration-max", [("elst", 0, 16, .max), ("elst", 1, 16, .max)]),
            ("elst-rate-0", [("elst", 0, 24, 0)]),
            ("tkhd-mvhd-duration-max", [("tkhd", 0, 28, .max), ("mvhd", 0, 24, .max)]),
            ("stsz-count-huge", [("stsz", 0, 16, .max)]),
            ("stco-beyond-file", [("stco", 0, 16, 0x7fff_fff0)]),
            ("ctts-offset-min", [("ctts", 0, 20, 0x8000_0000)]),
            ("ctts-offset-max", [("ctts", 0, 20, 0x7fff_ffff)]),
            ("audio-without-packets", [("stsz", 1, 16, 0), ("stts", 1, 12, 0)]),
            ("stsc-samples-per-chunk-huge", [("stsc", 0, 20, .max)]),
        ]
        var paths = try cases.map { try Self.patched("clean.mp4", $0.1, name: $0.0 + ".mp4", in: dir) }
        // Matroska's TimestampScale (ns per tick, 0x2AD7B1, 3-byte value) at 1 ns and at 16.7 ms.
        let webm = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.fixture("vp9-opus.webm"))))
        let scale = try #require(
            (0..<(webm.count - 3)).first { webm[$0] == 0x2a && webm[$0 + 1] == 0xd7 && webm[$0 + 2] == 0xb1 })
        for (name, value) in [
            ("webm-timestamp-scale-1ns", [0, 0, 1] as [UInt8]), ("webm-timestamp-scale-max", [0xff, 0xff, 0xff]),
        ] {
            var bytes = webm
            bytes.replaceSubrange(scale + 4..<scale + 7, with: value)
            paths.append(try Self.write(bytes, name + ".webm", in: dir))
        }

        let run = try Run.loopprep(["analyze", "--format", "json"] + paths + [Run.fixture("clean.mp4")])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("Backtrace"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.count == paths.count + 1)
        func file(_ name: String) -> [String: Any]? {
            files.first { ($0["path"] as? String)?.hasSuffix("/" + name) == true }
        }
        func rules(_ name: String) -> [String] {
            (file(name)?["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } ?? []
        }
        func error(_ name: String) -> String { file(name)?["error"] as? String ?? "" }
        #expect(error("mdhd-timescale-0.mp4").contains("zero timescale"))
        #expect(error("mvhd-timescale-0.mp4").contains("zero timescale"))
        #expect(error("elst-media-time-negative.mp4").contains("invalid edit list: media time -5"))
        #expect(error("stco-beyond-file.mp4").contains("truncated"))
        // A run claiming 2^31 samples is cut to the sizes stsz holds (as FFmpeg does); a table claiming 2^32 entries
        // in a 24-byte box is refused.
        #expect(file("stts-sample-count-huge.mp4")?["error"] == nil)
        #expect(
            error("stts-entry-count-huge.mp4").contains(
                "the stts table of track 1 claims 4294967295 entries but holds 1"))
        #expect(rules("audio-without-packets.mp4") == ["empty-track"])
        // 0 fps: every frame at one instant; the video presents almost nothing against a second of audio.
        #expect(rules("stts-delta-0-fps.mp4").contains("audio-longer-than-video"))
        #expect(file("clean.mp4")?["error"] == nil && rules("clean.mp4").isEmpty)
        for f in files { #expect(!((f["error"] as? String) ?? "").contains("\n")) }

        // fix: a whole, verified output or none, no temporaries; inputs untouched.
        let before = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let out = dir.appendingPathComponent("out")
        let fix = try Run.loopprep(["fix", "-o", out.path] + paths)
        #expect(fix.status == 2)
        #expect(!fix.stderr.contains("Fatal error"))
        let written = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        #expect(!written.contains { $0.contains(".loopprep-") })
        #expect(written.contains("audio-without-packets.mp4"))
        for name in written {
            let check = try Run.loopprep([
                "analyze", "--no-seam", "--format", "json", out.appendingPathComponent(name).path,
            ])
            #expect(check.status == 0, "\(name): \(check.stderr)")
        }
        #expect(try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
    }

    /// Every input the fuzzer (scripts/fuzz.sh) found a crash, hang or leak with, kept in fuzz/regressions:
    /// each now gets an answer through analyze and fix.
    @Test func fuzzRegressions() throws {
        let folder = Run.repository.appendingPathComponent("fuzz/regressions")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        #expect(!names.isEmpty)
        // (No clock decides here: a hang shows as a run that never answers, and CI ends the job.)
        let run = try Run.loopprep(["analyze", "--format", "json", folder.path])
        #expect(run.status <= 2 && !run.stderr.contains("Fatal error"), "\(run.stderr)")
        let files =
            ((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["files"]
                as? [[String: Any]]) ?? []
        #expect(files.count == names.count)
        // Tables claiming 10^8 entries and more in a few hundred bytes are refused by our reader, before FFmpeg's
        // demuxer
        // allocates a gigabyte for them.
        for table in ["stco", "ctts", "stss"] {
            let file = files.first { ($0["path"] as? String).map { $0.contains("/\(table)-claims-") } == true }
            #expect((file?["error"] as? String)?.contains("the \(table) table of track 1 claims") == true)
        }
        let out = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let fix = try Run.loopprep(["fix", folder.path, "-o", out.path])
        #expect(fix.status <= 2 && !fix.stderr.contains("Fatal error"))
    }
}
