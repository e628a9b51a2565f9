import Testing

@testable import LoopMedia

/// Frame threads each hold pictures of their own: above 8K UHD a decoder runs on one thread, so a picture a
/// fuzzer's SPS blew up to 16000x15000 (360 MB in 4:2:0) is not held three times over.
@Suite struct DecoderThreadsTests {
    @Test func pictureSizesUpTo8KKeepTheThreadsAsked() {
        // 8K UHD (7680x4320, 33.2 million pixels) and DCI 4K keep frame threads.
        #expect(Decoder.threads(0, width: 7680, height: 4320) == 0)
        #expect(Decoder.threads(2, width: 4096, height: 2160) == 2)
        #expect(Decoder.threads(0, width: 6000, height: 6000) == 0)  // 36,000,000: the bound itself
    }

    @Test func largerPicturesDecodeOnOneThread() {
        #expect(Decoder.threads(0, width: 6000, height: 6001) == 1)
        #expect(Decoder.threads(0, width: 8192, height: 4608) == 1)
        #expect(Decoder.threads(2, width: 16000, height: 15000) == 1)
        // Dimensions whose product overflows 32 bits.
        #expect(Decoder.threads(0, width: 65535, height: 65535) == 1)
    }
}
