import Foundation
import TestSupport
import Testing

/// FFmpeg is loaded when something first calls it (Sources/CFFmpegLoader), not at start-up: an MP4 whose index
/// says everything is analysed without it. The dynamic loader's own log (LD_DEBUG=files, glibc) is the
/// witness: it names every shared object the process opens.
@Suite(.enabled(if: Platform.isLinux, "a Mac links FFmpeg; glibc's loader log is Linux's")) struct StartupTests {
    static func loaded(_ run: Run) -> Bool { run.stderr.contains("file=libavformat.so") }

    @Test func analyzingAnMP4FromItsIndexLoadsNoFFmpeg() throws {
        let clip = Repository.fixture("clean.mp4")
        let run = try Run.loopprep(
            ["analyze", "--no-seam", "--format", "json", clip], environment: ["LD_DEBUG": "files"])
        #expect(run.status == 0, "\(run.stderr.suffix(400))")
        #expect(!Self.loaded(run), "libavformat was loaded")
        // The report still names the FFmpeg it was built for (the sonames it would load).
        #expect(run.stdout.contains("\"ffmpeg\" : \"libavformat "), "\(run.stdout.prefix(300))")
        #expect(run.stdout.contains("\"codec\" : \"h264\""))
        #expect(!Self.loaded(try Run.loopprep(["--help"], environment: ["LD_DEBUG": "files"])))
    }

    /// What the index cannot say loads FFmpeg when it is needed, in the same run: a WebM, the seam check's
    /// decoding.
    @Test(arguments: [["--no-seam", "vp9-opus.webm"], ["clean.mp4"]])
    func whatNeedsFFmpegLoadsIt(arguments: [String]) throws {
        let clip = Repository.fixture(arguments.last ?? "")
        let run = try Run.loopprep(
            ["analyze", "--format", "json"] + arguments.dropLast() + [clip], environment: ["LD_DEBUG": "files"])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr.suffix(400))")
        #expect(Self.loaded(run))
        #expect(!run.stdout.contains("\"rule\" : \"unreadable\""), "\(run.stdout.prefix(600))")
    }

    /// Without FFmpeg's libraries (hidden in a private mount namespace: /dev/null bound over libavformat), a run
    /// that needs them ends in one sentence naming the library and the packages, exit 127; an MP4 its index
    /// describes is still analysed. Needs root and unshare(1), as on the CI machine; where a mount namespace
    /// cannot be made (a chroot, no root) the test is reported as skipped.
    static let canUnshare = (try? Run.tool(["unshare", "-m", "true"]).status) == 0

    @Test(.enabled(if: canUnshare, "needs root and unshare(1) to hide libavformat in a mount namespace"))
    func withoutFFmpegOneSentenceAndTheIndexStillServes() throws {
        func hidden(_ arguments: [String]) throws -> Run {
            let quoted = ([Run.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let script =
                "for f in /usr/lib/*/libavformat.so.*.*.*; do mount --bind /dev/null \"$f\"; done; exec \(quoted)"
            return try Run.tool(["unshare", "-m", "sh", "-c", script])
        }
        let webm = try hidden(["analyze", "--no-seam", Repository.fixture("vp9-opus.webm")])
        #expect(webm.status == 127, "\(webm.stderr)")
        let lines = webm.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(webm.stderr)")
        #expect(webm.stderr.hasPrefix("loopprep: cannot load FFmpeg: libavformat.so."), "\(webm.stderr)")
        #expect(webm.stderr.contains("apt install libavformat"), "\(webm.stderr)")
        let mp4 = try hidden(["analyze", "--no-seam", Repository.fixture("clean.mp4")])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        #expect(mp4.stdout.contains("clean.mp4  OK"), "\(mp4.stdout)")
    }
}
