import Testing

@testable import LoopAnalysis
@testable import LoopIndex

/// A FLAC frame header's block size, by the format's table: 4 bits coding 192, 576 x 2^(n-2), 256 x 2^(n-8), or an
/// 8- or 16-bit size less one after the UTF-8-coded frame number; and the packets laid end to end on the sample
/// clock where mkvmerge's millisecond blocks drift from them.
@Suite struct FLACFrameTests {
    func samples(_ bytes: [UInt8]) -> Int64? { bytes.withUnsafeBufferPointer(FLACFrame.samples) }

    @Test func theBlockSizeIsTheHeadersCode() {
        // Code 12: 256 x 2^4 = 4096 (FFmpeg's 44.1 kHz frames are 4608: code 7, 16 bits, 4607).
        #expect(samples([0xFF, 0xF8, 0xC9, 0x08, 0x00, 0x00]) == 4096)
        #expect(samples([0xFF, 0xF8, 0x19, 0x08, 0x00, 0x00]) == 192)
        #expect(samples([0xFF, 0xF8, 0x59, 0x08, 0x00, 0x00]) == 4608)
        // Code 7 after a one-byte frame number, and after a two-byte one (frame 200: C3 88).
        #expect(samples([0xFF, 0xF8, 0x79, 0x08, 0x05, 0x11, 0xFF, 0x00]) == 4608)
        #expect(samples([0xFF, 0xF8, 0x79, 0x08, 0xC3, 0x88, 0x11, 0xFF, 0x00]) == 4608)
        // Code 6: an 8-bit size less one.
        #expect(samples([0xFF, 0xF8, 0x69, 0x08, 0x00, 0x7F, 0x00]) == 128)
        // Not a frame: no sync, a reserved code.
        #expect(samples([0x00, 0xF8, 0xC9, 0x08, 0x00, 0x00]) == nil)
        #expect(samples([0xFF, 0xF8, 0x09, 0x08, 0x00, 0x00]) == nil)
    }

    /// Blocks of 4608 samples at 44.1 kHz stored at 0, 104, 208, 313, ..., 730, 836 ms (mkvmerge's): laid end to
    /// end at 4608 each; a block 200 ms off its place starts anew there.
    @Test func blocksAreLaidEndToEnd() throws {
        let stored: [Int64] = [0, 104, 208, 313, 417, 521, 626, 730, 836]
        let list = stored.map { SampleTiming(dts: $0, pts: $0, duration: 104, isSync: true) }
        let t = try #require(
            SampleClock.timeline(
                list, lengths: Array(repeating: 4608, count: list.count), rate: 44100, timeBase: Rational(1, 1000)))
        #expect(t.samples.map(\.pts) == (0..<9).map { Int64($0) * 4608 })
        let moved = list + [SampleTiming(dts: 1140, pts: 1140, duration: 104, isSync: true)]
        let u = try #require(
            SampleClock.timeline(
                moved, lengths: Array(repeating: 4608, count: moved.count), rate: 44100, timeBase: Rational(1, 1000)))
        #expect(u.samples.last?.pts == 50274)
    }
}
