import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// End to end: the built binary stitching clips, checked with ffprobe/ffmpeg as independent readers.
@Suite struct StitchCommandTests {
    /// Clips with short GOPs (keyframe every 10 frames), so bodies are stream-copied between the transitions.
    static func makeClips(in dir: URL, count: Int = 3, seconds: Int = 2) throws -> [String] {
        let sources = ["testsrc2", "smptebars", "rgbtestsrc", "testsrc"]
        return try (0..<count).map { i in
            let path = dir.appendingPathComponent("clip\(i + 1).mp4").path
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [
                "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "\(sources[i % 4])=size=160x90:rate=30:duration=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=\(300 + 100 * i):duration=\(seconds)", "-c:v", "libx264",
                "-preset", "veryfast",
                "-x264-params", "keyint=10:min-keyint=10:scenecut=0", "-pix_fmt", "yuv420p",
                // One colour description for all (lavfi tags some sources, and x264 writes the tag into the SPS
                // from FFmpeg 7): the clips are one encoder's, with the same parameter sets.
                "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
                "-c:a", "aac", "-movflags", "+faststart", path,
            ]
            try p.run()
            p.waitUntilExit()
            return path
        }
    }

    static func run(_ args: [String]) throws -> Data { Data(try Run.tool(args).stdout.utf8) }

    static func frameHashes(_ path: String) throws -> [String] {
        String(
            decoding: try run([
                "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f",
                "framemd5", "-",
            ]), as: UTF8.self
        )
        .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Each stream's duration in seconds, as ffprobe reads it.
    static func streamDurations(_ path: String) throws -> [Double] {
        let csv = try Self.run(["ffprobe", "-v", "error", "-show_entries", "stream=duration", "-of", "csv=p=0", path])
        return String(decoding: csv, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
    }

    static func decodeErrors(_ path: String) throws -> String {
        try Run.tool(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-"]).stderr
    }

    @Test(arguments: ["none", "crossfade", "fade-black", "slide-left", "slide-right", "slide-up", "slide-down"])
    func everyTransitionGivesTheplanAndDecodesClean(kind: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        let manifest = dir.appendingPathComponent("m.json").path
        let run = try Run.loopprep(
            ["stitch"] + clips + [
                "--transition", kind, "--duration", "0.5", "-o", out, "--manifest", manifest, "--format", "json",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = kind == "none" ? 180 : 150  // 3 x 60 frames, less two 15-frame overlaps
        let m = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        #expect(m["frames"] as? Int == expected)
        // Our probe and ffprobe agree on the lengths: video and audio end together within half a sample.
        let report = try run.file()
        #expect(
            ((report["facts"] as? [String: Any])?["tracks"] as? [[String: Any]])?.first?["frameCount"] as? Int
                == expected)
        // The facts name the output, not the temporary file they were read from.
        #expect((report["facts"] as? [String: Any])?["path"] as? String == out)
        let probe = String(
            decoding: try Self.run([
                "ffprobe", "-v", "error", "-show_entries", "stream=duration", "-of", "csv=p=0", out,
            ]), as: UTF8.self)
        let durations = probe.split(separator: "\n").compactMap { Double($0) }
        #expect(durations.count >= 2)
        #expect(
            abs(durations[0] - Double(expected) / 30) < 1e-6 && abs(durations[1] - durations[0]) <= 0.5 / 48000 + 1e-6,
            "\(durations)")
        #expect(try Self.decodeErrors(out) == "")
        // No error or warning from analyze, but for seam findings.
        let analyze = try Run.loopprep(["analyze", "--format", "json", out])
        let findings =
            ((try JSONSerialization.jsonObject(with: Data(analyze.stdout.utf8)) as? [String: Any])?["files"]
            as? [[String: Any]])?.first?["findings"] as? [[String: Any]] ?? []
        #expect(
            findings.filter {
                !(($0["rule"] as? String) ?? "").hasPrefix("seam-") && ($0["severity"] as? String) != "info"
            }.isEmpty)
    }

    /// Untouched bodies are the sources' frames, bit for bit; only the frames around the joins are re-encoded.
    @Test func bodiesAreTheSourcesFrames() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        #expect(
            try Run.loopprep(["stitch"] + clips + ["--transition", "crossfade", "--duration", "0.5", "-o", out]).status
                == 0)
        let output = try Self.frameHashes(out)
        let sources = try clips.map(Self.frameHashes)
        #expect(output.count == 150)
        // Clip 2 occupies output frames 45..<105; it is copied between its first keyframe after the incoming
        // transition (frame 20) and its last keyframe before the outgoing one (frame 40).
        #expect(Array(output[(45 + 20)..<(45 + 40)]) == Array(sources[1][20..<40]))
        // Clip 1's body: frames 0..<40 (keyframe 40 starts the re-encoded run before the join at 45).
        #expect(Array(output[0..<40]) == Array(sources[0][0..<40]))
    }

    /// With --loop the file ends with the transition back into its own start: no seam finding when looping.
    @Test func loopHasNoSeam() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir, count: 2)
        let out = dir.appendingPathComponent("loop.mp4").path
        let run = try Run.loopprep(
            ["stitch"] + clips + ["--transition", "crossfade", "--duration", "0.5", "--loop", "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        let analyze = try Run.loopprep(["analyze", "--fail-on", "warning", out])
        #expect(analyze.status == 0, "\(analyze.stdout)")
        #expect(!analyze.stdout.contains("seam-"))
        #expect(try Self.decodeErrors(out) == "")
        // Without --loop the same clips have a jump at the seam.
        let plain = dir.appendingPathComponent("plain.mp4").path
        #expect(
            try Run.loopprep(["stitch"] + clips + ["--transition", "crossfade", "--duration", "0.5", "-o", plain])
                .status == 0)
        #expect(try Run.loopprep(["analyze", plain]).stdout.contains("seam-visual-jump"))
    }

    @Test func chaptersAndTheTimelinePicture() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        let page = dir.appendingPathComponent("r.html")
        #expect(
            try Run.loopprep(
                ["stitch"] + clips + [
                    "--transition", "slide-left", "--duration", "0.5", "-o", out, "--html", page.path,
                ]
            ).status == 0)
        // A chapter per clip, where the timeline says (ffprobe's reading).
        let chapters = String(
            decoding: try Self.run(["ffprobe", "-v", "error", "-show_chapters", "-of", "csv=p=0", out]), as: UTF8.self
        )
        .split(separator: "\n")
        #expect(chapters.count == 3)
        #expect(chapters.first?.contains("clip1.mp4") == true)
        // The chapter track is named so where a player lists tracks (not FFmpeg's "SubtitleHandler").
        let handlers = String(
            decoding: try Self.run([
                "ffprobe", "-v", "error", "-show_entries", "stream=codec_type:stream_tags=handler_name", "-of",
                "csv=p=0", out,
            ]), as: UTF8.self)
        #expect(handlers.contains("data,Chapters") && !handlers.contains("SubtitleHandler"), "\(handlers)")
        // The page parses, draws one bar per clip and labels both transitions.
        let doc = try XMLDocument(contentsOf: page)
        #expect(
            try doc.nodes(forXPath: "//*[local-name()='svg']//*[local-name()='rect'][contains(@class,'clip')]").count
                == 3)
        let text = doc.rootElement()?.stringValue ?? ""
        // Each transition labelled in the picture and in the list below it, to the millisecond in both.
        #expect(text.components(separatedBy: "slide-left 0.500 s").count - 1 == 4)
        #expect(try doc.nodes(forXPath: "//*[local-name()='img']/@src").count == 1)
    }

    /// A clip from another encoder setup (its SPS/PPS clash with the first clip's) is re-encoded whole; the
    /// others are still copied.
    @Test func clipsFromAnotherEncoderAreReencoded() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir)
        let other = dir.appendingPathComponent("other.mp4").path
        _ = try Self.run([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=30:duration=2", "-f",
            "lavfi",
            "-i", "sine=frequency=700:duration=2", "-c:v", "libx264", "-preset", "slow", "-x264-params",
            "keyint=10:min-keyint=10:scenecut=0:ref=5:bframes=1", "-pix_fmt", "yuv420p", "-c:a", "aac", other,
        ])
        let out = dir.appendingPathComponent("out.mp4").path
        let page = dir.appendingPathComponent("r.html")
        let run = try Run.loopprep([
            "stitch", clips[0], other, clips[2], "--transition", "crossfade", "--duration", "0.5", "-o", out, "--html",
            page.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // Said, not done silently: the other encoder's clip is named as re-encoded whole; the others are not.
        let notes = run.stdout.split(separator: "\n").filter { $0.hasPrefix("note: ") }
        let html = try XMLDocument(contentsOf: page, options: .nodePreserveWhitespace)
        #expect(
            try html.nodes(forXPath: "//*[@class='note']").compactMap(\.stringValue) == [
                notes.first.map { "Note: " + $0.dropFirst(6) } ?? ""
            ])
        #expect(
            notes == [
                """
                note: \(other) is re-encoded whole: its parameter sets differ from \(clips[0])'s (another \
                encoder, or other settings), so its frames cannot be copied beside them
                """
            ])
        #expect(try Self.decodeErrors(out) == "")
        let output = try Self.frameHashes(out)
        let first = try Self.frameHashes(clips[0])
        #expect(output.count == 150)
        #expect(Array(output[0..<40]) == Array(first[0..<40]))
    }

    /// A reel's container that cannot hold the clips' audio is refused by the plan (dry run and write alike, exit 1,
    /// cause plan), naming the containers that can. Whether FFmpeg's MP4 muxer takes a codec depends on its version:
    /// PCM (pcm-in24.mov, fixtures/make-fixtures.sh: 24-bit big-endian PCM in a MOV) only from 6.1, FLAC
    /// (flac-mkvmerge-ms.mkv) where it is no longer experimental; the ffmpeg CLI's own copy into an MP4 is the oracle.
    /// Refused, nothing is written (it failed in FFmpeg's words after rendering); taken, it is not refused for it.
    @Test(arguments: [
        ("pcm-in24.mov", "pcm_s24be audio: name the output .mov or .mkv"),
        ("flac-mkvmerge-ms.mkv", "flac audio: name the output .mkv"),
    ])
    func aContainerThatCannotHoldTheAudioIsRefusedByThePlan(_ name: String, _ said: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = Run.fixture(name)
        let reel = dir.appendingPathComponent("reel.mp4").path
        let copied = try Run.tool([
            "ffmpeg", "-v", "error", "-i", clip, "-c", "copy", dir.appendingPathComponent("copy.mp4").path,
        ])
        for dry in [["--dry-run"], []] {
            let run = try Run.loopprep(["stitch", clip, clip, "-o", reel, "--format", "json"] + dry)
            let outcome = try #require(try OutcomeCauseTests.outcomes(run.stdout).first)
            let reason = outcome["reason"] as? String
            if copied.status == 0 {
                // (Written, or refused for something else: the apple target's players, say.)
                #expect(reason?.contains("muxer does not take") != true, "\(outcome)")
                continue
            }
            #expect(run.status == 1 && outcome["cause"] as? String == "plan", "\(run.stdout)")
            #expect(reason?.hasSuffix("MP4 muxer does not take the clips' " + said) == true, "\(outcome)")
            #expect(!FileManager.default.fileExists(atPath: reel))
        }
        if name.hasSuffix(".mov") {
            let mov = dir.appendingPathComponent("reel.mov").path
            #expect(try Run.loopprep(["stitch", clip, clip, "-o", mov]).status == 0)
        }
    }

    @Test func mismatchedClipsNameTheDifferenceAndWriteNothing() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep([
            "stitch", Run.fixture("clean.mp4"), Run.fixture("clean-44k.mp4"), Run.fixture("hevc.mp4"), "-o", out,
        ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("clean-44k.mp4: sample rate 44100, where \(Run.fixture("clean.mp4")) has 48000"))
        #expect(run.stderr.contains("hevc.mp4: codec hevc"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// A constant 25 fps clip whose AAC priming is not signalled stitches (it was refused as variable frame
    /// timing): 50 frames and 2 s of tone each (fixtures/make-fixtures.sh). FFmpeg's muxer held the first frame
    /// to 274 ticks of 12800 (21.406 ms) for the 1024 samples of priming (21.333 ms): the two starts are under one of
    /// the video's ticks apart, so the sound moves onto the picture's tick and every frame is kept (one was dropped
    /// for the 0.073 ms): 100 frames, 4 s.
    @Test func unsignalledPrimingAt25fpsStitches() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let clip = Run.fixture("priming-not-signalled-25.mp4")
        let run = try Run.loopprep(["stitch", clip, clip, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frameHashes(out).count == 100)
        let durations = try Self.streamDurations(out)
        #expect(
            durations.count >= 2 && abs(durations[0] - 100.0 / 25) < 1e-6
                && abs(durations[1] - durations[0]) <= 0.5 / 48000 + 1e-6)
        #expect(try Self.decodeErrors(out) == "")
    }

    /// Every audio track is stitched when the clips agree on them (a second language was dropped silently);
    /// clips that do not agree are refused with the difference named.
    @Test func everyAudioTrackIsStitched() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let clip = Run.fixture("two-audio.mp4")
        let run = try Run.loopprep(["stitch", clip, clip, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        struct Streams: Decodable {
            // swift-format-ignore: AlwaysUseLowerCamelCase
            // (ffprobe's JSON names.)
            struct S: Decodable {
                var codec_type: String
                var duration: String?
                var tags: [String: String]?
            }
            var streams: [S]
        }
        let streams = try JSONDecoder().decode(
            Streams.self, from: try Self.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", out])
        ).streams
        let audio = streams.filter { $0.codec_type == "audio" }
        // Two 1 s clips (30 frames, 48000 samples per track) end to end.
        #expect(audio.map { $0.tags?["language"] } == ["eng", "fra"])
        #expect(audio.allSatisfy { $0.duration == "2.000000" })
        #expect(try Self.frameHashes(out).count == 60)
        // The French track is the fixture's 660 Hz tone (the English one 440 Hz): about 2 x 660 x 2 s zero crossings.
        let raw = try Subprocess.tool(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", out, "-map", "0:a:1", "-f", "f32le", "-"]
        ).out
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let crossings = zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 2640) < 40, "\(crossings) zero crossings")

        // Beside a clip with one track, the one they share is joined (clipsJoinTheAudioTheyShare).
    }

    /// Clips with negative composition offsets (ctts version 1, and DaVinci's signed version 0: a frame shown
    /// before its decode time by the clip's own clock) stitch by copy and with a crossfade: every
    /// decode time moved earlier by the largest offset, as FFmpeg's demuxer does. Each fixture is 30 frames:
    /// 60 copied, and 30 + 30 - 9 with a 0.3 s crossfade; the copied frames are the sources', byte for byte.
    @Test func clipsWithNegativeCompositionOffsets() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("copy.mp4").path
        let a = Run.fixture("negative-cts.mp4")
        let b = Run.fixture("signed-ctts-v0.mp4")
        let run = try Run.loopprep(["stitch", a, a, "-o", copy])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try Self.frameHashes(a)
        #expect(source.count == 30)
        #expect(try Self.frameHashes(copy) == source + source)
        #expect(try Self.decodeErrors(copy) == "")
        let faded = dir.appendingPathComponent("faded.mp4").path
        let crossfade = try Run.loopprep([
            "stitch", a, b, "--transition", "crossfade", "--duration", "0.3", "-o", faded,
        ])
        #expect(crossfade.status == 0, "\(crossfade.stderr)")
        #expect(try Self.frameHashes(faded).count == 51)
        #expect(try Self.decodeErrors(faded) == "")
    }

    /// Two languages recorded apart: each clip has an English track at 48 kHz (stereo) and a French
    /// one at 44.1 kHz (mono). Both are stitched, crossfaded, the French resampled to the joins' 48 kHz grid:
    /// 2 s clips with a 0.5 s crossfade are 3.5 s, 105 frames, 168000 samples on each track (was "clips differ").
    @Test func twoLanguagesAtTwoRatesWithACrossfade() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var clips: [String] = []
        for i in 1...2 {
            let clip = dir.appendingPathComponent("lang\(i).mp4").path
            _ = try Self.run([
                "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=30:duration=2",
                "-f", "lavfi", "-i", "sine=frequency=\(300 + 100 * i):sample_rate=48000:duration=2", "-f", "lavfi",
                "-i", "sine=frequency=\(500 + 100 * i):sample_rate=44100:duration=2", "-map", "0", "-map", "1", "-map",
                "2", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac:a:0", "2",
                "-ac:a:1", "1", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", clip,
            ])
            clips.append(clip)
        }
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep(
            ["stitch"] + clips + ["--transition", "crossfade", "--duration", "0.5", "-o", out, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let tracks =
            ((try run.file()["facts"] as? [String: Any])?["tracks"] as? [[String: Any]]) ?? []
        #expect(tracks.first?["frameCount"] as? Int == 105)
        let audio = tracks.filter { $0["kind"] as? String == "audio" }
        #expect(audio.count == 2)
        #expect(audio.allSatisfy { $0["sampleRate"] as? Int == 48000 && $0["sampleCount"] as? String == "168000" })
        #expect(try Self.decodeErrors(out) == "")
    }

    /// AC-3 audio: FFmpeg's AC-3 encoder delays its output 256 samples and has nothing to flush, so
    /// the stitched lane is given that much silence after its last sample (hidden by the edit list). Two 2 s
    /// clips at 44.1 kHz: 4 s, 176400 samples (it was 16 short, 176384, and refused by the check).
    @Test func ac3ClipsKeepEverySample() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("ac3.mp4").path
        _ = try Self.run([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=30:duration=2", "-f",
            "lavfi", "-i", "sine=frequency=441:sample_rate=44100:duration=2.4", "-c:v", "libx264", "-preset",
            "veryfast", "-pix_fmt", "yuv420p", "-g", "15", "-c:a", "ac3", clip,
        ])
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep(["stitch", clip, clip, "-o", out, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let tracks =
            ((try run.file()["facts"] as? [String: Any])?["tracks"] as? [[String: Any]]) ?? []
        #expect(tracks.first?["frameCount"] as? Int == 120)
        #expect(tracks.first { $0["kind"] as? String == "audio" }?["sampleCount"] as? String == "176400")
    }

    /// MPEG-TS clips are stitched into an MP4 (bodies copied: 30 + 30 frames, 44100 + 44100 samples); when frames
    /// would be re-encoded next to a TS clip's in-stream parameter sets, stitch refuses in one sentence.
    @Test func transportStreamClips() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let clip = Run.fixture("broadcast.ts")
        let run = try Run.loopprep(["stitch", clip, clip, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frameHashes(out).count == 60)
        #expect(try Self.decodeErrors(out) == "")
        let refused = try Run.loopprep([
            "stitch", clip, clip, "--transition", "crossfade", "--duration", "0.2", "-o",
            dir.appendingPathComponent("x.mp4").path,
        ])
        #expect(refused.status != 0 && refused.stderr.contains("carries its H.264 parameter sets in the stream"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mp4").path))
    }

    /// --normalize takes a folder of mixed containers: MP4, AVI (MJPEG, 15 fps), MPEG-TS, Matroska, 1 s each,
    /// re-encoded to the first clip's 30 fps: 4 x 30 frames, 4 x 48000 samples.
    @Test func normalizeTakesMixedContainers() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep([
            "stitch", "--normalize", Run.fixture("clean.mp4"), Run.fixture("capture.avi"), Run.fixture("broadcast.ts"),
            Run.fixture("obs.mkv"), "-o", out,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frameHashes(out).count == 120)
        #expect(try Self.decodeErrors(out) == "")
        let durations = try Self.streamDurations(out)
        #expect(
            durations.count >= 2 && abs(durations[0] - 4) < 1e-6 && abs(durations[1] - 4) <= 0.5 / 48000 + 1e-6,
            "\(durations)")
    }

    static func packetHashes(_ path: String, stream: String) throws -> [String] {
        String(
            decoding: try run([
                "ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=data_hash",
                "-show_data_hash", "MD5",
                "-of", "csv=p=0", path,
            ]), as: UTF8.self
        ).split(separator: "\n").map(String.init)
    }

    /// Clips on another clock than MP4's are copied too, each frame placed on the output's frame grid: OBS's
    /// Matroska (milliseconds: 33 and 34 ms frames, no DTS from FFmpeg), an RTMP recording's FLV, and an
    /// iPhone-style MP4 counting 600 ticks a second next to FFmpeg's 15360. Two 1 s clips each: 60 frames at
    /// 30 fps, both clips' audio in full, every video packet the source's bytes.
    @Test(arguments: [
        ("obs.mkv", "obs.mkv", 48000), ("rtmp.flv", "rtmp.flv", 44100), ("clean.mp4", "clean-600.mp4", 48000),
    ])
    func clipsOnOtherClocksAreCopiedOnTheFrameGrid(first: String, second: String, rate: Int) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var b = Run.fixture(second)
        if second == "clean-600.mp4" {
            b = dir.appendingPathComponent(second).path
            _ = try Self.run([
                "ffmpeg", "-nostdin", "-v", "error", "-i", Run.fixture("clean.mp4"), "-c", "copy",
                "-video_track_timescale", "600", b,
            ])
            #expect(
                String(
                    decoding: try Self.run([
                        "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=time_base", "-of",
                        "csv=p=0", b,
                    ]),
                    as: UTF8.self
                ).hasPrefix("1/600"))
        }
        let a = Run.fixture(first)
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep(["stitch", a, b, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frameHashes(out).count == 60)
        #expect(
            try Self.packetHashes(out, stream: "v") == (try Self.packetHashes(a, stream: "v"))
                + (try Self.packetHashes(b, stream: "v")))
        #expect(try Self.decodeErrors(out) == "")
        let streams = String(
            decoding: try Self.run([
                "ffprobe", "-v", "error", "-show_entries", "stream=r_frame_rate,duration", "-of", "csv=p=0", out,
            ]), as: UTF8.self
        )
        .split(separator: "\n").map { $0.split(separator: ",") }
        #expect(streams.first?.first == "30/1")
        // Video and audio (a chapter track follows), each 2 s: the audio within half a sample.
        #expect(
            streams.count >= 2
                && streams.prefix(2).allSatisfy { abs((Double($0.last ?? "") ?? 0) - 2) <= 0.5 / Double(rate) + 1e-6 },
            "\(streams)")
    }

    /// `stitch --loop --transition none` over two unlike clips (h264-gop10-a.mp4 is testsrc2,
    /// -b rgbtestsrc): the wrap is a cut, and stitch says so as its --html page does, in text and JSON, and
    /// `--fail-on warning` fails the run on it (it said nothing and exited 0).
    @Test func stitchReportsTheSeamItDraws() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = [Run.fixture("h264-gop10-a.mp4"), Run.fixture("h264-gop10-b.mp4")]
        let out = dir.appendingPathComponent("loop.mp4").path
        let base = ["stitch"] + clips + ["--loop", "--transition", "none", "-o", out, "-y", "--no-config"]
        let text = try Run.loopprep(base)
        #expect(text.status == 0 && text.stdout.contains("warning [seam-visual-jump]"), "\(text.stdout)")
        let json = try Run.loopprep(base + ["--format", "json"])
        let report = try json.file()
        let rules = (report["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } ?? []
        #expect(rules.contains("seam-visual-jump"), "\(rules)")
        #expect(try Run.loopprep(base + ["--fail-on", "warning"]).status == 1)
    }

    /// A clip without audio in a stitch (fixtures/make-fixtures.sh: video-only.mp4 and clean.mp4,
    /// 1 s each at 30 fps, clean.mp4's a 440 Hz tone at 48 kHz): silence in the others' format is laid under it,
    /// and said; first, in the middle, and with --normalize. The output's audio is 3 s (144000 samples): the tone,
    /// silence, the tone, as ffmpeg decodes it.
    @Test func aClipWithoutAudioGetsSilence() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (clean, silent) = (Run.fixture("clean.mp4"), Run.fixture("video-only.mp4"))
        let out = dir.appendingPathComponent("joined.mp4").path
        let run = try Run.loopprep(["stitch", clean, silent, clean, "-o", out, "--no-config"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("video-only.mp4 has no audio: silence is laid under it"), "\(run.stdout)")
        let raw = try Subprocess.tool("ffmpeg", ["-v", "error", "-i", out, "-map", "0:a", "-f", "f32le", "-"]).out
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.count >= 144000)
        func rms(_ r: Range<Int>) -> Float { (samples[r].map { $0 * $0 }.reduce(0, +) / Float(r.count)).squareRoot() }
        #expect(rms(1000..<47000) > 0.05 && rms(49000..<95000) < 1e-4 && rms(97000..<143000) > 0.05)
        for clips in [[silent, clean], [clean, silent]] {
            let other = try Run.loopprep(["stitch"] + clips + ["-o", out, "-y", "--no-config", "--normalize"])
            #expect(other.status == 0, "\(other.stderr)")
        }
    }

    /// A clip with two audio languages joined to one with one (fixtures/make-fixtures.sh:
    /// two-audio.mp4 has English and French, clean.mp4 one track with no language): was refused, with a remedy
    /// (--normalize) that refused too. The tracks shared are joined (none by language: each clip's first), the
    /// French one is said in text and JSON, and the output has one audio track of the 2 s (96000 samples).
    @Test func clipsJoinTheAudioTheyShare() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("joined.mp4").path
        let clips = [Run.fixture("two-audio.mp4"), Run.fixture("clean.mp4")]
        let text = try Run.loopprep(["stitch"] + clips + ["-o", out, "--no-config"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("two-audio.mp4: audio track 2 (aac) (fra) left out: not every clip has it"))
        let json = try Run.loopprep(["stitch"] + clips + ["-o", out, "-y", "--no-config", "--format", "json"])
        let report = try json.file()
        #expect((report["audioLeftOut"] as? [String])?.count == 1)
        let audio = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts", "-of", "csv=p=0",
            out,
        ])
        #expect(audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "96000")
    }

    /// hev1 clips are stitched as hvc1 (it was refused for the apple target): the sample entry
    /// says hvc1, no copied frame keeps a parameter set in band (NAL types 32-34: the source's keyframes each
    /// had three), and ffmpeg decodes the 60 frames to the source's 30 twice.
    @Test func hev1IsStitchedAsHvc1() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let hev1 = Run.fixture("hevc-hev1.mp4")
        let out = dir.appendingPathComponent("hev1.mp4").path
        let run = try Run.loopprep(["stitch", hev1, hev1, "-o", out, "--no-config"])
        #expect(run.status == 0, "\(run.stderr)")
        let tag = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_tag_string", "-of",
            "csv=p=0", out,
        ])
        #expect(tag.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hvc1")
        func nalTypes(_ path: String) throws -> [Int] {
            let raw = try Subprocess.tool(
                "ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "rawvideo", "-"]
            ).out
            var types: [Int] = []
            var at = raw.startIndex
            while at + 4 < raw.endIndex {
                let length = raw[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
                types.append(Int(raw[at + 4] >> 1) & 0x3f)
                at += 4 + length
            }
            return types
        }
        #expect(try nalTypes(hev1).contains(32))
        #expect(try !nalTypes(out).contains { (32...34).contains($0) })
        let frames = { (path: String) in
            try Run.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last ?? "" }
        }
        let source = try frames(hev1)
        #expect(try frames(out) == source + source)
    }

    /// The output must play on the target (stitch kept an output Apple will not play, exit 0):
    /// VP9 + Opus in an MP4 is refused for the apple target, one sentence naming what and what would play, exit
    /// 1, nothing written; --target (or the project's .loopprep.json) names another target.
    @Test func theOutputMustPlayOnTheTarget() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A project that ships to browsers says so once, in .loopprep.json.
        try Data(#"{ "target": "chrome" }"#.utf8).write(to: dir.appendingPathComponent(".loopprep.json"))
        let hev1 = Run.fixture("hevc-hev1.mp4")
        let out = dir.appendingPathComponent("hev1.mp4").path
        let chrome = try Run.loopprep(["stitch", hev1, hev1, "-o", out], in: dir)
        #expect(chrome.status == 0, "\(chrome.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
        // VP9 + Opus in an MP4 for Apple: refused; --target web takes it.
        let vp9 = Run.fixture("vp9-gop10-a.webm")
        let mp4 = dir.appendingPathComponent("vp9.mp4").path
        let apple = try Run.loopprep(["stitch", vp9, vp9, "-o", mp4, "--no-config"])
        #expect(apple.status == 1 && apple.stderr.contains("would not play on the apple target"), "\(apple.stderr)")
        #expect(!FileManager.default.fileExists(atPath: mp4))
        let web = try Run.loopprep(["stitch", vp9, vp9, "-o", mp4, "--target", "chrome"])
        #expect(web.status == 0, "\(web.stderr)")
    }

    /// The timeline's labels never overlap and stay inside the picture: four 1 s clips joined
    /// by 0.3 s crossfades and --loop put three join labels and the loop join's long one on one line; the ticks
    /// fall on round times (1, 2 or 5 times a power of ten) from 0. Each label is measured at 0.62 em a character
    /// of its 11-pixel font, wider than any common glyph but W and M.
    @Test func timelineLabelsDoNotOverlap() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try (0..<4).map { k -> String in
            let path = dir.appendingPathComponent("clip\(k).mp4").path
            try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: path)
            return path
        }
        let page = dir.appendingPathComponent("t.html").path
        let run = try Run.loopprep(
            ["stitch"] + clips + [
                "--transition", "crossfade", "--duration", "0.3", "--loop", "--dry-run", "--html", page,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let svg = try #require(
            html.range(of: "<svg").flatMap { a in html.range(of: "</svg>").map { html[a.lowerBound..<$0.upperBound] } })
        let regex = try NSRegularExpression(
            pattern: #"<text x="([\d.]+)" y="([\d.]+)" class="small[^"]*" text-anchor="start">([^<]*)</text>"#)
        let text = String(svg)
        let labels = regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            m -> (Double, Double, String) in
            func group(_ i: Int) -> String { String(text[Range(m.range(at: i), in: text)!]) }
            return (Double(group(1)) ?? -1, Double(group(2)) ?? -1, group(3))
        }
        #expect(
            labels.contains { $0.2.contains("loop join") } && labels.filter { $0.2.hasPrefix("crossfade") }.count == 3)
        for (i, a) in labels.enumerated() {
            let aEnd = a.0 + Double(a.2.count) * 11 * 0.62
            #expect(a.0 >= 0 && aEnd <= 760, "\(a.2) runs out of the picture")
            for b in labels[(i + 1)...] where b.1 == a.1 {
                let bEnd = b.0 + Double(b.2.count) * 11 * 0.62
                #expect(aEnd <= b.0 || bEnd <= a.0, "\(a.2) overlaps \(b.2)")
            }
        }
        let ticks = labels.filter { $0.2.hasSuffix("s") && Double($0.2.dropLast()) != nil }.map {
            Double($0.2.dropLast())!
        }
        #expect(ticks.first == 0 && ticks.count >= 3)
        let step = ticks[1] - ticks[0]
        let power = pow(10, floor(log10(step)))
        #expect([1.0, 2, 5].contains { abs(step - $0 * power) < 1e-9 }, "step \(step)")
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { abs($1 - $0 - step) < 1e-9 })
    }

    struct WebMStitch: CustomTestStringConvertible, Sendable {
        var transition: String
        var loop: Bool
        var a = "vp9-gop10-a.webm", b = "vp9-gop10-b.webm"
        var testDescription: String { "\(a) \(transition)\(loop ? " --loop" : "")" }
    }

    /// VP9 + Opus clips stitch into one WebM: bodies copied from their keyframes, the joins drawn by xfade and
    /// re-encoded with libvpx (VP9 needs no shared parameter sets: each run starts on its own keyframe), the
    /// audio one Opus stream whose pre-skip is its CodecDelay. Two clips of 30 frames with a keyframe every 10
    /// (fixtures/make-fixtures.sh), 9-frame (0.3 s) joins: 51 frames, or 42 with --loop (a second join).
    @Test(arguments: [
        WebMStitch(transition: "crossfade", loop: false), WebMStitch(transition: "slideleft", loop: false),
        WebMStitch(transition: "circleopen", loop: false), WebMStitch(transition: "crossfade", loop: true),
        WebMStitch(transition: "slideleft", loop: true), WebMStitch(transition: "circleopen", loop: true),
        WebMStitch(transition: "circleopen", loop: false, a: "av1-gop10.webm", b: "av1-gop10.webm"),
        WebMStitch(transition: "crossfade", loop: true, a: "av1-gop10.webm", b: "av1-gop10.webm"),
    ])
    func webmClipsStitchIntoWebM(c: WebMStitch) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b, out) = try Self.stitchPair(
            c.a, c.b, transition: c.transition, loop: c.loop, into: dir.appendingPathComponent("out.webm").path)
        let frames = 60 - 9 * (c.loop ? 2 : 1)
        #expect(try Self.frameHashes(out).count == frames)
        #expect(try Self.decodeErrors(out) == "")
        let format = String(
            decoding: try Self.run([
                "ffprobe", "-v", "error", "-show_entries", "format=format_name:stream=codec_name", "-of", "csv=p=0",
                out,
            ]), as: UTF8.self)
        #expect(
            format.contains(c.a.hasPrefix("av1") ? "av1" : "vp9") && format.contains("opus")
                && format.contains("matroska,webm"))
        // The audio as ffmpeg decodes it: the frames' length at 48 kHz (Opus pre-skip and end discard honoured).
        let samples = String(
            decoding: try Self.run([
                "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "frame=nb_samples",
                "-of", "csv=p=0", out,
            ]), as: UTF8.self
        ).split(separator: "\n").compactMap { Int($0) }.reduce(0, +)
        #expect(samples == frames * 48000 / 30)
        // Copied bodies, byte for byte. Without --loop: the first clip's frames 0-20 (a keyframe at 0, the join
        // at 21), then after the join and the incoming clip's frame 9, its frames 10-29 from the keyframe at 10.
        // With --loop both clips also lose their first 9 frames to a join: each copies 10-20.
        let packets = try Self.packetHashes(out, stream: "v")
        let pa = try Self.packetHashes(a, stream: "v")
        let pb = try Self.packetHashes(b, stream: "v")
        try #require(
            packets.count >= (c.loop ? 33 : 51) && pa.count >= 21 && pb.count >= 30, "\(packets.count) packets written")
        if c.loop {
            #expect(Array(packets[1..<12]) == Array(pa[10..<21]))
            #expect(Array(packets[22..<33]) == Array(pb[10..<21]))
        } else {
            #expect(Array(packets[0..<21]) == Array(pa[0..<21]))
            #expect(Array(packets[31..<51]) == Array(pb[10..<30]))
        }
        // (AV1 is not web-playable everywhere: Safari needs AV1 hardware.)
        let analyze = try Run.loopprep(["analyze", out, "--target", c.a.hasPrefix("av1") ? "chrome" : "web"])
        #expect(analyze.status == 0, "\(analyze.stdout)")
        if c.loop {
            #expect(!analyze.stdout.contains("seam-visual-jump") && !analyze.stdout.contains("seam-audio-click"))
        }
    }

    struct SmartStitch: CustomTestStringConvertible, Sendable {
        var a: String, b: String, transition: String, loop: Bool
        var testDescription: String { "\(a) \(transition)\(loop ? " --loop" : "")" }
    }

    static let smartCases: [SmartStitch] =
        ["crossfade", "slideleft", "circleopen"].flatMap { t in
            [false, true].flatMap { loop in
                [
                    SmartStitch(a: "h264-gop10-a.mp4", b: "h264-gop10-b.mp4", transition: t, loop: loop),
                    SmartStitch(a: "hevc-gop10-a.mp4", b: "hevc-gop10-b.mp4", transition: t, loop: loop),
                    SmartStitch(a: "hevc10-hdr.mp4", b: "hevc10-hdr.mp4", transition: t, loop: loop),
                ]
            }
        } + [
            SmartStitch(a: "h264-10bit.mp4", b: "h264-10bit.mp4", transition: "circleopen", loop: true),
            SmartStitch(a: "h264-10bit.mp4", b: "h264-10bit.mp4", transition: "wipeleft", loop: false),
        ]

    /// H.264 (8-bit, and High 10) and HEVC (x264's and x265's B-frames, x265's open GOPs, a keyframe every 10 frames;
    /// HEVC 8-bit
    /// Main, and Main 10 with HDR10) stitched with smart rendering. HEVC: the joins re-encoded with x265 at the
    /// source's profile and colour, its
    /// VPS, SPS and PPS renumbered (and its slices with them) to sit beside the source's in one hvcC, as hvc1.
    /// Two 30-frame clips, 9-frame joins: 51 frames, 42 with --loop. The copied GOPs decode to the sources'
    /// exact pixels: without --loop the first clip's frames 0-9 open the file and the second's 20-29 end it;
    /// with --loop the first clip's 10-19 are output frames 1-10 and the second's 10-19 are 22-31.
    @Test(arguments: smartCases)
    func smartRenderedStitchKeepsCopiedGOPs(c: SmartStitch) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b, out) = try Self.stitchPair(
            c.a, c.b, transition: c.transition, loop: c.loop, into: dir.appendingPathComponent("out.mp4").path)
        let frames = try Self.frameHashes(out)
        let fa = try Self.frameHashes(a)
        let fb = try Self.frameHashes(b)
        #expect(frames.count == (c.loop ? 42 : 51))
        // Video and audio end together: the frames' length, the audio within half a sample of it (48 kHz).
        let durations = String(
            decoding: try Self.run([
                "ffprobe", "-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "csv=p=0", out,
            ]),
            as: UTF8.self
        ).split(separator: "\n").map { $0.split(separator: ",") }
        let video = durations.first { $0.first == "video" }?.last.flatMap { Double($0) }
        let audio = durations.first { $0.first == "audio" }?.last.flatMap { Double($0) }
        #expect(
            video.map { abs($0 - Double(frames.count) / 30) < 1e-6 } == true
                && audio.map { abs($0 - Double(frames.count) / 30) <= 0.5 / 48000 + 1e-6 } == true,
            "\(durations)")
        #expect(try Self.decodeErrors(out) == "")
        guard frames.count == (c.loop ? 42 : 51) else { return }
        if c.loop {
            #expect(Array(frames[1..<11]) == Array(fa[10..<20]))
            #expect(Array(frames[22..<32]) == Array(fb[10..<20]))
        } else {
            #expect(Array(frames[0..<10]) == Array(fa[0..<10]))
            #expect(Array(frames[41..<51]) == Array(fb[20..<30]))
        }
        // H.264: the parameter sets live in one avcC, checked by the copied pixels above.
        guard c.a.hasPrefix("hevc") else { return }
        // hvc1, with the source's parameter sets and x265's, each of another id (VPS ids are the first four
        // bits after the NAL header; a PPS's id is its first Exp-Golomb code).
        let json =
            try JSONSerialization.jsonObject(
                with: try Self.run([
                    "ffprobe", "-v", "error", "-select_streams", "v", "-show_streams", "-show_data",
                    "-of", "json", out,
                ])) as? [String: Any]
        let stream = try #require((json?["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_tag_string"] as? String == "hvc1")
        let hvcc = Self.hexBytes(stream["extradata"] as? String ?? "")
        let units = Self.hvccUnits(hvcc)
        let vps = units.filter { ($0[0] >> 1) & 0x3f == 32 }
        let pps = units.filter { ($0[0] >> 1) & 0x3f == 34 }
        #expect(vps.count == 2 && Set(vps.map { $0[2] >> 4 }).count == 2)
        #expect(pps.count == 2 && Set(pps.map { Self.firstUE($0[2]) }).count == 2)
        if c.a.contains("hdr") {
            #expect(
                stream["color_transfer"] as? String == "smpte2084" && stream["color_primaries"] as? String == "bt2020")
            #expect(stream["profile"] as? String == "Main 10" && stream["pix_fmt"] as? String == "yuv420p10le")
            // Every keyframe, re-encoded or copied, says the mastering display and light level made.
            let sides = String(
                decoding: try Self.run([
                    "ffprobe", "-v", "error", "-select_streams", "v", "-show_frames", "-show_entries",
                    "frame=key_frame:frame_side_data=side_data_type,max_luminance,max_content", "-of", "compact", out,
                ]), as: UTF8.self)
            let keys = sides.components(separatedBy: "frame|").filter { $0.hasPrefix("key_frame=1") }
            #expect(
                keys.count >= 3
                    && keys.allSatisfy {
                        $0.contains("max_luminance=10000000/10000") && $0.contains("max_content=1000")
                    })
        }
    }

    /// Two fixtures stitched with a 0.3 s (9-frame) transition; the run is expected to succeed. AV1 is stitched
    /// for Chromium (the web target, which includes Safari, does not count on AV1: theOutputMustPlayOnTheTarget).
    static func stitchPair(_ first: String, _ second: String, transition: String, loop: Bool, into out: String) throws
        -> (String, String, String)
    {
        let a = Run.fixture(first)
        let b = Run.fixture(second)
        // H.264 High 10 plays on none of the targets loopprep models (a player it does not know): the rule is
        // turned off, which writes it anyway.
        let target =
            first.hasPrefix("av1")
            ? ["--target", "chrome"] : first.hasPrefix("h264-10bit") ? ["--disable", "not-playable-on-target"] : []
        let run = try Run.loopprep(
            ["stitch", a, b, "--transition", transition, "--duration", "0.3", "-o", out] + (loop ? ["--loop"] : [])
                + target)
        #expect(run.status == 0, "\(run.stderr)")
        return (a, b, out)
    }

    static func hexBytes(_ dump: String) -> [UInt8] {
        dump.split(separator: "\n").flatMap { line -> [UInt8] in
            guard let colon = line.firstIndex(of: ":") else { return [] }
            let hex = String(line[line.index(after: colon)...].prefix(41).filter { !$0.isWhitespace })
            return stride(from: 0, to: hex.count - 1, by: 2).compactMap {
                UInt8(
                    hex[hex.index(hex.startIndex, offsetBy: $0)..<hex.index(hex.startIndex, offsetBy: $0 + 2)],
                    radix: 16)
            }
        }
    }

    /// The NAL units of an hvcC (ISO 14496-15: 22 bytes, array count, then per array type, count, units).
    static func hvccUnits(_ b: [UInt8]) -> [[UInt8]] {
        guard b.count > 23 else { return [] }
        var i = 23
        var out: [[UInt8]] = []
        for _ in 0..<Int(b[22]) {
            guard i + 3 <= b.count else { break }
            let n = Int(b[i + 1]) << 8 | Int(b[i + 2])
            i += 3
            for _ in 0..<n {
                guard i + 2 <= b.count else { break }
                let length = Int(b[i]) << 8 | Int(b[i + 1])
                i += 2
                guard i + length <= b.count else { break }
                out.append(Array(b[i..<i + length]))
                i += length
            }
        }
        return out
    }

    /// The first Exp-Golomb code of a byte (ids below 7 fit).
    static func firstUE(_ byte: UInt8) -> Int {
        let zeros = byte.leadingZeroBitCount
        return Int((byte << UInt8(zeros)) >> UInt8(7 - zeros)) - 1
    }

    /// --normalize --codec hevc: every clip (H.264 MP4, OBS Matroska, HEVC Main 10) encoded as HEVC in hvc1,
    /// 3 x 30 frames less two 9-frame joins; --codec alone is refused (it means re-encoding everything).
    @Test func normalizeEncodesInTheCodecAsked() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep([
            "stitch", "--normalize", "--codec", "hevc", Run.fixture("clean.mp4"), Run.fixture("obs.mkv"),
            Run.fixture("hevc10-hdr.mp4"), "--transition", "crossfade", "--duration", "0.3", "-o", out,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frameHashes(out).count == 72)
        #expect(try Self.decodeErrors(out) == "")
        let stream = String(
            decoding: try Self.run([
                "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_name,codec_tag_string",
                "-of", "csv=p=0", out,
            ]), as: UTF8.self)
        #expect(stream.hasPrefix("hevc,hvc1"))
        let refused = try Run.loopprep([
            "stitch", "--codec", "hevc", Run.fixture("clean.mp4"), Run.fixture("clean.mp4"), "-o", out + ".2.mp4",
        ])
        #expect(refused.status != 0 && refused.stderr.contains("use it with --normalize"))
    }

    /// stitch never writes over an input, nor over an existing file unless told (--force, -y); an empty folder
    /// is "no media found", not a frame-rate error.
    @Test func outputGuardrails() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.mp4").path
        let b = dir.appendingPathComponent("b.mp4").path
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: a)
        try FileManager.default.copyItem(atPath: Run.fixture("clean.mp4"), toPath: b)
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let overInput = try Run.loopprep(["stitch", a, b, "-o", a])
        #expect(overInput.status == 1 && overInput.stderr.contains("is the input"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == before)
        let out = dir.appendingPathComponent("out.mp4").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        let existing = try Run.loopprep(["stitch", a, b, "-o", out])
        #expect(existing.status == 1 && existing.stderr.contains("--force"))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep me")
        let forced = try Run.loopprep(["stitch", a, b, "-o", out, "-y"])
        #expect(forced.status == 0)
        #expect(try Self.frameHashes(out).count == 60)
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try Run.loopprep(["stitch", empty.path, "-o", dir.appendingPathComponent("x.mp4").path])
        #expect(none.status == 2 && none.stderr.contains("no media found"))
    }

    /// An MP4's AAC cannot go into a WebM (Matroska cannot hide its priming): refused by name, nothing written.
    @Test func webmOutputNeedsOpus() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.webm").path
        let run = try Run.loopprep(["stitch", Run.fixture("clean.mp4"), Run.fixture("clean.mp4"), "-o", out])
        #expect(run.status != 0 && run.stderr.contains("needs Opus audio"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// FLAC is coded without a delay, so a Matroska reel of FLAC clips has no priming to hide: written, not refused
    /// ("needs Opus audio"). flac-mkvmerge-ms.mkv (make-robust.sh): 48 frames at 24000/1001 fps over 2 s of a 440 Hz
    /// sine at 1/8; two with a 0.5 s (12 frame) crossfade --loop are 72 frames, 72 x 1001 / 24000 x 44100 = 132432.4
    /// samples, all of which FFmpeg decodes; lossless, the wrap turns no more sharply than two such tones summed can
    /// (2 x 1/8 x (2 pi 440 / 44100)^2), where a skipped sample would step by 0.008.
    @Test func aMatroskaReelOfFLACIsWritten() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.mkv").path
        let clip = Run.fixture("flac-mkvmerge-ms.mkv")
        let run = try Run.loopprep([
            "stitch", clip, clip, "-o", out, "--loop", "--transition", "crossfade", "--duration", "0.5", "--target",
            "chrome",
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let codec = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
            out,
        ])
        #expect(codec.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "flac")
        let samples = try WrapSoundTests.decodedWhole(out).map(Double.init)
        #expect(samples.count == 132_432)
        let around = Array(samples.suffix(8)) + Array(samples.prefix(8))
        var turns: [Double] = []
        for n in 1..<around.count - 1 { turns.append(abs(around[n + 1] - 2 * around[n] + around[n - 1])) }
        #expect((turns.max() ?? 1) < 2 * 0.125 * pow(2 * Double.pi * 440 / 44100, 2), "\(turns)")
    }

    /// H.264 (with Opus, which Matroska takes) cannot go into a WebM, whose video is VP8, VP9 or AV1: the plan
    /// refuses it in one sentence with the remedies, a dry run the same, and nothing is written (FFmpeg's muxer
    /// refused it after the render with its own words).
    @Test func webmOutputNeedsWebMVideo() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.webm").path
        let clip = Run.fixture("meta-opus.mp4")
        for dry in [["--dry-run"], []] {
            let run = try Run.loopprep(["stitch", clip, clip, "-o", out, "--target", "web"] + dry)
            #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
            #expect(
                run.stderr.contains(
                    "a WebM output carries VP8, VP9 or AV1 video; the reel's would be h264: name the output .mkv or "
                        + ".mp4, or re-encode it with --normalize --codec vp9"), "\(run.stderr)")
            #expect(!run.stderr.contains("Invalid argument"))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// A single clip with --loop and a crossfade (analyze's advice for a visual seam) is written and loops clean.
    @Test func aSingleClipLoopsWithACrossfade() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep([
            "stitch", Run.fixture("seam-jump.mp4"), "--loop", "--transition", "crossfade", "--duration", "0.3", "-o",
            out,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // 30 frames, less the 9-frame wrap-around overlap.
        #expect(try Self.frameHashes(out).count == 21)
        let analyze = try Run.loopprep(["analyze", out])
        #expect(!analyze.stdout.contains("seam-visual-jump") && !analyze.stdout.contains("seam-audio-click"))
    }

    /// --normalize re-encodes clips of another size, frame rate, codec, sample rate and channel count to the first
    /// clip's format (pictures fitted with bars, frames mapped to the output's rate, audio resampled).
    @Test func normalizeJoinsDifferentClips() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir, count: 1)
        let other = dir.appendingPathComponent("other.mp4").path
        _ = try Self.run([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-f", "lavfi",
            "-i", "sine=frequency=500:sample_rate=48000", "-t", "2", "-ac", "2", "-c:v", "libx264", "-preset",
            "veryfast",
            "-pix_fmt", "yuv420p", "-c:a", "aac", other,
        ])
        let out = dir.appendingPathComponent("out.mp4").path
        let refused = try Run.loopprep(["stitch", clips[0], other, Run.fixture("vp9-opus.webm"), "-o", out])
        #expect(refused.status == 1 && refused.stderr.contains("--normalize re-encodes them"))
        let run = try Run.loopprep([
            "stitch", clips[0], other, Run.fixture("vp9-opus.webm"), "--normalize", "--transition", "crossfade",
            "--duration", "0.5", "-o", out, "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // 60 + 60 (2 s at 30 fps) + 30 (the WebM's 30 frames: the 7 ms its muxer moved the video for the Opus
        // pre-skip is under half a frame, so the video is moved back, not cut), less two 15-frame crossfades.
        let tracks =
            ((try run.file()["facts"] as? [String: Any])?["tracks"] as? [[String: Any]]) ?? []
        #expect(tracks.first?["frameCount"] as? Int == 120)
        #expect(tracks.first?["width"] as? Int == 160)
        #expect(tracks.first { $0["kind"] as? String == "audio" }?["sampleRate"] as? Int == 44100)
        #expect(try Self.decodeErrors(out) == "")
    }

    @Test func playlistErrorsAreClearAndWriteNothing() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        func playlist(_ text: String) throws -> Run {
            let file = dir.appendingPathComponent("p.json")
            try text.write(to: file, atomically: true, encoding: .utf8)
            return try Run.loopprep(["stitch", "--playlist", file.path, "-o", out])
        }
        let missing = try playlist(#"{"clips": [{"path": "nope.mp4"}]}"#)
        // A clip that is not there is an input that cannot be read: exit 2, as the README's table says.
        #expect(missing.status == 2 && missing.stderr.contains("clip nope.mp4 does not exist"))
        // Times as the command line reads them: "0.5s", "250ms", "12f" (at the clip's 30 fps).
        let timed = try Run.loopprep([
            "stitch", "--playlist",
            try {
                let file = dir.appendingPathComponent("t.json")
                let clean = Run.fixture("clean.mp4")
                let text = [
                    #"{"clips": [{"path": "\#(clean)", "out": "0.5s", "#,
                    #""transition": {"type": "slide", "duration": "12f"}}, {"path": "\#(clean)", "in": "250ms"}]}"#,
                ].joined()
                try text.write(to: file, atomically: true, encoding: .utf8)
                return file.path
            }(), "-o", out, "--dry-run",
        ])
        #expect(timed.status == 0, "\(timed.stdout)\(timed.stderr)")
        #expect(timed.stdout.contains("clean.mp4: 0.100-0.500 s (12 frames)"), "\(timed.stdout)")
        // Frame ranges name the first and the last frame shown, as loop's do: 0.5 s is 0-14.
        #expect(timed.stdout.contains("0.000-0.500 s  frames 0-14  "), "\(timed.stdout)")
        #expect(try playlist(#"{"clips": [{"path": "\#(Run.fixture("clean.mp4"))", "out": "12x"}]}"#).status == 64)
        let bad = try playlist(#"{"clips": [ {"path": }"#)
        #expect(bad.status == 64 && bad.stderr.contains("not a playlist"))
        let backwards = try playlist(#"{"clips": [{"path": "\#(Run.fixture("clean.mp4"))", "in": 2, "out": 1}]}"#)
        #expect(backwards.status == 64 && backwards.stderr.contains("in point at or after its out point"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// In and out points: clip 1 from 0.25 s (frame 8, inside a GOP) to 1.5 s, clip 2 from 0.5 s, clip 3 to 1.2 s.
    @Test func inAndOutPoints() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir)
        let file = dir.appendingPathComponent("p.json")
        try #"""
        {"clips": [{"path": "clip1.mp4", "in": 0.25, "out": 1.5, "transition": {"type": "crossfade", \#
        "duration": 0.3}}, {"path": "clip2.mp4", "in": 0.5}, {"path": "clip3.mp4", "out": 1.2}]}
        """#
        .write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.mp4").path
        let run = try Run.loopprep(["stitch", "--playlist", file.path, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        // 37 + 45 + 36 frames, less a 9-frame crossfade.
        let output = try Self.frameHashes(out)
        #expect(output.count == 109)
        #expect(try Self.decodeErrors(out) == "")
        // Clip 2 starts at output frame 28; from its keyframe at source frame 30 on it is copied.
        let two = try Self.frameHashes(clips[1])
        let three = try Self.frameHashes(clips[2])
        #expect(Array(output[(28 + 15)..<(28 + 45)]) == Array(two[30..<60]))
        // Clip 3 (output 73..<109) is copied from its first keyframe to its out point's safe cut.
        #expect(Array(output[(73 + 10)..<(73 + 30)]) == Array(three[10..<30]))
    }

    @Test func playlistWithPerJoinTransitionsAndDryRun() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir)
        let file = dir.appendingPathComponent("p.json")
        try #"""
        {"clips": [{"path": "clip1.mp4", "transition": {"type": "fade-black", "duration": 1}}, {"path": \#
        "clip2.mp4"}, {"path": "clip3.mp4"}]}
        """#
        .write(to: file, atomically: true, encoding: .utf8)
        let run = try Run.loopprep(["stitch", "--playlist", file.path, "--dry-run"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("fade-black into"))
        #expect(run.stdout.contains("timeline: 3 clips, 5.000 s = 150 frames"))
        #expect(run.stdout.contains("dry run: nothing written"))
        _ = clips
    }

    @Test func foldersInNaturalOrder() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir, count: 2, seconds: 1)
        try FileManager.default.moveItem(atPath: clips[1], toPath: dir.appendingPathComponent("clip10.mp4").path)
        let run = try Run.loopprep(["stitch", dir.path, "--dry-run"])
        #expect(run.status == 0)
        let order = run.stdout.split(separator: "\n").filter { $0.contains(".mp4") }.map {
            String($0.split(separator: "/").last ?? "")
        }
        #expect(order == ["clip1.mp4", "clip10.mp4"])
    }
}

extension StitchCommandTests {
    /// --loop: the page lists every clip and join in order and names the wrap-around join; the picture labels it.
    @Test func theLoopJoinIsLabelledOnThePage() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try Self.makeClips(in: dir)
        let page = dir.appendingPathComponent("r.html")
        #expect(
            try Run.loopprep(
                ["stitch"] + clips + [
                    "--transition", "crossfade", "--duration", "0.5", "--loop", "--dry-run", "--html", page.path,
                ]
            ).status == 0)
        let doc = try XMLDocument(contentsOf: page, options: .nodePreserveWhitespace)
        // Three 60-frame clips, three 15-frame crossfades: 135 frames; the loop join is the last 15 (4.0 to 4.5 s).
        let events = try doc.nodes(forXPath: "//*[local-name()='ol'][@class='events']/*[local-name()='li']").compactMap(
            \.stringValue)
        #expect(events.count == 6)
        #expect(
            events.last
                == """
                4.000\u{2013}4.500 s \u{21BB} loop join: crossfade 0.500 s (15 frames) from clip3.mp4 back into \
                clip1.mp4; its opening frames play here, under the crossfade, so the file starts after them
                """
        )
        #expect(events.first?.hasPrefix("0.000\u{2013}1.500 s") == true && events.first?.contains("clip1.mp4") == true)
        let label = try doc.nodes(
            forXPath: "//*[local-name()='svg']//*[local-name()='text'][contains(@class,'wrap-label')]"
        ).compactMap(\.stringValue)
        #expect(label == ["\u{21BB} loop join: crossfade 0.500 s back into clip1.mp4"])
        // The picture keeps its labels at their size on a phone: it scrolls rather than shrinks.
        let source = try String(contentsOf: page, encoding: .utf8)
        #expect(source.contains("svg.timeline { width: 100%; min-width: 760px;"))
        #expect(try doc.nodes(forXPath: "//*[local-name()='div'][@class='scroll']/*[local-name()='svg']").count == 1)
    }

    /// Joins are rendered on worker threads beside the writer: the output is byte-identical with one
    /// worker and with several, in every codec stitch re-encodes (each run has its own decoders, drawers and
    /// encoder; the writer writes runs in the plan's order).
    @Test(arguments: [
        ["h264-gop10-a.mp4", "h264-gop10-b.mp4", "h264-gop10-a.mp4", "h264-gop10-b.mp4"],
        ["hevc-gop10-a.mp4", "hevc-gop10-b.mp4", "hevc-gop10-a.mp4"],
        ["vp9-gop10-a.webm", "vp9-gop10-b.webm", "vp9-gop10-a.webm"],
        // B-frames: runs that start late in a GOP skip the unreferenced ones.
        ["qp30.mp4", "qp30.mp4", "qp30.mp4"],
    ])
    func theOutputIsTheSameAtAnyParallelism(clips: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ext = (clips[0] as NSString).pathExtension
        var outputs: [Data] = []
        for workers in ["1", "3"] {
            let out = dir.appendingPathComponent("stitch-\(workers).\(ext)").path
            let run = try Run.loopprep(
                ["stitch"] + clips.map(Run.fixture) + ["--transition", "crossfade", "--duration", "0.2", "-o", out],
                environment: ["LOOPPREP_RENDER_WORKERS": workers])
            #expect(run.status == 0, "\(workers): \(run.stdout)\(run.stderr)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(outputs[0].count > 10_000 && outputs[0] == outputs[1])
    }

    /// A join is re-encoded at the quality of the pictures it replaces: qp30.mp4 is coded at constant
    /// quantizer 30 (fixtures/make-fixtures.sh), so its run is made at x264 crf 24 (30 less six: RunQuality), as
    /// the encoder's own settings record in the stream, not at the fixed 17 that turned 5 Mb/s joins into 40.
    @Test func aJoinIsReencodedAtItsSourcesQuality() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("joined.mp4").path
        let run = try Run.loopprep([
            "stitch", Run.fixture("qp30.mp4"), Run.fixture("qp30.mp4"), "--transition", "crossfade", "--duration",
            "0.5", "-o", out,
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        let settings = String(decoding: bytes, as: UTF8.self)
        #expect(settings.components(separatedBy: "crf=24.0 ").count - 1 == 1)
        #expect(!settings.contains("crf=17.0"))
    }

    /// A join is coded with x264's ultrafast tools where every clip it draws on was (h264-ultrafast.mp4: the
    /// recipe's -preset ultrafast, subme=0), with superfast's where one was not (h264-gop10-a.mp4, veryfast): the
    /// settings each run's encoder writes into its first frame (stitchable=1 is the runs' alone) say so.
    @Test func aJoinIsCodedWithItsSourcesTools() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("joined.mp4").path
        let run = try Run.loopprep(
            ["stitch"] + ["h264-ultrafast.mp4", "h264-ultrafast.mp4", "h264-gop10-a.mp4"].map(Run.fixture) + [
                "--transition", "crossfade", "--duration", "0.2", "-o", out,
            ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let bytes = String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self)
        let runs = bytes.components(separatedBy: "x264 - core ").dropFirst().map { $0.prefix { $0 != "\0" } }
            .filter { $0.contains(" stitchable=1 ") }
        // Two joins, one run each: the first between the ultrafast clips, the second into the veryfast one.
        #expect(runs.count == 2)
        #expect(runs.first?.contains(" subme=0 ") == true && runs.first?.contains(" deblock=0:0:0 ") == true)
        #expect(runs.last?.contains(" subme=1 ") == true)
    }
}
