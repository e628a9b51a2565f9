import Testing

@testable import LoopIndex

/// An AV1 frame's picture, whatever a muxer dropped around it (AV1 5.3: the OBU header's type in bits 6-3, an
/// extension byte where bit 2 is set, a leb128 size where bit 1 is set, else the OBU runs to the end).
@Suite struct AV1PictureTests {
    /// GStreamer's packet: a temporal delimiter (type 2, size 0), a sequence header (type 1, 2 bytes) and a frame
    /// (type 6, 3 bytes). FFmpeg's Matroska muxer writes the frame alone; its last OBU may go without a size.
    @Test func theDelimiterAndHeadersAreNotThePicture() {
        let gstreamer: [UInt8] = [0x12, 0x00, 0x0A, 0x02, 0xAA, 0xBB, 0x32, 0x03, 0x01, 0x02, 0x03]
        let ffmpeg: [UInt8] = [0x32, 0x03, 0x01, 0x02, 0x03]
        let unsized: [UInt8] = [0x30, 0x01, 0x02, 0x03]
        #expect(FrameBytes.picture(gstreamer, codec: "av1", extradata: nil) == [[6, 1, 2, 3]])
        #expect(FrameBytes.picture(ffmpeg, codec: "av1", extradata: nil) == [[6, 1, 2, 3]])
        #expect(FrameBytes.picture(unsized, codec: "av1", extradata: nil) == [[6, 1, 2, 3]])
        // Another frame is another picture; a size past the end is no OBU, compared whole.
        #expect(FrameBytes.picture([0x32, 0x03, 0x01, 0x02, 0x04], codec: "av1", extradata: nil) != [[6, 1, 2, 3]])
        #expect(FrameBytes.picture([0x32, 0x09, 0x01], codec: "av1", extradata: nil) == [[0x32, 0x09, 0x01]])
    }
}

/// A NAL unit's trailing zero bytes are no part of its picture (H.264 7.4.1, HEVC 7.4.2: trailing_zero_8bits
/// and cabac_zero_words are nothing a decoder reads).
@Suite struct TrailingZeroTests {
    @Test func aUnitEndingOnZerosIsTheSameSlice() {
        // A transport stream's frame: an IDR slice (HEVC type 20: header 0x28 0x01) then the next start code's
        // leading zero; the MP4's sample of it, with that zero kept, in 4-byte lengths.
        let stream: [UInt8] = [0, 0, 0, 1, 0x28, 0x01, 0xAF, 0x80, 0]
        let sample: [UInt8] = [0, 0, 0, 5, 0x28, 0x01, 0xAF, 0x80, 0]
        var config = [UInt8](repeating: 0, count: 23)
        (config[0], config[21]) = (1, 3)
        let a = FrameBytes.picture(stream, codec: "hevc", extradata: nil)
        #expect(a == [[0x28, 0x01, 0xAF, 0x80]])
        #expect(FrameBytes.picture(sample, codec: "hevc", extradata: config) == a)
    }
}
