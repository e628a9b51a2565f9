import Testing

@testable import LoopAnalysis

/// The rule every output passes against FFmpeg's own reading: frames exactly, audio within half a sample at
/// the decoder's rate, times within the container's tick.
@Suite struct IndependentCheckTests {
    typealias Track = IndependentReading.Track
    static let plan = [
        ExpectedTrack(kind: .video, duration: .one, frames: 30), ExpectedTrack(kind: .audio, duration: .one),
    ]

    static func reading(
        videoEnd: Rational = .one, frames: Int = 30, audioStart: Rational = .zero, audioEnd: Rational = .one,
        rate: Int = 48000, tick: Rational = .zero
    ) -> IndependentReading {
        IndependentReading(tracks: [
            Track(index: 0, kind: .video, codec: "h264", start: .zero, end: videoEnd, frames: frames, tick: tick),
            Track(
                index: 1, kind: .audio, codec: "aac", start: audioStart, end: audioEnd, sampleRate: rate, tick: tick),
        ])
    }

    @Test func agreementIsNil() {
        #expect(IndependentCheck.disagreement(Self.plan, Self.reading()) == nil)
        #expect(Self.reading().tracks[1].samples == 48000)
    }

    @Test func aFrameMoreOrLessIsADisagreement() throws {
        let said = try #require(IndependentCheck.disagreement(Self.plan, Self.reading(frames: 29)))
        #expect(said == "video track 0 (h264) presents 29 frames in FFmpeg's reading, planned 30")
    }

    /// Half a sample at 48 kHz is 1/96000 s: within it is a match, one sample is not.
    @Test func audioWithinHalfASampleAgrees() throws {
        #expect(IndependentCheck.disagreement(Self.plan, Self.reading(audioEnd: .one + Rational(1, 96000))) == nil)
        let said = try #require(
            IndependentCheck.disagreement(Self.plan, Self.reading(audioEnd: .one - Rational(1, 48000))))
        #expect(said.hasPrefix("audio track 1 (aac) presents 999.979 ms in FFmpeg's reading, planned 1000.000 ms"))
        #expect(said.contains("-1 samples"))
    }

    /// HE-AAC: the decoder's rate is twice the core rate; a length is compared in time, at the decoder's rate.
    @Test func heAACIsJudgedAtItsOutputRate() {
        #expect(IndependentCheck.disagreement(Self.plan, Self.reading(rate: 48000)) == nil)
        let half = Self.reading(audioEnd: Rational(1, 2), rate: 48000)
        #expect(IndependentCheck.disagreement(Self.plan, half)?.contains("planned 1000.000 ms") == true)
    }

    /// Matroska's millisecond: a track placed within one tick agrees.
    @Test func matroskaTimesAgreeToTheirMillisecond() {
        let ms = Rational(1, 1000)
        #expect(
            IndependentCheck.disagreement(Self.plan, Self.reading(audioStart: ms, audioEnd: .one + ms, tick: ms)) == nil
        )
        #expect(
            IndependentCheck.disagreement(Self.plan, Self.reading(audioStart: ms * 2, audioEnd: .one + ms * 2)) != nil)
    }

    @Test func aDecoderDisagreementOrAMissingTrackRefuses() {
        var r = Self.reading()
        r.tracks[0].decoderDisagrees = "FFmpeg's decoder shows 9 of the last GOP's 10 frames"
        #expect(IndependentCheck.disagreement(Self.plan, r)?.hasPrefix("video track 0 (h264): FFmpeg's") == true)
        let one = IndependentReading(tracks: [Self.reading().tracks[0]])
        #expect(IndependentCheck.disagreement(Self.plan, one)?.contains("1 audio and video tracks") == true)
    }

    /// A file of one track is in sync with nothing: FFmpeg times a raw MP3 from its first frame (the LAME
    /// delay included), a player from its first sample.
    @Test func aLoneTrackIsJudgedByItsLength() {
        let lone = IndependentReading(tracks: [
            Track(
                index: 0, kind: .audio, codec: "mp3", start: Rational(1105, 44100), end: .one + Rational(1105, 44100),
                sampleRate: 44100)
        ])
        #expect(IndependentCheck.disagreement([ExpectedTrack(kind: .audio, duration: .one)], lone) == nil)
    }
}
