import Foundation
import LoopAnalysis
import Testing

@testable import LoopIndex

/// A configuration record names a profile and level every parameter set it holds must keep within (ISO/IEC
/// 14496-15): a set that asks for more is named, as its profile and level. Records built by hand from the byte
/// layout (an SPS's bytes 1 and 3 are profile_idc and level_idc).
@Suite struct BeyondEntryTests {
    /// An avcC of `profile` and `level` holding SPSs of these profiles and levels (their bodies cut short: only the
    /// first four bytes are read).
    static func record(_ profile: UInt8, _ level: UInt8, sets: [(UInt8, UInt8)]) -> [UInt8] {
        var out: [UInt8] = [1, profile, 0xC0, level, 0xFF, 0xE0 | UInt8(sets.count)]
        for (p, l) in sets { out += [0, 4, 0x67, p, 0xC0, l] }
        return out + [1, 0, 2, 0x68, 0xCE]
    }

    @Test func setsWithinTheRecordAreNotNamed() throws {
        // Baseline within Baseline, a Constrained Baseline or Main set under a High record, a lower level.
        #expect(AVCConfig(Self.record(66, 30, sets: [(66, 30), (66, 21)]))?.beyondRecord == nil)
        #expect(AVCConfig(Self.record(100, 40, sets: [(100, 40), (77, 31), (66, 30)]))?.beyondRecord == nil)
    }

    @Test func aSetOfMoreToolsOrAHigherLevelIsNamed() throws {
        // stitch's old joins: x264's High next to a Baseline clip's SPS.
        #expect(AVCConfig(Self.record(66, 30, sets: [(66, 30), (100, 30)]))?.beyondRecord == "High 3.0")
        #expect(AVCConfig(Self.record(77, 31, sets: [(77, 31), (77, 40)]))?.beyondRecord == "Main 4.0")
    }
}
