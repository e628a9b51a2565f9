import Foundation
import TestSupport
import Testing

/// What a Matroska file carries beside its tracks (fixtures/make-robust.sh: an attached font, an attached cover and
/// two chapters at 0 and 1 s, made by mkvmerge and by FFmpeg's -attach): fix's copy keeps each, the chapters cut to
/// the range, into Matroska and, where MP4 has a place (chapters, covr), into MP4, naming the font it leaves out.
/// Read back by ffprobe, the bytes as FFmpeg hands them out.
@Suite struct CarriedTests {
    static func probe(_ path: String, _ entries: String) throws -> [String] {
        try Run.tool(["ffprobe", "-v", "error", "-show_entries", entries, "-of", "csv=p=0", path]).stdout
            .split(separator: "\n").map(String.init)
    }

    /// An attachment's bytes as FFmpeg dumps them (`t:N`: the Nth attachment; a cover is one in Matroska).
    static func dumped(_ path: String, attachment n: Int, into dir: URL) throws -> Data? {
        let file = dir.appendingPathComponent("dump-\(UUID().uuidString)").path
        _ = try Run.tool(["ffmpeg", "-v", "error", "-y", "-dump_attachment:t:\(n)", file, "-i", path])
        return FileManager.default.contents(atPath: file)
    }

    /// A stream's one packet (an attached picture's bytes), as FFmpeg copies it out.
    static func picture(_ path: String, into dir: URL) throws -> Data? {
        let file = dir.appendingPathComponent("pic-\(UUID().uuidString)").path
        _ = try Run.tool(["ffmpeg", "-v", "error", "-y", "-i", path, "-map", "0:v:1", "-c", "copy", "-f", "data", file])
        return FileManager.default.contents(atPath: file)
    }

    /// The chapters the cut must hold, from the input's own (ffprobe's) and where the cut starts (the video's first
    /// frame, where fix rebases it): each moved back by that start and clamped to the 2 s output, in milliseconds.
    static func expectedChapters(_ input: String) throws -> [String] {
        let start = try #require(Double(try Self.probe(input, "stream=start_time").first ?? ""))
        return try Self.probe(input, "chapter=start_time,end_time:chapter_tags=title").map { row in
            let f = row.split(separator: ",").map(String.init)
            let from = max((Double(f[0]) ?? 0) - start, 0)
            let to = min((Double(f[1]) ?? 0) - start, 2.0)
            return String(format: "%.3f,%.3f,%@", from, to, f[2])
        }
    }

    static func chapters(_ path: String) throws -> [String] {
        try Self.probe(path, "chapter=start_time,end_time:chapter_tags=title").map { row in
            let f = row.split(separator: ",").map(String.init)
            return String(format: "%.3f,%.3f,%@", Double(f[0]) ?? -1, Double(f[1]) ?? -1, f[2])
        }
    }

    @Test(arguments: [("mkv-attachments.mkv", "cover.png"), ("mkv-attachments-ffmpeg.mkv", "cover.jpg")])
    func attachmentsCoverAndChaptersAreKept(_ name: String, cover: String) throws {
        let input = Run.fixture(name)
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let said = "keeps the attached file font.ttf, 2 chapters (cut to the output) and the attached picture \(cover)"
        #expect(try Run.loopprep(["fix", input, "--dry-run"]).stdout.contains(said))
        let run = try Run.loopprep(["fix", input, "-o", dir.path])
        #expect(run.stdout.contains(said), "\(run.stdout)")
        let out = dir.appendingPathComponent(name).path
        #expect(try Self.probe(out, "stream=codec_type:stream_tags=filename").contains("attachment,font.ttf"))
        // The font's bytes and the cover's, as FFmpeg hands them out of the input and of the output.
        let font = try Self.dumped(out, attachment: 0, into: dir)
        #expect(font == Data("loopprep test font: not a real typeface\n".utf8))
        let coverIn = try #require(try Self.picture(input, into: dir))
        #expect(!coverIn.isEmpty)
        #expect(try Self.picture(out, into: dir) == coverIn)
        #expect(try Self.probe(out, "stream_disposition=attached_pic").filter { $0 == "1" }.count == 1)
        // The chapters, cut with the picture.
        let expected = try Self.expectedChapters(input)
        #expect(expected.count == 2)
        #expect(try Self.chapters(out) == expected)

        // MP4: the chapters (its chapter track) and the cover (covr); the font has no place, and is named.
        let mp4 = dir.appendingPathComponent("converted.mp4").path
        let converted = try Run.loopprep(["fix", input, "-o", mp4, "--to", "mp4"])
        #expect(converted.status == 0, "\(converted.stdout)\(converted.stderr)")
        let note =
            "keeps 2 chapters (cut to the output) and the attached picture \(cover); leaves out the attached file"
        #expect(converted.stdout.contains(note), "\(converted.stdout)")
        #expect(try Self.chapters(mp4) == expected)
        #expect(try Self.picture(mp4, into: dir) == coverIn)
        #expect(!(try Self.probe(mp4, "stream=codec_type").contains("attachment")))
    }
}

/// Streams no FFmpeg muxer writes (fixtures/make-metadata.sh, 14): an Ogg Skeleton added by oggz-chop and a DVD's
/// navigation packets from FFmpeg's dvd muxer, each beside sound that runs past the picture, so fix writes the file
/// again. The plan names each before writing; the output (read by ffprobe) has the picture and the sound alone.
@Suite struct OtherStreamsTests {
    @Test(arguments: [
        ("ogg-skeleton.ogg", "out.ogg", "the Ogg skeleton (stream 0)"),
        ("dvd-nav.vob", "out.mp4", "the DVD navigation packets (stream 0)"),
    ])
    func namedAsLeftOut(_ name: String, output: String, said: String) throws {
        let input = Run.fixture(name)
        // What the input is, by ffprobe: the stream at 0 is the one named, no audio or video.
        // (An MPEG-2 stream's row carries an empty side-data column: the kind is the row's first field.)
        let kinds = { (path: String) in
            try CarriedTests.probe(path, "stream=codec_type").map { $0.split(separator: ",").first.map(String.init) }
        }
        #expect(try kinds(input) == ["data", "video", "audio"])
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let note = "note: leaves out \(said)"
        #expect(try Run.loopprep(["fix", input, "--dry-run"]).stdout.contains(note))
        let out = dir.appendingPathComponent(output).path
        let run = try Run.loopprep(["fix", input, "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(note), "\(run.stdout)")
        #expect(try kinds(out) == ["video", "audio"])
    }
}

/// Subtitles beside the picture (fixtures/make-robust.sh: SubRip cues by mkvmerge, WebVTT in WebM by FFmpeg, 2 s of
/// picture beside 2.5 s of sound, so fix cuts at the picture's end): kept in Matroska and WebM, each cue where the
/// output shows it, the one across the end shortened to it, the one after it gone; named as left out in MP4.
@Suite struct SubtitleTests {
    @Test(arguments: ["subs-srt.mkv", "subs-webvtt.webm"])
    func cuesAreCutWithThePicture(_ name: String) throws {
        let input = Run.fixture(name)
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The cut: the picture's 2 s from its first frame, or from 0 where that frame is under half a frame (20 ms at
        // 25 fps) late and moved to 0.
        let video = try #require(Double(try CarriedTests.probe(input, "stream=start_time").first ?? ""))
        let start = video >= 0.02 ? video : 0
        let end = start + 2
        let inputCues = try subtitleCues(input)
        #expect(inputCues.count == 3)
        let expected = inputCues.filter { $0.0 < end && $0.0 + $0.1 > start }.map { cue in
            (max(cue.0, start) - start, min(cue.0 + cue.1, end) - max(cue.0, start))
        }
        #expect(expected.count == 2)
        let out = dir.appendingPathComponent("out-" + name).path
        let run = try Run.loopprep(["fix", input, "-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let written = try subtitleCues(out)
        #expect(written.count == expected.count)
        for (w, e) in zip(written, expected) {
            #expect(abs(w.0 - e.0) < 0.0015 && abs(w.1 - e.1) < 0.0015, "\(written) against \(expected)")
        }
        // MP4 has no place for them: named before writing, the file without them.
        let mp4 = dir.appendingPathComponent("out.mp4").path
        if name.hasSuffix(".mkv") {
            let converted = try Run.loopprep(["fix", input, "--to", "mp4", "-o", mp4])
            #expect(converted.status == 0, "\(converted.stdout)\(converted.stderr)")
            #expect(converted.stdout.contains("FFmpeg's MP4 muxer takes no subrip subtitles"), "\(converted.stdout)")
            #expect(!(try CarriedTests.probe(mp4, "stream=codec_type").contains { $0.hasPrefix("subtitle") }))
        }
    }

    /// The subtitle stream's cues alone.
    func subtitleCues(_ path: String) throws -> [(Double, Double)] {
        try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "s", "-show_entries", "packet=pts_time,duration_time", "-of",
            "csv=p=0", path,
        ]).stdout.split(separator: "\n").compactMap { row in
            let f = row.split(separator: ",").compactMap { Double($0) }
            return f.count == 2 ? (f[0], f[1]) : nil
        }
    }
}
