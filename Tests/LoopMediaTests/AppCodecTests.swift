import Foundation
import Testing

@testable import LoopIndex

/// The sample entries an app's reading names without FFmpeg, from their documented layouts: ISO 23003-5's pcmC
/// (version and flags, then format_flags whose bit 0 is little-endian, then the sample size), QuickTime's version 2
/// LPCM flags (1 float, 2 big-endian, 4 signed) and ISO 14496-3's AudioSpecificConfig.
@Suite struct AppCodecTests {
    static func pcmC(littleEndian: Bool, size: UInt8) -> ByteReader {
        let bytes: [UInt8] = [0, 0, 0, 0, littleEndian ? 1 : 0, size]
        return ByteReader(bytes, from: 0, to: bytes.count)
    }

    @Test func pcmIsNamedAsFFmpegNamesIt() {
        func name(_ tag: FourCC, bits: Int = 16, le: Bool = false, flags: UInt32 = 0, pcmC: ByteReader? = nil)
            -> String?
        {
            ISOFile.pcm(tag: tag, bits: bits, littleEndian: le, flags: flags, pcmC: pcmC)
        }
        #expect(name("twos") == "pcm_s16be" && name("sowt") == "pcm_s16le" && name("twos", bits: 8) == "pcm_s8")
        #expect(name("in24") == "pcm_s24be" && name("in24", le: true) == "pcm_s24le")
        #expect(name("fl32") == "pcm_f32be" && name("fl64", le: true) == "pcm_f64le" && name("in32") == "pcm_s32be")
        // lpcm: 24-bit signed little-endian (flags 4), 32-bit float big-endian (1 | 2).
        #expect(name("lpcm", bits: 24, flags: 4) == "pcm_s24le" && name("lpcm", bits: 32, flags: 3) == "pcm_f32be")
        #expect(name("lpcm", bits: 12, flags: 4) == nil)
        #expect(name("ipcm", pcmC: Self.pcmC(littleEndian: true, size: 24)) == "pcm_s24le")
        #expect(name("ipcm", pcmC: Self.pcmC(littleEndian: false, size: 16)) == "pcm_s16be")
        #expect(name("fpcm", pcmC: Self.pcmC(littleEndian: true, size: 64)) == "pcm_f64le")
        #expect(name("fpcm", pcmC: Self.pcmC(littleEndian: true, size: 24)) == nil)
    }

    /// SBR declared in the configuration: HE-AAC (object type 5) at 24 kHz whose extension says 48 kHz, and AAC-LC
    /// at 22.05 kHz with the sync extension 0x2b7 saying SBR at 44.1 kHz. Plain AAC-LC at 22.05 kHz says nothing.
    @Test func sbrIsReadWhereTheConfigurationDeclaresIt() {
        // 5 bits 5, 4 bits 6 (24000), 4 bits 2 (stereo), 4 bits 3 (48000), then 5 bits 2 (AAC-LC core).
        #expect(ISOFile.explicitSBR([0x2B, 0x11, 0x88, 0x00])?.rate == 48000)
        // 5 bits 2, 4 bits 7 (22050), 4 bits 1 (mono), 3 bits 0; 11 bits 0x2b7, 5 bits 5, 1 bit 1, 4 bits 4 (44100).
        let explicit = ISOFile.explicitSBR([0x13, 0x88, 0x56, 0xE5, 0xA0])
        #expect(explicit?.rate == 44100 && explicit?.channels == 1 && explicit?.profile == "HE-AAC")
        #expect(ISOFile.explicitSBR([0x13, 0x88]) == nil)
    }
}
