import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopMedia

/// A loop's copied cut takes its seam's last pictures from the search's decoding (SourcePictures),
/// and only where the first pictures this reading decodes from the file are the search's: the same packets from
/// the same keyframe. The search's pictures are LoopSearch's own reading of each fixture.
@Suite struct SourcePicturesTests {
    static func seam(_ file: String, given: SourcePictures? = nil) throws -> SeamFacts {
        let probe = try Probe.probe(Fixtures.path(file))
        return try SeamProbe.measure(try #require(probe.input), facts: probe.facts, capture: false, given: given).seam
    }

    static func frames(_ file: String) throws -> [FrameSignature] {
        try LoopSearch.signatures(Fixtures.path(file)).frames
    }

    /// A whole clip's first and last three pictures as the search read them give the figures a decoding of its
    /// last GOP gives: H.264 with B-frames in MP4 and in Matroska, VP9 with Opus in WebM, HEVC.
    @Test(arguments: ["loop-period45.mp4", "footage-gop250.mp4", "footage-phone.mkv", "loop-period45.webm", "hevc.mp4"])
    func theSearchsPicturesAreTheDecodersPictures(file: String) throws {
        let frames = try Self.frames(file)
        try #require(frames.count >= 6)
        let given = SourcePictures(first: Array(frames.prefix(3)), last: Array(frames.suffix(3)))
        let decoded = try Self.seam(file)
        #expect(decoded.videoDifference != nil)
        #expect(try Self.seam(file, given: given) == decoded)
    }

    /// Where the head matches, the last pictures are the given ones, not decoded: given frames 10-12 as the last,
    /// the seam is frame 12 against frame 0 and the motion frame 11 against 12, by SeamPicture's measure; the
    /// audio is the file's own.
    @Test func theLastPicturesAreTakenWhereTheHeadMatches() throws {
        let file = "footage-phone.mkv"
        let frames = try Self.frames(file)
        let given = SourcePictures(first: Array(frames[0..<3]), last: Array(frames[10..<13]))
        let seam = try Self.seam(file, given: given)
        let decoded = try Self.seam(file)
        func step(_ a: FrameSignature, _ b: FrameSignature) -> Double {
            SeamPicture.difference(a.luma, a.chroma, b.luma, b.chroma)
        }
        #expect(seam.videoDifference == step(frames[12], frames[0]))
        #expect(seam.videoMotion == step(frames[11], frames[12]))
        #expect(seam.videoDifference != decoded.videoDifference)
        #expect(seam.audioJump == decoded.audioJump && seam.audioWrap == decoded.audioWrap)
    }

    /// A head that is not the file's (frames 1-3 given as the first): the tail is decoded, the figures the file's.
    @Test func aHeadThatDiffersIsDecoded() throws {
        let file = "footage-phone.mkv"
        let frames = try Self.frames(file)
        let given = SourcePictures(first: Array(frames[1..<4]), last: Array(frames[10..<13]))
        #expect(try Self.seam(file, given: given) == (try Self.seam(file)))
    }
}

/// A loop range that shows every frame of the clip (its sound outlasts its picture, and the range trims only the
/// sound) is measured with the whole clip's first and last pictures, its audio read again: audio-longer.mp4 (its
/// tone 0.5 s past its picture, make-fixtures.sh).
@Suite struct SpanPicturesTests {
    static func span(_ facts: ClipFacts, lessFrames: Int = 0) throws -> (start: Rational, end: Rational) {
        let video = try #require(facts.mainVideo)
        let frame = Rational(try #require(video.nominalFrameDuration)) * video.timeBase
        return (video.startSeconds, video.startSeconds + video.durationSeconds - frame * Int64(lessFrames))
    }

    static func seam(
        _ file: String, span: (ClipFacts) throws -> (start: Rational, end: Rational), given: SourcePictures? = nil
    ) throws -> SeamFacts {
        let probe = try Probe.probe(Fixtures.path(file))
        return try SeamProbe.measure(
            try #require(probe.input), facts: probe.facts, capture: false, span: try span(probe.facts), given: given
        ).seam
    }

    /// Given frames 10-12 as the last, the span's seam is frame 12 against frame 0 (not decoded); one frame shorter,
    /// the span's own last frames are decoded whatever is given; with the whole clip's own pictures (as ClipAnalysis
    /// gives them) its figures are the ones a decoding of its tail gives.
    @Test func aSpanShowingEveryFrameTakesTheClipsPictures() throws {
        let file = "audio-longer.mp4"
        let frames = try LoopSearch.signatures(Fixtures.path(file)).frames
        try #require(frames.count >= 13)
        let fake = SourcePictures(first: Array(frames[0..<3]), last: Array(frames[10..<13]))
        let taken = try Self.seam(file, span: { try Self.span($0) }, given: fake)
        let step = SeamPicture.difference(frames[12].luma, frames[12].chroma, frames[0].luma, frames[0].chroma)
        #expect(taken.videoDifference == step)
        let shorter = { (facts: ClipFacts) in try Self.span(facts, lessFrames: 1) }
        #expect(try Self.seam(file, span: shorter, given: fake) == (try Self.seam(file, span: shorter)))
        let probe = try Probe.probe(Fixtures.path(file))
        let whole = try SeamProbe.measure(try #require(probe.input), facts: probe.facts, capture: false)
        let pictures = try #require(whole.pictures)
        let decoded = try Self.seam(file, span: { try Self.span($0) })
        #expect(decoded.videoDifference != nil && decoded.audioJump != nil)
        #expect(try Self.seam(file, span: { try Self.span($0) }, given: pictures) == decoded)
        // The span ends the sound with the picture: its audio is not the whole clip's.
        #expect(decoded.audioJump != whole.seam.audioJump || decoded.audioWrap != whole.seam.audioWrap)
    }
}
