import Foundation
import LoopAnalysis
import TestSupport
import Testing

/// loop on the footage people have: x264's default keyframe interval (250 frames, longer than the
/// loop) and one GOP for the whole clip. fixtures/make-fixtures.sh draws a 6.006 s period (180 frames at
/// 30000/1001) under moving grain, over an AM tone repeating with it: every loop written is 180 frames and
/// 6.006 s of audio (288288 samples at 48 kHz), checked by FFmpeg's reading and by analyze.
@Suite struct LoopFootageTests {
    struct Written: Decodable {
        struct File: Decodable {
            var candidates: [LoopCandidate]
            var chosen: Int?
            var output: String?
            var error: String?
            var plan: FixPlan?
        }
        var files: [File]
    }

    /// The presented frames (presentation order) FFmpeg's decoder marks as keyframes.
    static func keyframes(_ path: String) throws -> Set<Int> {
        let frames = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame", "-of", "csv=p=0",
            path,
        ]).stdout.split(separator: "\n")
        return Set(frames.indices.filter { frames[$0].hasPrefix("1") })
    }

    /// The loop written, as FFmpeg reads it: its video frames and its audio's length.
    static func read(_ path: String) throws -> (frames: String, audio: String) {
        let frames = try Run.tool([
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", path,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let audio = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration", "-of", "csv=p=0",
            path,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (frames, audio)
    }

    /// Items 1 and 2: with the defaults (--min 1 --max 10) and with --min 3 --max 8, the 180-frame period is
    /// found and written, whatever keyframe the loop starts after: frames up to the first keyframe inside it are
    /// encoded again (all of them where none is inside), the rest copied; the dry run says the same split.
    @Test(arguments: [[], ["--min", "3", "--max", "8"]])
    func aLoopInsideALongGOPIsWritten(bounds: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("footage-gop250.mp4")
        let keys = try Self.keyframes(clip)
        #expect(keys.count == 3 && keys.contains(0))
        let dry = try JSONDecoder().decode(
            Written.self,
            from: Data(try Run.loopprep(["loop", clip, "--dry-run", "--format", "json"] + bounds).stdout.utf8))
        let planned = try #require(dry.files.first)
        let chosen = try #require(planned.chosen.map { planned.candidates[$0] })
        #expect(chosen.outFrame - chosen.inFrame == 180)
        let video = try #require(planned.plan?.tracks.first { $0.kind == .video })
        // The frames encoded again: those before the first keyframe inside the loop, or all of them.
        let inside = keys.filter { $0 > chosen.inFrame && $0 < chosen.outFrame }.min()
        let encoded = keys.contains(chosen.inFrame) ? 0 : (inside ?? chosen.outFrame) - chosen.inFrame
        #expect(video.presentedFrames == 180 && (video.head?.frames ?? 0) == encoded, "\(chosen)")
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", clip, "-o", out] + bounds)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("wrote 180 frames: \(180 - encoded) copied, \(encoded) encoded again"))
        let read = try Self.read(out)
        #expect(read.frames == "180" && read.audio == "6.006000", "\(read)")
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        #expect(analyze.status == 0 && !analyze.stdout.contains("\"rule\""), "\(analyze.stdout)")
    }

    /// Item 6: one GOP for the whole clip. Every loop but one starting on frame 0 has no keyframe inside: it is
    /// written whole, every frame encoded again (at the source's quality), and is still exact.
    @Test func oneGOPIsEncodedWhole() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("footage-one-gop.mp4")
        #expect(try Self.keyframes(clip) == [0])
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", clip, "--min", "3", "--max", "8", "-o", out, "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let file = try #require(try JSONDecoder().decode(Written.self, from: Data(run.stdout.utf8)).files.first)
        let chosen = try #require(file.chosen.map { file.candidates[$0] })
        let video = try #require(file.plan?.tracks.first { $0.kind == .video })
        #expect(video.head?.frames == (chosen.inFrame == 0 ? nil : 180))
        let read = try Self.read(out)
        #expect(read.frames == "180" && read.audio == "6.006000", "\(read)")
        // Encoded at the source's quality (RunQuality: its pictures' mean quantizer less six), not at crf 17: x264
        // at its default crf 23 codes these pictures at quantizers above 23, so the rate factor x264 writes in its
        // SEI is above 17.
        let sei = String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self)
        let crf = sei.range(of: #"crf=[0-9.]+"#, options: .regularExpression).map { Double(sei[$0].dropFirst(4)) ?? 0 }
        #expect((crf ?? 0) > 17, "\(crf ?? 0)")
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        #expect(analyze.status == 0 && !analyze.stdout.contains("\"rule\""), "\(analyze.stdout)")
    }
}

extension LoopFootageTests {
    /// A loop's frames encoded again are coded with the source's tools where x264 made it with ultrafast's
    /// (footage-one-gop-ultrafast.mp4: the recipe's -preset ultrafast, subme=0) and with superfast's (subme=1)
    /// where it searched harder (footage-one-gop.mp4, veryfast): the settings the loop's encoder writes into its
    /// first frame (stitchable=1: the re-encoder's alone) say which.
    @Test(arguments: [("footage-one-gop-ultrafast.mp4", 0), ("footage-one-gop.mp4", 1)])
    func theLoopIsEncodedWithItsSourcesTools(clip: String, subme: Int) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", Run.fixture(clip), "--min", "3", "--max", "8", "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let bytes = String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self)
        let encoded = bytes.components(separatedBy: "x264 - core ").dropFirst().map { $0.prefix { $0 != "\0" } }
            .filter { $0.contains(" stitchable=1 ") }
        #expect(encoded.count == 1 && encoded.allSatisfy { $0.contains(" subme=\(subme) ") }, "\(encoded)")
    }

    /// Item 5: the container the user names. H.264 in Matroska without audio (a phone's recording, remuxed from
    /// loop-period45.mp4, whose period is 45 frames at 30 fps): into a folder it stays Matroska, as fix keeps it,
    /// written with the finding and its remedy (exit 0, as fix); named .mp4 it is an MP4; an MP4 named .mkv is
    /// refused by name, never written as what it is not.
    @Test func theContainerTheUserNames() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let phone = dir.appendingPathComponent("phone.mkv").path
        let made = try Run.tool([
            "ffmpeg", "-v", "error", "-i", Run.fixture("loop-period45.mp4"), "-an", "-c", "copy", phone,
        ])
        #expect(made.status == 0)
        let folder = dir.appendingPathComponent("out").path
        let kept = try Run.loopprep(["loop", phone, "-o", folder + "/"])
        #expect(kept.status == 0, "\(kept.stdout)\(kept.stderr)")
        #expect(kept.stdout.contains("[not-playable-on-target] the matroska container is not playable"))
        #expect(kept.stdout.contains("fix: remux to MP4: loopprep fix --to mp4"))
        let format = { (path: String) in
            try Run.tool([
                "ffprobe", "-v", "error", "-show_entries", "format=format_name", "-of", "default=nw=1:nk=1", path,
            ])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try format(folder + "/phone.mkv") == "matroska,webm")
        let named = dir.appendingPathComponent("loop.mp4").path
        let mp4 = try Run.loopprep(["loop", phone, "-o", named])
        #expect(mp4.status == 0, "\(mp4.stdout)\(mp4.stderr)")
        #expect(try format(named).hasPrefix("mov,mp4"))
        #expect(try Self.read(named).frames == "45")
        let wrong = try Run.loopprep(["fix", Run.fixture("clean.mp4"), "-o", dir.appendingPathComponent("x.mkv").path])
        #expect(wrong.status == 1 && wrong.stdout.contains("name it .mp4 or .mov"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mkv").path))
    }
}

extension LoopFootageTests {
    /// Items 3 and 4: smooth-pan.mp4 (a 30 px/s pan over a blurred Mandelbrot still, 6 s; make-fixtures.sh) never
    /// repeats, and its neighbouring frames differ by a fraction of a luma level: every seam jumps what many frames
    /// would move. loop says "no repeat found", writes nothing and exits 1; the crossfade it suggests, with the
    /// defaults' --min 1, is a third of a second (0.333) and a --min raised by it (1.333), so the blended loop
    /// (the chosen length less the fade) is at least the 1 s analyze accepts: written, and analyze finds it clean.
    @Test func smoothFootageIsNotALoopAndTheAdviceWorks() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("smooth-pan.mp4")
        let out = dir.appendingPathComponent("loop.mp4").path
        let refused = try Run.loopprep(["loop", clip, "-o", out])
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stdout.contains("no repeat found") && refused.stdout.contains("[seam-visual-jump]"))
        // Said as loop's own failure, not fix's.
        #expect(refused.stderr.contains("error: [loop-failed] no repeat found"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(refused.stdout.contains("--crossfade 0.333 --min 1.333 blends the seam"), "\(refused.stdout)")
        let advised = try Run.loopprep(["loop", clip, "-o", out, "--crossfade", "0.333", "--min", "1.333"])
        #expect(advised.status == 0, "\(advised.stdout)\(advised.stderr)")
        let length = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((Double(length) ?? 0) >= 1, "\(length)")
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        #expect(!analyze.stdout.contains("too-short-to-loop"), "\(analyze.stdout)")

        // With --min 3 the advice keeps the loop 3 s long: a third of it faded, --min raised by the fade (it
        // suggested --crossfade 1.000 alone, and the blended loop came out 2 s long).
        let long = try Run.loopprep(["loop", clip, "-o", out, "--min", "3", "--force"])
        #expect(long.status == 1)
        #expect(
            long.stdout.contains(
                "--crossfade 1.000 --min 4.000 blends the seam and keeps the loop at least 3.000 s long"),
            "\(long.stdout)")
        let followed = try Run.loopprep(["loop", clip, "-o", out, "--crossfade", "1.000", "--min", "4.000", "--force"])
        #expect(followed.status == 0, "\(followed.stdout)\(followed.stderr)")
        let written = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((Double(written) ?? 0) >= 3, "\(written)")
    }
}

extension LoopFootageTests {
    /// Item 6: H.264 with B-frames and AAC in Matroska (footage-gop250.mp4 remuxed by FFmpeg): Matroska has no
    /// edit list to hide a frame presented after the end that an earlier one refers to, nor part of an AAC frame
    /// at the start, so the loop's last GOP is encoded again and its audio starts on the AAC frame at the video's
    /// first frame (within Matroska's millisecond). 180 frames and 6.006 s of audio, to the millisecond; analyze
    /// finds no timing fault, only the container the Apple target does not play.
    @Test func matroskaLoopsExactly() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("footage.mkv").path
        #expect(
            try Run.tool(["ffmpeg", "-v", "error", "-i", Run.fixture("footage-gop250.mp4"), "-c", "copy", clip]).status
                == 0)
        let out = dir.appendingPathComponent("loop.mkv").path
        let run = try Run.loopprep(["loop", clip, "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try Self.read(out).frames == "180")
        let samples =
            try Subprocess.tool("ffmpeg", ["-v", "error", "-i", out, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"])
            .out.count / 2
        #expect(abs(samples - 288_288) <= 48, "\(samples) samples")
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        let rules = Set(
            try JSONDecoder().decode(WrittenReportTests.Document.self, from: Data(analyze.stdout.utf8)).files
                .flatMap(\.findings).map(\.rule))
        // (An AAC cut mid-stream in Matroska starts cold: no edit list hides a packet of pre-roll, and FFmpeg 9.0's
        // decoder makes that first frame a click at the wrap where 5.1's does not. The timing is exact either way.)
        #expect(rules.subtracting(["seam-audio-click"]) == ["not-playable-on-target"], "\(analyze.stdout)")
    }

    /// A loop copied whole takes its seam's last pictures from the search's decoding instead of
    /// decoding its last GOP again, and says of the written loop what analyze, decoding it, finds: its facts, seam
    /// figures included, equal. loop-period45.mp4 (x264 with B-frames, a keyframe every 15 frames) stream-copied
    /// into Matroska, as a phone writes it; loop-period45.webm (VP9 and Opus). The first candidate starting on a
    /// keyframe is written: every frame copied.
    @Test(arguments: [("loop-period45.mp4", "mkv"), ("loop-period45.webm", "webm")])
    func aCopiedLoopSaysWhatAnalyzeFinds(clip: String, container: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("clip." + container).path
        #expect(try Run.tool(["ffmpeg", "-v", "error", "-i", Run.fixture(clip), "-c", "copy", source]).status == 0)
        let bounds = ["--min", "1", "--max", "2", "--top", "10"]
        let dry = try JSONDecoder().decode(
            Written.self,
            from: Data(try Run.loopprep(["loop", source, "--dry-run", "--format", "json"] + bounds).stdout.utf8))
        let keys = try Self.keyframes(source)
        let candidates = try #require(dry.files.first?.candidates)
        let pick = try #require(candidates.firstIndex { keys.contains($0.inFrame) }) + 1
        let out = dir.appendingPathComponent("loop." + container).path
        let run = try Run.loopprep(
            ["loop", source, "--pick", "\(pick)", "-o", out, "--format", "json", "--fail-on", "never"] + bounds)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let written = try JSONDecoder().decode(Written.self, from: Data(run.stdout.utf8))
        let video = try #require(written.files.first?.plan?.tracks.first { $0.kind == .video })
        #expect(video.head == nil && video.tail == nil && video.presentedFrames == candidates[pick - 1].frames)
        let analyze = try Run.loopprep(["analyze", out, "--format", "json", "--fail-on", "never"])
        let said = try #require(try LoopCommandTests.fileJSON(run.stdout)["facts"] as? [String: Any])
        let found = try #require(try LoopCommandTests.fileJSON(analyze.stdout)["facts"] as? [String: Any])
        #expect(found["seam"] != nil)
        LoopCommandTests.expectSameFacts(said, found)
    }

    /// A stream copy's cut (fixtures/mkv-ss-cut.mkv: x264 crf 32 with a keyframe every 50 frames over AAC,
    /// cut by `-ss 1.3 -t 3 -c copy`: video 0.021-4.381 s, 109 frames, AAC from 0 with its priming presented).
    /// fix keeps 107 frames and 205440 samples (4.28 s), to Matroska's millisecond, as FFmpeg decodes them.
    @Test func aMatroskaStreamCopyCutIsFixed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture("mkv-ss-cut.mkv"), "-o", dir.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent("mkv-ss-cut.mkv").path
        #expect(try Self.read(out).frames == "107")
        let samples =
            try Subprocess.tool("ffmpeg", ["-v", "error", "-i", out, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"])
            .out.count / 2
        #expect(abs(samples - 205_440) <= 48, "\(samples) samples")
    }
}

/// A loop is never a cut, in fast footage too (fixtures/make-fixtures.sh: street footage drawn with a car passing
/// close, blurred by the shutter, grain on every frame).
@Suite struct FastFootageLoopTests {
    /// street-cuts.mp4: five shots, each panning on (nothing in it repeats), a car passing in three of them. A wrap
    /// from the frame beside the car to another framing was written as seamless (its seam 0.85 unlike against 0.42
    /// and 0.30 on the car's side, 0.01 on the other); now no candidate is seamless and loop writes nothing.
    @Test func aWrapAcrossTheCarIsACut() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture("street-cuts.mp4")
        let dry = try JSONDecoder().decode(
            LoopFootageTests.Written.self,
            from: Data(try Run.loopprep(["loop", clip, "--dry-run", "--format", "json"]).stdout.utf8))
        let candidates = try #require(dry.files.first?.candidates)
        #expect(!candidates.isEmpty && candidates.allSatisfy { !$0.seamless }, "\(candidates)")
        let out = dir.appendingPathComponent("loop.mp4").path
        let refused = try Run.loopprep(["loop", clip, "-o", out])
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("[loop-failed] no repeat found"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// street-period.mp4: the street scrolls a 320 px tile at 320 px/s and the car passes once a second, so its first
    /// 120 frames repeat every 30 frames, though neighbouring frames are as unlike as noise. The loop written is a
    /// whole number of periods inside them, as FFmpeg counts its frames, and analyze finds its seam clean.
    @Test func aTruePeriodInFastFootageIsFound() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(["loop", Run.fixture("street-period.mp4"), "-o", out, "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let written = try JSONDecoder().decode(LoopFootageTests.Written.self, from: Data(run.stdout.utf8))
        let file = try #require(written.files.first)
        let chosen = try #require(file.chosen.map { file.candidates[$0] })
        #expect(chosen.frames % 30 == 0 && chosen.outFrame <= 120, "\(chosen)")
        #expect(try LoopFootageTests.read(out).frames == String(chosen.frames))
        let analyze = try Run.loopprep(["analyze", out, "--format", "json"])
        #expect(!analyze.stdout.contains("seam-visual-jump"), "\(analyze.stdout)")
    }
}
