import Foundation
import Testing

/// Every command's refusal says its cause in the report (`outcome.cause`), from one closed set a pipeline can act on,
/// beside the sentence (`outcome.reason`): each cause made here the way a user meets it.
@Suite struct OutcomeCauseTests {
    /// The outcomes of a report's files (fix, loop, apply), or a stitch's one.
    static func outcomes(_ stdout: String) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        if let outcome = document["outcome"] as? [String: Any] { return [outcome] }
        let files = try #require(document["files"] as? [[String: Any]])
        return files.compactMap { $0["outcome"] as? [String: Any] }
    }

    @Test func eachRefusalSaysItsCause() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("tone-late.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("tone-late.mp4"), toPath: clip)
        let out = dir.appendingPathComponent("out.mp4").path
        // An output of other bytes in the way (no --force).
        try Data("not this".utf8).write(to: URL(fileURLWithPath: out))
        let exists = try Run.loopprep(["fix", clip, "-o", out, "--format", "json"])
        #expect(exists.status == 1)
        var outcome = try #require(try Self.outcomes(exists.stdout).first)
        #expect(outcome["status"] as? String == "refused" && outcome["cause"] as? String == "outputExists")
        #expect((outcome["reason"] as? String)?.contains("--force") == true)
        try FileManager.default.removeItem(atPath: out)
        // A plan carried out after its input changed.
        let dry = try Run.loopprep(["fix", clip, "-o", out, "--dry-run", "--format", "json"])
        #expect(try Self.outcomes(dry.stdout).first?["cause"] == nil)
        let plan = dir.appendingPathComponent("plan.json")
        try Data(dry.stdout.utf8).write(to: plan)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: clip)
        let changed = try Run.loopprep(["apply", plan.path, "--format", "json"])
        #expect(changed.status == 1)
        outcome = try #require(try Self.outcomes(changed.stdout).first)
        #expect(outcome["cause"] as? String == "inputChanged", "\(changed.stdout)")
        // No loop of the lengths asked fits in a 2 s clip.
        let loop = try Run.loopprep(["loop", clip, "--min", "100", "--max", "200", "-o", out, "--format", "json"])
        #expect(loop.status == 1)
        outcome = try #require(try Self.outcomes(loop.stdout).first)
        #expect(outcome["status"] as? String == "refused" && outcome["cause"] as? String == "noLoop")
        // Clips of other colours joined by stream copy: the plan refuses, in one sentence with its details.
        let reel = dir.appendingPathComponent("reel.mp4").path
        let stitch = try Run.loopprep([
            "stitch", Run.fixture("colour-709.mov"), Run.fixture("colour-hlg.mov"), "-o", reel, "--format", "json",
        ])
        #expect(stitch.status == 1)
        outcome = try #require(try Self.outcomes(stitch.stdout).first)
        #expect(outcome["cause"] as? String == "plan" && outcome["output"] as? String == reel)
        let reason = try #require(outcome["reason"] as? String)
        #expect(reason.hasPrefix("the clips differ") && reason.contains("--normalize re-encodes them): "))
        #expect(reason.contains("colour-hlg.mov: colour bt2020"), "\(reason)")
        // An audio file stitched with itself: read whole, but stitch joins video clips: refused by the plan (exit
        // 1), the clip named once.
        let audio = try Run.loopprep([
            "stitch", Run.fixture("alac.m4a"), Run.fixture("alac.m4a"), "-o", reel, "--format", "json",
        ])
        #expect(audio.status == 1)
        outcome = try #require(try Self.outcomes(audio.stdout).first)
        #expect(outcome["cause"] as? String == "plan", "\(audio.stdout)")
        #expect(
            outcome["reason"] as? String
                == "\(Run.fixture("alac.m4a")): it has no video track, and stitch joins video clips")
        // loop of the same audio file: read, but it has no picture to search: refused (exit 1) with the remedy, not
        // an unreadable file (exit 2).
        let noPicture = try Run.loopprep(["loop", Run.fixture("alac.m4a"), "-o", out, "--format", "json"])
        #expect(noPicture.status == 1, "\(noPicture.stderr)")
        outcome = try #require(try Self.outcomes(noPicture.stdout).first)
        #expect(outcome["status"] as? String == "refused" && outcome["cause"] as? String == "plan")
        #expect((outcome["reason"] as? String)?.hasPrefix("it has no video track: loop finds where a picture") == true)
        // A file that is not there: unreadable (exit 2), no output.
        let missing = try Run.loopprep(["fix", dir.appendingPathComponent("gone.mp4").path, "-o", out])
        #expect(missing.status == 2)
        let gone = try Run.loopprep([
            "fix", dir.appendingPathComponent("gone.mp4").path, "-o", out, "--format", "json",
        ])
        outcome = try #require(try Self.outcomes(gone.stdout).first)
        #expect(outcome["status"] as? String == "unreadable" && outcome["cause"] as? String == "unreadable")
        #expect(outcome["output"] == nil)
        #expect(!FileManager.default.fileExists(atPath: out) && !FileManager.default.fileExists(atPath: reel))
    }

    /// Audio encoded again into Matroska (an OBS recording's AAC, a WebM's Vorbis) cannot end with the video: the
    /// plan refuses it, the dry run saying what the write does, each option that encodes again alike, with the
    /// remedy; Opus in WebM is written, and the AAC recording converted to MP4 is too.
    @Test(arguments: [["--seam-fade", "10ms"], ["--loops", "2"], ["--reencode-audio"], ["--keep", "video"]])
    func matroskaAudioEncodedAgainIsRefusedByThePlan(option: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // (--keep video pads only where the sound is the shorter: a phone's Matroska clip.)
        let clips =
            option == ["--keep", "video"]
            ? [("footage-phone.mkv", "AAC")] : [("obs.mkv", "AAC"), ("vp8-vorbis.webm", "VORBIS")]
        for (clip, codec) in clips {
            for dry in [["--dry-run"], []] {
                let run = try Run.loopprep(
                    ["fix", Run.fixture(clip), "-o", dir.path, "--format", "json"] + option + dry)
                let outcome = try #require(try Self.outcomes(run.stdout).first)
                let reason = outcome["reason"] as? String ?? ""
                #expect(run.status == 1 && outcome["cause"] as? String == "plan", "\(clip) \(option): \(reason)")
                #expect(reason.contains("Matroska cannot end \(codec) inside its last frame"), "\(reason)")
                #expect(reason.contains("--to mp4 writes an MP4, whose edit list can"))
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        let opus = try Run.loopprep(["fix", Run.fixture("vp9-opus.webm"), "-o", dir.path] + option)
        #expect(opus.status == 0, "\(opus.stdout)")
        let converted = try Run.loopprep(["fix", Run.fixture("obs.mkv"), "-o", dir.path, "--to", "mp4"] + option)
        #expect(converted.status == 0, "\(converted.stdout)")
    }
}
