import Testing

@testable import LoopAnalysis

/// The web loop's appends: loop k's offset and window from the loop length and the origin, exact.
@Suite struct WebLoopTests {
    static func loop(length: Rational, origin: Rational) -> WebLoop {
        let video = WebLoop.Track(kind: .video, codec: "h264", codecs: "avc1.64000c", length: length)
            .starting(at: origin)
        let audio = WebLoop.Track(
            kind: .audio, codec: "aac", codecs: "mp4a.40.2", length: length, sampleRate: 48000, primingSamples: 1024
        )
        .starting(at: origin)
        return WebLoop(
            sources: [
                .init(media: "a.web.video0.mp4", mime: WebLoop.mime(container: "mp4", tracks: [video])),
                .init(media: "a.web.audio1.mp4", mime: WebLoop.mime(container: "mp4", tracks: [audio])),
            ], fallback: "a.mp4", origin: origin, length: length, tracks: [video, audio])
    }

    /// 60 frames at 30000/1001 (2.002 s) from an origin of 1 s: loop 3 is offset 3 x 2.002 - 1 and kept in
    /// [6.006, 8.008); each track's first presented instant (at the origin) lands on the window's start.
    @Test func eachLoopStartsWhereThePreviousEnds() {
        let length = Rational(60 * 1001, 30000)
        let loop = Self.loop(length: length, origin: .one)
        let third = loop.append(3)
        #expect(third.timestampOffset == Rational(6006, 1000) - .one)
        #expect(third.windowStart == Rational(6006, 1000) && third.windowEnd == Rational(8008, 1000))
        #expect(loop.origin + third.timestampOffset == third.windowStart)
        for k in 0..<10 { #expect(loop.append(k).windowEnd == loop.append(k + 1).windowStart) }
        #expect(loop.tracks[1].samples == 96096)
        #expect(loop.sources[0].mime == "video/mp4; codecs=\"avc1.64000c\"")
        #expect(loop.sources[1].mime == "audio/mp4; codecs=\"mp4a.40.2\"")
    }

    /// A source that holds five loops is appended at loops 0, 5, 10 with a five-loop window; a first file that
    /// holds 20 ms before its loop is placed 20 ms earlier, its window where loop 0's is.
    @Test func aSourceOfSeveralLoopsAndAFirstFileWithALead() {
        let loop = Self.loop(length: Rational(2002, 1000), origin: .zero)
        let group = loop.append(5, loops: 5)
        #expect(group.timestampOffset == Rational(10010, 1000))
        #expect(group.windowStart == Rational(10010, 1000) && group.windowEnd == Rational(20020, 1000))
        let first = loop.append(0, loops: 5, lead: Rational(1, 50))
        #expect(first.timestampOffset == -Rational(1, 50) && first.windowStart == .zero)
        // One loop is the default: `loops` of 1 and a lead without a first file are not written.
        let source = WebLoop.Source(media: "a.webm", mime: "audio/webm", loops: 1, firstLead: Rational(1, 50))
        #expect(source.loops == nil && source.firstLead == nil)
    }
}

/// How Opus is encoded again over the loop repeated: whole frames of whole milliseconds per append.
@Suite struct ContinuousOpusTests {
    /// 2 s at 48 kHz is 100 frames of 20 ms; 29.97 fps x 60 frames is 96096 samples, which 20 ms frames divide ten
    /// loops at a time (96096 = 2^5 x 3 x 7 x 11 x 13 and 960 = 2^6 x 3 x 5: 960 / gcd = 10), 20.02 s an append;
    /// 0.5 s is 25 frames of 20 ms. 48001 samples (odd) would need 960 loops of 20 ms frames, 480 of 10 ms or 240 of
    /// 5 ms, each over 30 s; 480096 samples (10.002 s, gcd 96 with 960 and 480, 48 with 240) would need 10, 5 and 5
    /// loops, each over 30 s: both keep their own encoding.
    @Test func theLongestFrameWhoseAppendsFit() {
        #expect(ContinuousOpus.plan(samples: 96000) == .init(frameSize: 960, loops: 1, samples: 96000))
        #expect(ContinuousOpus.plan(samples: 96096) == .init(frameSize: 960, loops: 10, samples: 96096))
        #expect(ContinuousOpus.plan(samples: 24000) == .init(frameSize: 960, loops: 1, samples: 24000))
        #expect(ContinuousOpus.plan(samples: 48001) == nil)
        #expect(ContinuousOpus.plan(samples: 480_096) == nil)
        #expect(ContinuousOpus.plan(samples: 0) == nil)
        // The longest frame that fits wins over fewer loops: 1440 samples take 20 ms frames two loops at a time,
        // not 10 ms frames one at a time; 720 samples four at a time. 5 ms frames only where nothing longer fits:
        // 720240 samples (15.005 s; gcd 240 with 960 and 480) need 4 loops of 20 ms, 2 of 10 ms (both over 30 s),
        // 1 of 5 ms.
        #expect(ContinuousOpus.plan(samples: 1440) == .init(frameSize: 960, loops: 2, samples: 1440))
        #expect(ContinuousOpus.plan(samples: 720) == .init(frameSize: 960, loops: 4, samples: 720))
        #expect(ContinuousOpus.plan(samples: 720_240) == .init(frameSize: 240, loops: 1, samples: 720_240))
        // One loop an append is always taken, however long.
        #expect(ContinuousOpus.plan(samples: 48000 * 600)?.loops == 1)
    }

    /// libopus delays its output by 312 samples: a 20 ms frame once rounded up, so the encoder is first fed the
    /// loop's last 648 samples; packet j then decodes the loop from (j - 1) x 960. The first append is packets
    /// 0-100 (its pre-roll and the first period), every later one packets 101-200.
    @Test func theEncoderIsFedTheLoopsTailThenTheLoop() {
        let plan = ContinuousOpus(frameSize: 960, loops: 1, samples: 96000)
        #expect(plan.preSkipPackets(delay: 312) == 1)
        #expect(plan.source(0, delay: 312) == 96000 - 648)
        #expect(plan.source(648, delay: 312) == 0)
        // Output sample d is input d - 312: for d = 960 (packet 1's first), the loop's sample 0.
        #expect(plan.source(960 - 312, delay: 312) == 0)
        #expect(plan.first(delay: 312) == 0..<101 && plan.kept(delay: 312) == 101..<201)
        #expect(plan.inputLength(delay: 312) == 202 * 960)
        let short = ContinuousOpus(frameSize: 240, loops: 1, samples: 24000)
        #expect(short.preSkipPackets(delay: 312) == 2 && short.source(0, delay: 312) == 24000 - 168)
    }
}
