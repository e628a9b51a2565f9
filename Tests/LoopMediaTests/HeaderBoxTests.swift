import Foundation
import Testing

@testable import LoopIndex
@testable import LoopMedia

/// One layout per ISO header box: mvhd, tkhd and mdhd read from either version and written in
/// the one their fields need, by the index reader, the edit-list finalizer and the MP4 writer alike. A duration
/// past 2^32 (a day and a half at 48 kHz, 13 hours at 90 kHz) goes through each path and comes back whole.
@Suite struct HeaderBoxTests {
    static let past32 = Int64(UInt32.max) + 12345

    /// A version-0 payload as ISO/IEC 14496-12 lays it out: times 1 and 2, timescale (or track ID) 600, duration
    /// 1000, then `tail` (the rest of the box).
    static func v0(_ kind: HeaderBox.Kind, tail: [UInt8]) -> [UInt8] {
        [0, 0, 0, 7] + be32(1) + be32(2) + be32(600) + (kind == .tkhd ? be32(0) : []) + be32(1000) + tail
    }

    static let tails: [HeaderBox.Kind: [UInt8]] = [
        .mvhd: Array(repeating: 0xA1, count: 80), .tkhd: Array(repeating: 0xB2, count: 60), .mdhd: [0x55, 0xC4, 0, 0],
    ]

    @Test(arguments: [HeaderBox.Kind.mvhd, .tkhd, .mdhd])
    func aDurationPast32BitsWidensTheBoxAndKeepsTheRest(kind: HeaderBox.Kind) throws {
        let tail = try #require(Self.tails[kind])
        let payload = Self.v0(kind, tail: tail)
        let header = try #require(HeaderBox(kind, payload: payload))
        #expect(header.version == 0 && header.duration == 1000 && header.timescaleOrTrackID == 600)
        // Rewritten unchanged: the same bytes (version 0 kept where nothing needs 64 bits).
        #expect(header.payload == payload)
        var box = Box(type: FourCC(stringLiteral: kind.rawValue), payload: payload, children: [])
        try HeaderBox.rewrite(&box, duration: Self.past32, timescale: kind == .tkhd ? nil : 48000)
        let wide = try #require(box.payload)
        // Version 1: 4 + 8 + 8 + 4 (+ 4) + 8 bytes before the same tail.
        #expect(wide[0] == 1 && Array(wide[1..<4]) == [0, 0, 7])
        #expect(wide.count == payload.count + 12 && Array(wide.suffix(tail.count)) == tail)
        let back = try #require(HeaderBox(kind, payload: wide))
        #expect(back.duration == UInt64(Self.past32) && back.creation == 1 && back.modification == 2)
        #expect(back.timescaleOrTrackID == (kind == .tkhd ? 600 : 48000) && back.rest == tail)
        // A shorter duration written into a version-1 box keeps version 1.
        try HeaderBox.rewrite(&box, duration: 5)
        #expect(box.payload?.first == 1 && HeaderBox(kind, payload: box.payload ?? [])?.duration == 5)
    }

    /// Each writer's path: the finalizer's mvhd and tkhd, the MP4 writer's mdhd, and the last-sample shortening's
    /// mdhd (which left a version-0 mdhd alone when its new total passed 32 bits).
    @Test func everyWriterWidensThroughTheOneLayout() throws {
        var mvhd = Box(type: "mvhd", payload: Self.v0(.mvhd, tail: Self.tails[.mvhd] ?? []), children: [])
        try ISOEditor.setHeader(&mvhd, duration: Self.past32, timescale: 90000)
        #expect(
            HeaderBox(.mvhd, payload: mvhd.payload ?? []).map { ($0.duration, $0.timescale) } ?? (0, 0) == (
                UInt64(Self.past32), 90000
            ))
        var trak = Box(
            type: "trak", payload: nil,
            children: [
                Box(type: "tkhd", payload: Self.v0(.tkhd, tail: Self.tails[.tkhd] ?? []), children: []),
                Box(
                    type: "mdia", payload: nil,
                    children: [
                        Box(type: "mdhd", payload: Self.v0(.mdhd, tail: [0x55, 0xC4, 0, 0]), children: []),
                        Box(
                            type: "minf", payload: nil,
                            children: [
                                Box(
                                    type: "stbl", payload: nil,
                                    children: [
                                        // Three samples of 2^31 ticks each.
                                        Box(
                                            type: "stts", payload: [0, 0, 0, 0] + be32(1) + be32(3) + be32(1 << 31),
                                            children: [])
                                    ])
                            ]),
                    ]),
            ])
        try ISOEditor.setDuration(&trak, box: "tkhd", Self.past32, timescale: nil)
        #expect(HeaderBox(.tkhd, payload: trak.first("tkhd")?.payload ?? [])?.duration == UInt64(Self.past32))
        #expect(ISOEditor.trackID(trak) == 600)
        // The last sample shortened to 2^31 - 1: the media lasts 3 x 2^31 - 1 ticks, past 32 bits.
        try ISOEditor.shortenLastSample(&trak, to: Int64(1 << 31) - 1)
        let mdhd = try #require(trak.first("mdia")?.first("mdhd")?.payload)
        #expect(mdhd.first == 1 && HeaderBox(.mdhd, payload: mdhd)?.duration == 3 * (1 << 31) - 1)
        var written = Box(type: "mdhd", payload: Self.v0(.mdhd, tail: [0x55, 0xC4, 0, 0]), children: [])
        try MP4Writer.setMediaDuration(&written, Self.past32)
        #expect(HeaderBox(.mdhd, payload: written.payload ?? [])?.duration == UInt64(Self.past32))
        #expect(HeaderBox(.mdhd, payload: written.payload ?? [])?.rest == [0x55, 0xC4, 0, 0])
    }

    /// A payload too short for its version is nil, never read past its end.
    @Test func aShortHeaderIsNil() {
        #expect(HeaderBox(.mvhd, payload: [0, 0, 0, 0] + be32(1)) == nil)
        #expect(HeaderBox(.tkhd, payload: [1, 0, 0, 0] + be32(1) + be32(2) + be32(3) + be32(4) + be32(5)) == nil)
        // Another version is read as version 0, as FFmpeg reads mvhd and tkhd.
        #expect(HeaderBox(.mvhd, payload: [2, 0, 0, 0] + be32(1) + be32(2) + be32(600) + be32(9))?.duration == 9)
    }
}
