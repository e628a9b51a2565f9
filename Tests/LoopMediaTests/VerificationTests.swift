import CFFmpeg
import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// The independent check: FFmpeg's own demuxer and decoders read every output before it is kept.
/// Expected figures come from how the fixtures were made (fixtures/make-fixtures.sh), never from loopprep.
@Suite struct VerificationTests {
    /// clean.mp4: 1 s of bars at 30 fps and a 1 s tone at 48 kHz, AAC priming signalled by an edit list.
    @Test func ffmpegReadsACleanClipAsItWasMade() throws {
        let reading = try FFmpegReading.read(Fixtures.path("clean.mp4"))
        let video = try #require(reading.tracks.first { $0.kind == .video })
        let audio = try #require(reading.tracks.first { $0.kind == .audio })
        #expect(video.frames == 30 && video.start == .zero && video.end == .one && video.decoderDisagrees == nil)
        #expect(audio.start == .zero && audio.sampleRate == 48000 && audio.samples == 48000)
        let plan = [
            ExpectedTrack(kind: .video, duration: .one, frames: 30), ExpectedTrack(kind: .audio, duration: .one),
        ]
        #expect(SecondReading.refusal(plan, output: Fixtures.path("clean.mp4")) == nil)
    }

    /// A file whose video edit list was cut to 29 frames' length behind the plan's back (box surgery on the
    /// elst's segment duration): the check refuses it, naming the track and the figures.
    @Test func anEditListThatDisagreesWithThePlanIsRefused() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("patched.mp4").path
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("clean.mp4"))))
        let moov = try #require(try MiniBox.read(Fixtures.path("clean.mp4")).first { $0.type == "moov" })
        let timescale = Int64(try #require(moov.child("mvhd")).u32(12))
        let video = try #require(
            moov.all("trak").first { $0.path("mdia", "hdlr")?.payload[8..<12] == [0x76, 0x69, 0x64, 0x65] })
        let elst = try #require(video.path("edts", "elst"))
        #expect(elst.payload[0] == 0)  // version 0: 32-bit segment duration at payload offset 8
        let duration = UInt32(timescale * 29 / 30)
        for i in 0..<4 { bytes[elst.offset + 8 + 8 + i] = UInt8(truncatingIfNeeded: duration >> (24 - 8 * UInt32(i))) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let plan = [
            ExpectedTrack(kind: .video, duration: .one, frames: 30), ExpectedTrack(kind: .audio, duration: .one),
        ]
        let refusal = try #require(SecondReading.refusal(plan, output: path))
        #expect(refusal.hasPrefix("nothing written: FFmpeg's own reading of the output disagrees with loopprep's plan"))
        // The demuxer puts the edit's end on the media clock (15360 ticks a second), to the nearest tick.
        let presented = Rational((Rational(Int64(duration), timescale) * 15360).rounded, 15360)
        #expect(
            refusal.contains(
                "video track 0 (h264) presents \(Figures.ms(presented)) in FFmpeg's reading, planned 1000.000 ms"))
    }

    /// Vorbis in Ogg: FFmpeg's decoder labels the first sample one first-packet late; the reading takes
    /// libvorbis's start (0) and the granule's length: loop-vorbis.ogg is 1 s at 44.1 kHz, 44100 samples.
    @Test func vorbisInOggIsReadAsLibvorbisPlaysIt() throws {
        let reading = try FFmpegReading.read(Fixtures.path("loop-vorbis.ogg"))
        let audio = try #require(reading.tracks.first)
        #expect(audio.start == .zero && audio.sampleRate == 44100 && audio.samples == 44100)
    }

    /// CMAF (trun version 1, negative composition offsets, global sidx) and an HLS fMP4 download, each 1 s of
    /// bars at 30 fps with AAC whose priming no edit list signals: the tracks start together, so fix hides the
    /// priming and keeps every frame: 30 frames and 48000 samples, as ffmpeg and the edit list say too.
    @Test(arguments: ["cmaf-sidx.mp4", "hls-fmp4.mp4"])
    func fragmentedClipsKeepEveryFrameAndSample(file: String) throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix(file, in: dir)
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        #expect(try FFmpegDecode.frames(out).count == 30)
        let moov = try #require(try MiniBox.read(out).first { $0.type == "moov" })
        let timescale = Int64(try #require(moov.child("mvhd")).u32(12))
        let audio = try #require(
            moov.all("trak").first { $0.path("mdia", "hdlr")?.payload[8..<12] == [0x73, 0x6F, 0x75, 0x6E] })
        let elst = try #require(audio.path("edts", "elst"))
        #expect(Int64(elst.u32(8)) * 48000 == 48000 * timescale)
        #expect(Int64(elst.u32(12)) == 1024)
        let reading = try FFmpegReading.read(out)
        #expect(reading.tracks.first { $0.kind == .audio }?.samples == 48000)
    }
}

/// A file fix would copy unchanged but FFmpeg reads differently (WMA: its decoder's first frame is a warm-up):
/// nothing written, and the sentence says it is loopprep's reading of the input that differs, not a fix.
@Suite struct UnchangedButReadOtherwiseTests {
    @Test func anUnchangedCopyFFmpegReadsOtherwiseIsSaidSo() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("wma-tone.wma", in: dir)
        #expect(report.fix?.status == .failed)
        #expect(report.fix?.plan?.isNoop == true)
        #expect(
            report.fix?.reason?.hasPrefix(
                "nothing written: fix would copy it unchanged, but FFmpeg reads it otherwise than loopprep does (audio "
                    + "track 0 (wmav2) presents") == true, "\(report.fix?.reason ?? "")")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

/// No FFmpeg or errno text reaches a user without loopprep's own words first.
@Suite struct ErrorWordsTests {
    @Test(arguments: [
        ("open", lp_error_invaliddata, "not a video or audio file FFmpeg recognises"),
        ("read packet", lp_error_invaliddata, "the file is damaged partway through"),
        ("read packet", lp_error_eof, "it is truncated"),
        ("decode", lp_error_invaliddata, "a frame does not decode"),
        ("seek", lp_averror(EPERM), "FFmpeg cannot seek in this file"),
        ("open", lp_averror(EACCES), "permission denied"),
        ("frobnicate", lp_averror(EINVAL), "FFmpeg failed while loopprep was doing this: frobnicate"),
    ])
    func ffmpegCodesAreExplained(operation: String, code: Int32, words: String) {
        let said = MediaError.describe(MediaError(operation, code: code))
        #expect(said.hasPrefix(words) || said.contains(words), "\(said)")
        #expect(!said.hasPrefix("\(operation):"))
        #expect(said.hasSuffix(")") && said.contains("(FFmpeg: \(operation): "))
    }

    /// loopprep's own reasons are its words already.
    @Test func loopprepsOwnReasonsStand() {
        #expect(MediaError.describe(MediaError("open", reason: "empty file (0 bytes)")) == "open: empty file (0 bytes)")
    }
}
