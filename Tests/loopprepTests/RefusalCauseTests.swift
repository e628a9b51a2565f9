import Foundation
import TestSupport
import Testing

/// Refusals that name the real cause, and files fixed that were refused for a wrong one.
@Suite struct RefusalCauseTests {
    /// A CENC-encrypted MP4 (fixtures/cenc.mp4: FFmpeg's Common Encryption, encv and enca sample entries) is said
    /// to be encrypted, by analyze and by fix, in one sentence with the remedy: not called damaged.
    @Test func anEncryptedMP4IsSaidToBeEncrypted() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for arguments in [["analyze"], ["fix", "-o", dir.path]] {
            let run = try Run.loopprep(arguments + [Run.fixture("cenc.mp4")])
            #expect(run.status == 2, "\(run.stdout)")
            #expect(
                run.stdout.contains("encrypted (Common Encryption: its encv and enca samples are scrambled"),
                "\(run.stdout)")
            #expect(run.stdout.contains("run it on the clip before it is encrypted"))
            #expect(!run.stdout.contains("damaged"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cenc.mp4").path))
    }

    /// A VP8 WebM whose track says each frame lasts 1 ms (fixtures/vp8-1ms.webm: 30 frames at 30 fps, 1 s, over 1 s
    /// of Opus): a frame lasts until the next one, so fix keeps all 30 frames and 1 s, read so by FFmpeg too.
    @Test func aOneMillisecondFrameLengthIsTakenFromTheTimestamps() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture("vp8-1ms.webm"), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("presents 1000.000 ms = 30 frames"), "\(run.stdout)")
        let out = dir.appendingPathComponent("vp8-1ms.webm").path
        #expect(try LoopFootageTests.read(out).frames == "30")
    }

    /// The same clip stitched with itself into a WebM reel: its frame rate is the 30 fps grid its millisecond
    /// stamps round from (the 1 ms it declares is denied by every step), so two clips are 60 frames and 2 s over
    /// 96000 samples. Read at the 33 ms step (1000/33 fps) the timeline laid 1.980 s while the copied frames kept
    /// their own times, and the reel was refused by its own check (its picture 10 ms past its sound).
    @Test func aOneMillisecondFrameLengthStitchesAtItsGridRate() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.webm").path
        let clip = Run.fixture("vp8-1ms.webm")
        let run = try Run.loopprep(["stitch", clip, clip, "-o", out, "--target", "web", "--no-config"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("2.000 s = 60 frames at 30 fps = 96000 samples"), "\(run.stdout)")
        #expect(try LoopFootageTests.read(out).frames == "60")
    }

    /// A chained Ogg (links one after another: the Ogg spec's chaining is two files' bytes end to end) is said to
    /// be chained, for Vorbis, Opus and Theora + Vorbis, whose single links are read as before.
    @Test(arguments: ["loop-vorbis.ogg", "loop-opus.opus", "short-vorbis-12f.ogv"])
    func aChainedOggIsSaidToBeChained(link: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = try Data(contentsOf: URL(fileURLWithPath: Run.fixture(link)))
        let chained = dir.appendingPathComponent("chained-" + link)
        try (one + one).write(to: chained)
        let run = try Run.loopprep(["analyze", chained.path])
        #expect(run.status == 2, "\(run.stdout)")
        #expect(run.stdout.contains("a chained Ogg: 2 streams one after another in one file"), "\(run.stdout)")
        #expect(run.stdout.contains("split it into one file per link and fix each"))
        #expect(try Run.loopprep(["analyze", Run.fixture(link)]).status != 2)
        // Bytes that are no page between the links (a tag, a torn page left by a cut), which a reader passes over
        // to the next capture pattern: still two links, said so (they were read as one stream starting at -0.5 s).
        for junk in [Data(repeating: 0x54, count: 129), one.prefix(4000).suffix(3000)] {
            let joined = dir.appendingPathComponent("joined-" + link)
            try (one + junk + one).write(to: joined)
            let torn = try Run.loopprep(["analyze", joined.path])
            #expect(torn.status == 2, "\(torn.stdout)")
            #expect(torn.stdout.contains("a chained Ogg: 2 streams one after another in one file"), "\(torn.stdout)")
        }
    }

    /// An Ogg whose bytes changed after it was written (make-robust.sh: one payload byte flipped in one page of 3 s
    /// of Vorbis): that page fails its checksum and FFmpeg skips it ("CRC mismatch!"). Said as damage, with the
    /// remedy, whether the page held the Vorbis headers (nothing opens: it was "not a video or audio file") or sound
    /// (it was read as a clean clip short of what the page held, and copied "already clean"); exit 2, nothing
    /// written.
    @Test(arguments: [("ogg-damaged-header.ogg", "open"), ("ogg-damaged-data.ogg", "read")])
    func anOggPageWhoseChecksumFailsIsDamage(file: String, stage: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let said = "\(stage): damaged: 1 of its Ogg pages fails its checksum (bytes changed after it was written)"
        let analyzed = try Run.loopprep(["analyze", Run.fixture(file)])
        #expect(analyzed.status == 2 && analyzed.stdout.contains(said), "\(analyzed.stdout)")
        #expect(analyzed.stdout.contains("export or download it again"))
        let fixed = try Run.loopprep(["fix", Run.fixture(file), "-o", dir.path + "/"])
        #expect(fixed.status == 2 && fixed.stdout.contains(said), "\(fixed.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}

/// A refusal a plan can know, the dry run says. fixtures/mpeg4-amr.3gp's AMR-NB (GStreamer's
/// opencore encoder) has 0.198 s more sound than picture; --seam-fade encodes the audio again, which needs an AMR-NB
/// encoder FFmpeg may lack (Debian's decodes it only): where it lacks one, the dry run and the write refuse alike,
/// naming the option and the remedy, and analyze's seam finding offers no fade. (The range note, which an app reads
/// from the file alone, keeps its advice: the FFmpeg fix runs on, a Mac's Homebrew one, may have the encoder.)
@Suite struct KnowableRefusalTests {
    @Test func noEncoderIsSaidByTheDryRun() throws {
        let encoders = try Run.tool(["ffmpeg", "-hide_banner", "-encoders"]).stdout
        let hasEncoder = encoders.split(separator: "\n").contains { $0.contains(" amr_nb ") || $0.contains("amrnb") }
        let input = Run.fixture("mpeg4-amr.3gp")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let said =
            "would have to be encoded again (--seam-fade), and this FFmpeg has no amr_nb encoder: leave out "
            + "--seam-fade, or convert the audio to AAC first"
        let dry = try Run.loopprep(["fix", input, "--seam-fade", "10ms", "--dry-run"])
        let write = try Run.loopprep(["fix", input, "--seam-fade", "10ms", "-o", dir.path])
        let analyzed = try Run.loopprep(["analyze", input]).stdout
        if hasEncoder {
            #expect(!dry.stdout.contains("NOT FIXED"), "\(dry.stdout)")
            #expect(analyzed.contains("fix: fade the seam: loopprep fix --seam-fade 10ms"), "\(analyzed)")
            return
        }
        for run in [dry, write] {
            #expect(run.status == 1, "\(run.stdout)")
            #expect(run.stdout.contains(said), "\(run.stdout)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        #expect(analyzed.contains("cut where the sound repeats, in an editor (FFmpeg here cannot encode amr_nb"))
        #expect(!analyzed.contains("fix: fade the seam"), "\(analyzed)")
    }
}
