import Foundation
import TestSupport
import Testing

/// Audio encoded again (--seam-fade, --loops) keeps everything but the samples: the format (sample size, rate and
/// channels as FFmpeg decodes the input), the tags, the cover picture. tagged-cover.flac and tagged-cover.mp3
/// (fixtures/make-metadata.sh, 9: metaflac's and mid3v2's tags and a 32x32 PNG front cover), alac.m4a (16-bit),
/// he-aac-sbr.mp4 (fixtures/make-fixtures.sh: a 24 kHz mono AAC core whose configuration signals SBR, which FFmpeg
/// decodes at 48 kHz in stereo) and he-aac-v2.aac (pymediainfo's HE-AACv2, fixtures/third-party.md). Everything is
/// read back by ffprobe and ffmpeg.
@Suite struct AudioReencodeTests {
    /// ffprobe's entries of the file's streams (or its format), one line a stream.
    static func probe(_ path: String, _ entries: String, streams: String = "a:0") throws -> [String] {
        try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", streams, "-show_entries", entries, "-of", "csv=p=0", path,
        ])
        .stdout.split(separator: "\n").map(String.init)
    }

    /// The file's tags as FFmpeg reads them (format and streams), each "key=value".
    static func tags(_ path: String) throws -> Set<String> {
        let out = try Run.tool(["ffprobe", "-v", "error", "-show_format", "-show_streams", path]).stdout
        return Set(
            out.split(separator: "\n").filter { $0.hasPrefix("TAG:") && !$0.hasPrefix("TAG:encoder=") }.map(String.init)
        )
    }

    /// Writes `input` fixed with `options` into a new folder; the output's path.
    static func fixed(_ input: String, _ options: [String], ext: String, in dir: URL) throws -> String {
        let out = dir.appendingPathComponent("out.\(ext)").path
        let run = try Run.loopprep(["fix", Run.fixture(input), "-o", out] + options)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        return out
    }

    @Test(arguments: ["tagged-cover.flac", "tagged-cover.mp3"])
    func tagsAndCoverSurvive(_ name: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ext = (name as NSString).pathExtension
        let dry = try Run.loopprep(["fix", Run.fixture(name), "--seam-fade", "10ms", "--dry-run"]).stdout
        #expect(dry.contains("keeps the attached picture Cover (front) (png 32x32)"), "\(dry)")
        let out = try Self.fixed(name, ["--seam-fade", "10ms"], ext: ext, in: dir)
        // The recipe's tags, in their own case, and the cover's bytes.
        let input = Run.fixture(name)
        #expect(try Self.tags(out) == Self.tags(input))
        #expect(try Self.tags(out).contains("TAG:REPLAYGAIN_TRACK_GAIN=-3.20 dB"))
        // The cover's bytes as FFmpeg hands them out of each file: a 32x32 PNG, the same.
        var pictures: [Data?] = []
        for (file, copy) in [(input, "in.png"), (out, "out.png")] {
            let picture = dir.appendingPathComponent(copy).path
            try Run.tool(["ffmpeg", "-v", "error", "-i", file, "-map", "0:v", "-c", "copy", "-f", "image2", picture])
            pictures.append(FileManager.default.contents(atPath: picture))
        }
        #expect(pictures[0]?.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(pictures[1] == pictures[0])
        // The format: the recipe's stereo (and FLAC's 16 bits).
        #expect(
            try Self.probe(out, "stream=channels,sample_rate,bits_per_raw_sample")
                == Self.probe(input, "stream=channels,sample_rate,bits_per_raw_sample"))
    }

    /// FLAC's encoder lists 16 bits first: a 24-bit track (tone-24bit.flac, make-metadata.sh 9) was written in 16.
    @Test func flacKeepsItsTwentyFourBits() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try Self.fixed("tone-24bit.flac", ["--seam-fade", "10ms"], ext: "flac", in: dir)
        #expect(try Self.probe(Run.fixture("tone-24bit.flac"), "stream=sample_fmt,bits_per_raw_sample") == ["s32,24"])
        #expect(try Self.probe(out, "stream=sample_fmt,bits_per_raw_sample") == ["s32,24"])
    }

    /// ALAC's encoder takes 16 or 24 bits: a 16-bit track is written in 16.
    @Test func alacKeepsItsSampleSize() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try Self.fixed("alac.m4a", ["--seam-fade", "10ms"], ext: "m4a", in: dir)
        #expect(try Self.probe(Run.fixture("alac.m4a"), "stream=sample_fmt,bits_per_raw_sample") == ["s16p,16"])
        #expect(try Self.probe(out, "stream=codec_name,sample_fmt,bits_per_raw_sample") == ["alac,s16p,16"])
    }

    /// Between the fades (10 ms, 441 samples at 44.1 kHz, at each end of alac-loud.m4a's 44100: make-metadata.sh,
    /// 19) every sample is the source's. FFmpeg reads 16 bits as n / 32768; loopprep wrote them back as x * 32767,
    /// one step low wherever the tone passed half scale.
    @Test func aLosslessTrackKeepsItsSamplesBetweenTheFades() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try Self.fixed("alac-loud.m4a", ["--seam-fade", "10ms"], ext: "m4a", in: dir)
        let source = try Self.shorts(Run.fixture("alac-loud.m4a"), in: dir)
        let written = try Self.shorts(out, in: dir)
        #expect(source.count == 44100 && written.count >= source.count)
        let inside = 441..<(source.count - 441)
        #expect(source[inside].contains { abs(Int($0)) > 16384 }, "the tone passes half scale")
        let differing = inside.filter { written[$0] != source[$0] }
        #expect(differing.isEmpty, "\(differing.count) samples differ, the first at \(differing.first ?? 0)")
    }

    /// FFmpeg's decode of the first audio track as 16-bit samples (mono).
    static func shorts(_ path: String, in dir: URL) throws -> [Int16] {
        let raw = dir.appendingPathComponent(UUID().uuidString + ".s16").path
        try Run.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-f", "s16le", "-ac", "1", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The peak of the decoded samples in [from, to) of `samples` (all channels interleaved, `channels` a frame).
    static func peak(_ samples: [Float], channels: Int, from: Int, to: Int) -> Float {
        samples[(from * channels)..<(to * channels)].map(abs).max() ?? 0
    }

    /// HE-AAC is written as AAC-LC at the rate and channels FFmpeg decodes it at, said before writing, and faded at
    /// both ends (a fade once placed on the core's clock left the end unfaded).
    @Test func heAACIsWrittenAsItPlays() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Run.fixture("he-aac-sbr.mp4")
        // FFmpeg's own reading of the input, which decodes it.
        let played = try Self.probe(input, "stream=sample_rate,channels")
        #expect(played == ["48000,2"])
        let dry = try Run.loopprep(["fix", input, "--seam-fade", "10ms", "--dry-run"]).stdout
        #expect(
            dry.contains("encoded again as AAC-LC at the rate and channels it plays at (48000 Hz, 2 channels)"),
            "\(dry)")
        let out = try Self.fixed("he-aac-sbr.mp4", ["--seam-fade", "10ms"], ext: "mp4", in: dir)
        #expect(try Self.probe(out, "stream=profile,sample_rate,channels") == ["LC,48000,2"])
        // 64 kb/s a channel or more, not the HE-AAC's 32 kb/s for both.
        let rate = try Self.probe(out, "stream=bit_rate").first.flatMap { Int($0) } ?? 0
        #expect(rate >= 100_000)
        let samples = try Self.decoded(out)
        let frames = samples.count / 2
        // The middle plays the tone; the first and last millisecond are inside the 10 ms quarter-sine fades, whose
        // gain there is at most sin(pi/2 x 0.1) = 0.16.
        let middle = Self.peak(samples, channels: 2, from: frames / 2, to: frames / 2 + 480)
        #expect(middle > 0.1)
        #expect(Self.peak(samples, channels: 2, from: 0, to: 48) < 0.3 * middle)
        #expect(Self.peak(samples, channels: 2, from: frames - 48, to: frames) < 0.3 * middle)
    }

    /// The output's audio as FFmpeg decodes it: 32-bit floats, channels interleaved.
    static func decoded(_ path: String) throws -> [Float] {
        let (out, _, _) = try Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["ffmpeg", "-v", "error", "-i", path, "-map", "0:a", "-f", "f32le", "-"])
        return out.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// A third party's HE-AACv2 (ADTS, SBR and parametric stereo signalled implicitly: its header says AAC-LC at
    /// 22050 Hz, one channel) is named and written as AAC-LC at its played rate in stereo. Which HE-AAC it is named
    /// follows the decoder's profile: FFmpeg 5.1's says HE-AACv2, 7.1's leaves the header's LC (implicit SBR is then
    /// found by the rate the decoder plays at, and named HE-AAC).
    @Test func heAACv2IsNamed() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Run.fixture("he-aac-v2.aac")
        let dry = try Run.loopprep(["fix", input, "--seam-fade", "10ms", "--dry-run"]).stdout
        #expect(dry.contains(/is HE-AAC(v2)?: FFmpeg has no encoder for it/), "\(dry)")
        #expect(dry.contains("(44100 Hz, 2 channels)"), "\(dry)")
        let run = try Run.loopprep(["fix", input, "-o", dir.path, "--seam-fade", "10ms"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent("he-aac-v2.m4a").path
        #expect(try Self.probe(out, "stream=profile,sample_rate,channels") == ["LC,44100,2"])
    }
}
