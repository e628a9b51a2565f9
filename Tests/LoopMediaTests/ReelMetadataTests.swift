import Foundation
import TestSupport
import Testing

@testable import LoopMedia

/// A Matroska reel's check holds the tags its plan keeps: a reel FFmpeg reads without one of them is refused,
/// naming it. The tags are meta-opus.mp4's -metadata arguments (fixtures/make-metadata.sh, 7).
@Suite struct ReelMetadataTests {
    @Test func aReelWithoutATagItsPlanKeepsIsRefused() throws {
        let kept = ReelMetadata(carried: ["Sunset", "2019"], dropped: [])
        // The fixture itself holds both tags.
        #expect(try kept.refusal(reel: Repository.fixture("meta-opus.mp4"))?.sentence == nil)
        // A Matroska file made without them (another fixture) is refused, each lost value named.
        let refusal = try kept.refusal(reel: Repository.fixture("mkv-pair-a.mkv"))
        #expect(
            refusal?.kind == .metadataLost
                && refusal?.sentence == "the reel does not keep the first clip's tags (\"Sunset\", \"2019\")")
    }

    /// Planned from the first clip: its tags (the encoder's name is the writer's to give) are kept, the XMP uuid is
    /// named; an MP4 reel, or a first clip that is no MP4, leaves out nothing.
    @Test func thePlanKeepsTagsAndNamesTheRest() throws {
        let clip = try Stitcher.prepare(Repository.fixture("meta-opus.mp4"))
        let plan = try #require(try ReelMetadata.plan(clip, format: .matroska))
        #expect(Set(plan.carried) == ["Sunset", "2019", "+48.8584+002.2945/", "2019-06-01T18:30:00.000000Z"])
        #expect(plan.dropped == ["file: uuid (XMP)"])
        #expect(try ReelMetadata.plan(clip, format: .mp4) == nil)
        let other = try Stitcher.prepare(Repository.fixture("mkv-pair-a.mkv"))
        #expect(try ReelMetadata.plan(other, format: .matroska) == nil)
    }
}
