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

/// A loop range measured after the whole clip takes the pictures the clip's reading kept where they are its own: a
/// range that shows every frame (its sound outlasts its picture, and the range trims only the sound), or one that
/// ends a few frames before the picture does; only its audio is read again. audio-longer.mp4 (its tone 0.5 s past
/// its picture, make-fixtures.sh), 30 fps.
@Suite struct SpanPicturesTests {
    static let file = "audio-longer.mp4"

    static func span(_ facts: ClipFacts, lessFrames: Int = 0) throws -> (start: Rational, end: Rational) {
        let video = try #require(facts.mainVideo)
        let frame = Rational(try #require(video.nominalFrameDuration)) * video.timeBase
        return (video.startSeconds, video.startSeconds + video.durationSeconds - frame * Int64(lessFrames))
    }

    static func seam(
        lessFrames: Int?, given: SourcePictures? = nil, seen: SeamPictures? = nil, of file: String = file
    ) throws -> SeamFacts {
        let probe = try Probe.probe(Fixtures.path(file))
        return try SeamProbe.measure(
            try #require(probe.input), facts: probe.facts, capture: false,
            span: try lessFrames.map { try span(probe.facts, lessFrames: $0) }, given: given, seen: seen
        ).seam
    }

    /// The whole clip's reading, and what it kept.
    static func whole(_ file: String = file) throws -> (seam: SeamFacts, pictures: SeamPictures) {
        let measured = try seam(lessFrames: nil, of: file)
        let probe = try Probe.probe(Fixtures.path(file))
        let read = try SeamProbe.measure(try #require(probe.input), facts: probe.facts, capture: false)
        #expect(read.seam == measured)
        return (read.seam, try #require(read.pictures))
    }

    /// Given frames 10-12 as the last, a range showing every frame has frame 12 against frame 0 as its seam (not
    /// decoded); with the clip's own pictures its figures are those a decoding of its tail gives, for a range that
    /// shows every frame and for ranges 1, 2 and 4 frames shorter (the clip's reading kept its last seven).
    @Test func aRangeTakesThePicturesTheClipsReadingKept() throws {
        let frames = try LoopSearch.signatures(Fixtures.path(Self.file)).frames
        try #require(frames.count >= 13)
        let fake = SourcePictures(first: Array(frames[0..<3]), last: Array(frames[10..<13]))
        let step = SeamPicture.difference(frames[12].luma, frames[12].chroma, frames[0].luma, frames[0].chroma)
        #expect(try Self.seam(lessFrames: 0, given: fake).videoDifference == step)
        let (whole, pictures) = try Self.whole()
        #expect(pictures.recent.count == 7 && pictures.first.count == 3)
        for less in [0, 1, 2, 4] {
            let decoded = try Self.seam(lessFrames: less)
            #expect(decoded.videoDifference != nil && decoded.audioJump != nil)
            #expect(try Self.seam(lessFrames: less, seen: pictures) == decoded, "\(less) frames shorter")
        }
        // The range ends the sound with the picture: its audio is not the whole clip's.
        let range = try Self.seam(lessFrames: 0)
        #expect(range.audioJump != whole.audioJump || range.audioWrap != whole.audioWrap)
    }

    /// The pictures kept are the ones taken: the clip's last seven replaced by frames 20-26, a range two frames
    /// shorter has frame 24 as its last (against frame 0); one five frames shorter (two kept before its end) is
    /// decoded, whatever was kept.
    @Test func theKeptPicturesAreTakenByTime() throws {
        let frames = try LoopSearch.signatures(Fixtures.path(Self.file)).frames
        try #require(frames.count >= 27)
        var (_, pictures) = try Self.whole()
        for (k, frame) in frames[20..<27].enumerated() {
            pictures.recent[k].thumbnail = Thumbnail(luma: frame.luma, chroma: frame.chroma)
        }
        let step = SeamPicture.difference(frames[24].luma, frames[24].chroma, frames[0].luma, frames[0].chroma)
        #expect(try Self.seam(lessFrames: 2, seen: pictures).videoDifference == step)
        #expect(try Self.seam(lessFrames: 5, seen: pictures) == (try Self.seam(lessFrames: 5)))
    }

    /// The kept pictures are taken only where the range's tail starts at the keyframe the clip's did: start-offset.mp4
    /// (make-fixtures.sh: 42 frames, a keyframe every 6, the last at frame 36) is read from frame 36 whole (its last
    /// seven frames wanted, 35 is before that keyframe: six kept, frames 36-41, replaced here by 20-25). A range two
    /// frames short seeks to frame 36 too and takes frames 37-39 (its seam frame 23 against 0); three short, it seeks
    /// to frame 35, lands on the keyframe at 30 and is decoded, whatever was kept.
    @Test func theKeptPicturesAreTakenFromTheSameKeyframe() throws {
        let file = "start-offset.mp4"
        let frames = try LoopSearch.signatures(Fixtures.path(file)).frames
        try #require(frames.count == 42)
        var (_, pictures) = try Self.whole(file)
        try #require(pictures.recent.count == 6)
        for (k, frame) in frames[20..<26].enumerated() {
            pictures.recent[k].thumbnail = Thumbnail(luma: frame.luma, chroma: frame.chroma)
        }
        let step = SeamPicture.difference(frames[23].luma, frames[23].chroma, frames[0].luma, frames[0].chroma)
        #expect(try Self.seam(lessFrames: 2, seen: pictures, of: file).videoDifference == step)
        #expect(
            try Self.seam(lessFrames: 3, seen: pictures, of: file) == (try Self.seam(lessFrames: 3, of: file)))
    }
}
