import Testing

@testable import LoopAnalysis

/// The web loop's appends (issue 22): loop k's offset and window from the loop length and the origin, exact.
@Suite struct WebLoopTests {
    static func loop(length: Rational, origin: Rational) -> WebLoop {
        let video = WebLoop.Track(kind: .video, codec: "h264", codecs: "avc1.64000c", start: origin, length: length)
        let audio = WebLoop.Track(
            kind: .audio, codec: "aac", codecs: "mp4a.40.2", start: origin, length: length, sampleRate: 48000,
            primingSamples: 1024)
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
}
