import Foundation
import TestSupport
import Testing

@testable import loopprep

/// Never a crash, never a temporary left: every fixture through every fix option, loop, and stitch with itself.
/// Whatever a file is, the run ends by the exit table (0, 1 or 2: never a signal's 128 + N) and the output folder
/// holds outputs only (no `.NAME.loopprep-PID-XXXX.tmp`).
@Suite struct SweepTests {
    static let fixOptions: [[String]] = [
        ["--reencode-audio"], ["--seam-fade", "10ms"], ["--loops", "2"], ["--unroll", "3"], ["--keep", "video"],
        ["--drop-audio"], ["--target", "web"], ["--web-player"], ["--to", "mp4"],
    ]

    static func media() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Repository.fixtures.path).filter {
            Inputs.mediaExtensions.contains(($0 as NSString).pathExtension.lowercased())
        }.sorted()
    }

    /// Files in `dir` (recursively) a run left behind that are not outputs.
    static func leftovers(_ dir: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: dir.path)
        var out: [String] = []
        while let name = walker?.nextObject() as? String {
            let file = (name as NSString).lastPathComponent
            if file.contains(".loopprep-") || file.hasSuffix(".tmp") { out.append(name) }
        }
        return out
    }

    @Test(arguments: fixOptions)
    func everyFixtureThroughFix(option: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // (--to mp4 writes loop-period45.webm as loop-period45.mp4, which the MP4 of that name would be too: one of
        // each name, so the run is not refused before any work.)
        var seen = Set<String>()
        let files = try Self.media().filter { seen.insert(($0 as NSString).deletingPathExtension).inserted }
        let run = try Run.loopprep(
            ["fix"] + files.map(Run.fixture) + ["-o", dir.path, "--no-seam", "--jobs", "2"] + option)
        #expect([0, 1, 2].contains(run.status), "\(option): exit \(run.status)\n\(run.stderr.suffix(2000))")
        #expect(Self.leftovers(dir).isEmpty, "\(option): \(Self.leftovers(dir))")
        #expect(run.stdout.contains("\(files.count) files: "), "\(run.stdout.suffix(300))")
    }

    @Test func everyFixtureThroughLoop() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["loop", Repository.fixtures.path, "-o", dir.path, "--jobs", "2"])
        #expect([0, 1, 2].contains(run.status), "exit \(run.status)\n\(run.stderr.suffix(2000))")
        #expect(Self.leftovers(dir).isEmpty, "\(Self.leftovers(dir))")
    }

    /// Each fixture stitched with itself into a looping reel, crossfaded and normalized.
    @Test(arguments: try media())
    func everyFixtureStitchedWithItself(name: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture(name)
        let run = try Run.loopprep([
            "stitch", clip, clip, "-o", dir.appendingPathComponent("reel.mp4").path, "--loop", "--normalize",
            "--transition", "crossfade", "--duration", "0.2", "--no-seam",
        ])
        #expect([0, 1, 2].contains(run.status), "\(name): exit \(run.status)\n\(run.stderr.suffix(2000))")
        #expect(Self.leftovers(dir).isEmpty, "\(name): \(Self.leftovers(dir))")
    }
}

/// A Matroska clip cut by `ffmpeg -ss 1.3 -c copy` (fixtures/make-robust.sh: its last GOP leans on a frame past the
/// cut, which fix encodes again) is planned by stitch as fix plans it: the reel presents each clip's frames as fix
/// presents them, less the crossfade's, with its audio to the same end.
@Suite struct MatroskaCutStitchTests {
    struct Fixed: Decodable {
        struct File: Decodable {
            struct Plan: Decodable {
                struct Track: Decodable { var presentedFrames: Int? }
                var tracks: [Track]
            }
            var plan: Plan
        }
        var files: [File]
    }

    @Test func theCutClipIsStitchedAsFixPlansIt() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = ["mkv-pair-a.mkv", "mkv-pair-b-ss-cut.mkv"].map(Run.fixture)
        let fixed = try Run.loopprep(["fix"] + clips + ["-o", dir.path, "--dry-run", "--format", "json", "--no-seam"])
        let plans = try JSONDecoder().decode(Fixed.self, from: Data(fixed.stdout.utf8)).files
        let frames = plans.map { $0.plan.tracks.compactMap(\.presentedFrames).first ?? 0 }
        // How the files were made: a is 3 s at 25 fps over 3.1 s of audio (75 frames). b keeps the source's 143
        // frames from its 0.023 s start (5.7 s at 25 fps, testsrc2's last frame whole) over audio that ends at
        // 5.735 s: the 143rd frame would end at 5.743 s, after it, so 142 frames end at 5.703 s.
        #expect(frames == [75, 142])
        let out = dir.appendingPathComponent("reel.mp4").path
        let run = try Run.loopprep(["stitch"] + clips + ["-o", out, "--transition", "crossfade", "--no-seam"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // The crossfade's default half second at 25 fps: 13 frames (12.5 rounded).
        let counted = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
            "stream=nb_read_frames", "-of", "csv=p=0", out,
        ])
        #expect(Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == frames.reduce(0, +) - 13)
        let durations = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
        ]).stdout.split(separator: "\n").prefix(2).map(String.init)
        #expect(durations.count == 2 && durations[0] == durations[1], "\(durations)")
    }
}
