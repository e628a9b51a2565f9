import Foundation
import Testing
import LoopAnalysis
@testable import LoopMedia

/// Containers other than MP4 (issue 11), analysis side: each is read, and its figures come from how the
/// fixture was made (fixtures/make-fixtures.sh).
@Suite struct ContainerTests {
    /// FLV and MPEG-PS declare their streams only with the packets: they used to be "unreadable".
    @Test(arguments: [("rtmp.flv", "h264", "aac", 30), ("camcorder.mpg", "mpeg2video", "mp2", 25)])
    func streamsThatComeWithThePacketsAreRead(file: String, video: String, audio: String, frames: Int) throws {
        let facts = try Probe.facts(path: Fixtures.path(file))
        #expect(facts.mainVideo?.codec == video && facts.mainAudio?.codec == audio)
        #expect(facts.mainVideo?.frameCount == frames)
        // 1 s of video: frames / fps.
        #expect(facts.mainVideo?.durationSeconds == Rational(1))
        #expect(!Analyzer.findings(in: facts).contains { $0.rule == "timestamp-gap" })
    }

    /// MPEG-TS never starts at 0: what counts is the offset between tracks. FFmpeg's AAC encoder primes 1024
    /// samples, written before the video's first frame: the video starts 1024 / rate later than the audio (one
    /// tick of the container's clock either way), and nothing else is offset.
    @Test(arguments: [("broadcast.ts", 44100, Rational(1, 90000)), ("camera.m2ts", 48000, Rational(1, 90000)),
                      ("rtmp.flv", 44100, Rational(1, 1000))])
    func onlyTheOffsetBetweenTracksCounts(file: String, rate: Int, tick: Rational) throws {
        let facts = try Probe.facts(path: Fixtures.path(file))
        let video = try #require(facts.mainVideo), audio = try #require(facts.mainAudio)
        #expect(audio.startSeconds.isZero)
        #expect((video.startSeconds - Rational(1024, Int64(rate))).magnitude <= tick)
        if file.hasSuffix("ts") { #expect((facts.clockOrigin ?? .zero) > Rational(1)) }
        let offsets = Analyzer.findings(in: facts).filter { $0.rule == "start-offset" }
        #expect(offsets.count == 1 && offsets[0].track == video.index)
        // 44.1 kHz AAC on the 90 kHz clock: frames of 2089.8 ticks rounded by the muxer are not holes.
        #expect(!Analyzer.findings(in: facts).contains { $0.rule == "timestamp-gap" })
    }
}
