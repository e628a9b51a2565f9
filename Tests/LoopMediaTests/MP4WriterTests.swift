import LoopAnalysis
import Testing

@testable import LoopIndex
@testable import LoopMedia

/// The writer's layout on values: a well interleaved source keeps its order (the media copies in one range);
/// one whose tracks sit in blocks is re-interleaved in half-second chunks.
@Suite struct MP4WriterTests {
    /// `count` samples of `size` bytes and `duration` ticks each, at the given offsets.
    static func track(_ id: Int, offsets: [Int64], size: Int64, duration: Int64) -> TrackLayout {
        TrackLayout(
            trackID: id,
            entries: offsets.enumerated().map { i, offset in
                .init(
                    location: SampleLocation(offset: offset, size: size), duration: duration, compositionOffset: 0,
                    isSync: true, sourceIndex: i)
            }, mediaTime: 0, editDuration: 0, pcm: nil)
    }

    @Test func aWellInterleavedSourceKeepsItsOrder() throws {
        // 2 s of 30 fps video (100-byte frames) and 48 kHz audio (10-byte packets of 1024), alternating a frame
        // and a packet in the file, back to back.
        var v: [Int64] = []
        var a: [Int64] = []
        var at: Int64 = 0
        for _ in 0..<60 {
            v.append(at)
            at += 100
            a.append(at)
            at += 10
        }
        let tracks = [
            Self.track(1, offsets: v, size: 100, duration: 512), Self.track(2, offsets: a, size: 10, duration: 1024),
        ]
        let chunks = try #require(MP4Writer.sourceOrder(tracks, timescales: [15360, 48000]))
        #expect(chunks.count == 120 && chunks.allSatisfy { $0.entries.count == 1 })
        #expect(chunks.reduce(0) { $0 + $1.bytes } == 60 * 110)
    }

    @Test func tracksInBlocksAreReinterleaved() {
        // All 2 s of video first, then all the audio: in file order the video leads by 2 s.
        let v = (0..<60).map { Int64($0) * 100 }
        let a = (0..<94).map { 6000 + Int64($0) * 10 }
        let tracks = [
            Self.track(1, offsets: v, size: 100, duration: 512), Self.track(2, offsets: a, size: 10, duration: 1024),
        ]
        #expect(MP4Writer.sourceOrder(tracks, timescales: [15360, 48000]) == nil)
        let chunks = MP4Writer.interleave(tracks, timescales: [15360, 48000])
        // Half-second chunks: 4 of video (15 frames), 4 of audio (24, 24, 24, 22 packets), alternating by time.
        #expect(chunks.map(\.track) == [0, 1, 0, 1, 0, 1, 0, 1])
        #expect(chunks.filter { $0.track == 0 }.map(\.entries.count) == [15, 15, 15, 15])
        #expect(chunks.filter { $0.track == 1 }.map(\.entries.count) == [24, 24, 24, 22])
    }
}
