import Foundation
import TestSupport
import Testing

@testable import LoopIndex

/// A Matroska file cut off inside an element (an interrupted upload, `head -c`): FFmpeg reads it as a shorter
/// healthy clip, loopprep says it is truncated. Recorders write the Segment and Clusters with unknown sizes, so the
/// blocks themselves are walked.
@Suite struct MatroskaLayoutTests {
    final class Bytes: ByteSource {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var size: Int64 { Int64(bytes.count) }
        func read(at offset: Int64, count: Int) throws -> [UInt8] {
            Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }
    }

    /// EBML header (4-byte id, 1-byte size, 4 bytes), a Segment and a Cluster of unknown size (8 bytes of ones, as a
    /// live writer leaves them), a Timestamp and two SimpleBlocks of 5 and 6 bytes, then a second unknown Cluster
    /// with one block: 75 bytes whole.
    static let recording: [UInt8] =
        [0x1A, 0x45, 0xDF, 0xA3, 0x84, 1, 2, 3, 4]
        + [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        + [0x1F, 0x43, 0xB6, 0x75, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [0xE7, 0x81, 0x00]
        + [0xA3, 0x85, 0x81, 0, 0, 0x80, 9] + [0xA3, 0x86, 0x81, 0, 33, 0, 9, 9]
        + [0x1F, 0x43, 0xB6, 0x75, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [0xE7, 0x81, 0x42]
        + [0xA3, 0x87, 0x81, 0, 0, 0x80, 9, 9, 9]

    @Test func aWholeRecordingIsWhole() throws {
        #expect(Self.recording.count == 75)
        #expect(try MatroskaLayout.brokenOff(Bytes(Self.recording)) == nil)
    }

    /// Cut inside the last block's data, inside its header, or inside the first cluster's second block: the block
    /// that breaks off is named. Cut at a block's end, every block is whole.
    @Test func aRecordingCutShortIsTruncated() throws {
        let lastBlock: Int64 = 66
        #expect(try MatroskaLayout.brokenOff(Bytes(Array(Self.recording.prefix(72)))) == lastBlock)
        #expect(try MatroskaLayout.brokenOff(Bytes(Array(Self.recording.prefix(67)))) == lastBlock)
        #expect(try MatroskaLayout.brokenOff(Bytes(Array(Self.recording.prefix(48)))) == 43)
        #expect(try MatroskaLayout.brokenOff(Bytes(Array(Self.recording.prefix(51)))) == nil)
    }

    /// Bytes after the last element that are no element (a writer's zero padding) are no cut; nor are bytes after a
    /// Segment of known size. The recording has no Cues; a Cues element after the clusters is found.
    @Test func paddingIsNoCutAndCuesAreFound() throws {
        #expect(try MatroskaLayout.brokenOff(Bytes(Self.recording + [0, 0, 0, 0])) == nil)
        #expect(try MatroskaLayout.scan(Bytes(Self.recording)).cues == false)
        let cues: [UInt8] = [0x1C, 0x53, 0xBB, 0x6B, 0x82, 0xBB, 0x80]
        #expect(try MatroskaLayout.scan(Bytes(Self.recording + cues)) == .init(brokenOff: nil, cues: true))
    }

    /// The recipe on a browser recording (fixtures/make-recordings.sh: `head -c 35000`): unreadable,
    /// truncated, in analyze and fix alike; nothing written.
    @Test func theCutRecordingIsUnreadable() throws {
        let cut = Repository.fixture("rec-vp8-opus-cut.webm")
        #expect(try MatroskaLayout.brokenOff(LocalFile(cut)) != nil)
        #expect(try MatroskaLayout.brokenOff(LocalFile(Repository.fixture("rec-vp8-opus.webm"))) == nil)
    }
}
