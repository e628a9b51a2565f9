import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopIndex
@testable import LoopMedia

/// An MP4 whose index says everything is analysed without FFmpeg: its streams are read from the sample entries.
/// FFmpeg's own demuxer is the judge of that reading, on every MP4 and MOV fixture.
@Suite struct IndexOnlyTests {
    static var isoFixtures: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Repository.fixtures.path)) ?? []
        return names.filter { ["mp4", "mov", "m4a", "m4v", "3gp"].contains(($0 as NSString).pathExtension) }.sorted()
    }

    /// What the sample entries say is what FFmpeg's mov demuxer says, stream by stream, field by field.
    @Test(arguments: isoFixtures)
    func theIndexReadsStreamsAsFFmpegDoes(name: String) throws {
        let path = Fixtures.path(name)
        // A file that is not readable at all (zero-bytes.mp4) has no streams to compare.
        guard let size = try? Probe.fileSize(path), let iso = try? ISOFile.read(path: path, fileSize: size),
            let own = iso.streamBasics()
        else { return }
        let input = try InputFile(path: path)
        #expect(input.formatName == ISOFile.demuxerName)
        let ffmpeg = (0..<input.streamCount).map { input.basics($0) }
        #expect(own == ffmpeg, "\(name)")
    }

    /// The codec configuration fix reads a frame's NAL lengths with is taken from the sample
    /// entry's avcC or hvcC; FFmpeg's extradata for the stream is the judge, on every H.264 and HEVC fixture.
    @Test(arguments: isoFixtures)
    func theIndexGivesTheCodecConfigurationFFmpegDoes(name: String) throws {
        let path = Fixtures.path(name)
        guard let result = try? Probe.probe(path, keepInput: false, locations: true), result.iso != nil else { return }
        let input = try InputFile(path: path)
        for track in result.facts.tracks where track.codec == "h264" || track.codec == "hevc" {
            let own = FrameBytes.extradata(result, track: track.index)
            #expect(own != nil, "\(name) track \(track.index)")
            #expect(own == input.extradata(track.index), "\(name) track \(track.index)")
        }
    }

    /// The whole facts agree too: the probe without FFmpeg and the probe through FFmpeg's demuxer (kept for a
    /// seam check), on every fixture the index reads alone.
    @Test(arguments: isoFixtures)
    func factsWithoutFFmpegAreTheFactsWithIt(name: String) throws {
        let path = Fixtures.path(name)
        guard let size = try? Probe.fileSize(path), let iso = try? ISOFile.read(path: path, fileSize: size),
            iso.streamBasics() != nil
        else { return }
        // A file both refuse (truncated.mp4) is refused in the same words.
        let refusal = { (keep: Bool) -> String? in
            do { _ = try Probe.probe(path, keepInput: keep) } catch { return MediaError.describe(error) }
            return nil
        }
        #expect(refusal(false) == refusal(true), "\(name)")
        guard refusal(true) == nil else { return }
        let indexOnly = try Probe.probe(path, keepInput: false)
        let withFFmpeg = try Probe.probe(path, keepInput: true)
        #expect(indexOnly.input == nil && withFFmpeg.input != nil)
        #expect(indexOnly.facts == withFFmpeg.facts, "\(name)")
        #expect(indexOnly.timelines == withFFmpeg.timelines, "\(name)")
    }

    /// The common shapes do take the index-only path (the comparison above is not empty), and the shapes it
    /// leaves to FFmpeg do not: a cover picture, a timecode track, HE-AAC, PCM, fragments.
    @Test func theIndexOnlyPathCoversTheCommonShapesAndNoOthers() throws {
        func pure(_ name: String) throws -> Bool {
            let path = Fixtures.path(name)
            return try ISOFile.read(path: path, fileSize: try Probe.fileSize(path))?.streamBasics() != nil
        }
        for name in [
            "clean.mp4", "clean-2997.mp4", "clean-44k.mp4", "hevc.mp4", "hevc-hev1.mp4", "rotated.mp4",
            "video-only.mp4", "audio-only.m4a", "two-audio.mp4", "moov-at-end.mp4", "negative-cts.mp4",
            "surround-51.mp4", "h264-10bit.mp4", "gst-opus.mp4",
        ] {
            #expect(try pure(name), "\(name) should be read from its index alone")
        }
        for name in [
            "cover-art.mp4", "chapters-timecode.mov", "he-aac-sbr.mp4", "prores-pcm.mov", "fragmented.mp4",
            "text.mp4",
        ] {
            #expect(try !pure(name), "\(name) should be left to FFmpeg")
        }
    }

    /// Shapes made here with the ffmpeg CLI, beyond the fixtures: stereo Opus, 44.1 kHz stereo AAC, a video turned
    /// 180 and 90 degrees, a language in mdhd, HEVC tagged hvc1. Each is read from its index alone, as FFmpeg reads it.
    @Test(arguments: [
        ["-f", "lavfi", "-i", "sine=duration=1", "-ac", "2", "-c:a", "libopus", "-strict", "-2"],
        ["-f", "lavfi", "-i", "sine=duration=1:sample_rate=44100", "-ac", "2", "-c:a", "aac"],
        ["-metadata:s:v", "rotate=180", "-metadata:s:v", "language=fra", "-c:v", "libx264"],
        ["-metadata:s:v", "rotate=90", "-c:v", "libx264", "-profile:v", "main", "-pix_fmt", "yuv420p"],
        ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", "log-level=none"],
        // QuickTime: a version 1 sound description, its esds inside a wave box.
        ["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", "-f", "mov"],
    ])
    func shapesMadeHereReadAsFFmpegReadsThem(arguments: [String]) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("shape.mp4").path
        let video = arguments.contains("-c:v") ? ["-f", "lavfi", "-i", "testsrc=size=64x36:rate=25:duration=1"] : []
        let made = try Tool.run(
            "ffmpeg", ["-nostdin", "-v", "error"] + video + arguments + (video.isEmpty ? [] : ["-an"]) + [path])
        #expect(made.status == 0, "\(String(decoding: made.err, as: UTF8.self))")
        let iso = try #require(try ISOFile.read(path: path, fileSize: try Probe.fileSize(path)))
        let own = try #require(iso.streamBasics(), "\(arguments) should be read from its index alone")
        let input = try InputFile(path: path)
        #expect(own == (0..<input.streamCount).map { input.basics($0) })
        #expect(try Probe.probe(path, keepInput: false).facts == (try Probe.probe(path, keepInput: true).facts))
    }
}
