import Foundation
import LoopAnalysis

/// A track's headers as FFmpeg's mov demuxer reads them into a stream: tkhd's matrix, mdhd's language, the
/// first sample description, and the frame rate the demuxer declares from stts.
package struct TrackHeader {
    package var matrix: [Int32]
    package var language: UInt16
    /// An elng box (a language mdhd cannot hold): left to FFmpeg.
    package var extendedLanguage: Bool
    /// The first stsd entry, its box header included.
    package var entry: [UInt8]?
    package var descriptions: Int
    /// The demuxer's r_frame_rate, where the sample table alone sets it (see `demuxerFrameRate(stts:timescale:)`).
    package var demuxerFrameRate: Rational?

    package static func firstEntry(_ stsd: ByteReader) -> [UInt8]? {
        var r = stsd
        r.skip(8)  // version, flags, entry count
        let start = r.position
        let size = Int(r.u32())
        guard size >= 8, start + size <= r.end else { return nil }
        return Array(r.bytes[start..<start + size])
    }

    /// The rate FFmpeg's mov demuxer declares for a video track without decoding, where it is certain: timescale
    /// over the first stts duration when stts has one entry, or two of which the second covers one sample (every
    /// FFmpeg from 5.1 to 9.0 sets r_frame_rate so). For any other stts FFmpeg's rate comes from more than the
    /// table (5.1 reads 30 fps for a held frame's [512, 23552, 512] at 15360 ticks), so such a track is left to
    /// FFmpeg: nil.
    package static func demuxerFrameRate(stts: ByteReader, timescale: Int64) -> Rational? {
        var r = stts
        r.skip(4)
        let count = r.entries(size: 8)
        var runs: [(count: UInt32, duration: UInt32)] = []
        for _ in 0..<min(count, 3) { runs.append((r.u32(), r.u32())) }
        guard let first = runs.first, first.duration > 0, first.duration < 1 << 31,
            count == 1 || (count == 2 && runs[1].count == 1)
        else { return nil }
        return Rational(timescale, Int64(first.duration))
    }
}

extension ISOFile {
    /// FFmpeg's name for the demuxer of every ISO-BMFF file.
    package static let demuxerName = "mov,mp4,m4a,3gp,3g2,mj2"

    /// Every stream as FFmpeg's mov demuxer presents it, read from the boxes alone, so that analysing an MP4
    /// needs no FFmpeg. Only the shapes this reads exactly as the demuxer does: H.264 and HEVC video whose stts
    /// every FFmpeg declares alike, AAC-LC above 24 kHz (lower rates may hide SBR that only a decoder finds) and
    /// Opus audio, in a movie of plain vide and soun tracks (no cover picture, no timecode, text or chapter track,
    /// no fragments). Anything else is nil: FFmpeg reads it. IndexOnlyTests hold each shape to FFmpeg's reading.
    /// `rangeOnly`: read for a loop range alone, as an app measuring one does (the CLI leaves these to FFmpeg): a
    /// video track whose declared rate FFmpeg sets from more than the sample table (a held frame, fragments) is
    /// read with none (the rate is then the commonest frame step), fragments and cover art are read, and tracks
    /// other than picture and sound (timecode, chapters, a phone's metadata) are data tracks of no codec.
    package func streamBasics(rangeOnly: Bool = false) -> [TrackBasics]? {
        guard rangeOnly || (!fragmented && !coverArt), movieMatrix == Self.identity, !trakOrder.isEmpty else {
            return nil
        }
        var basics: [TrackBasics] = []
        for (index, id) in trakOrder.enumerated() {
            if rangeOnly, let id, let track = tracks[id], track.handler != "vide", track.handler != "soun" {
                // Kept as data (its length counts toward the movie's, as FFmpeg's data stream's does).
                var b = TrackBasics(index: index, kind: .data, codec: "none")
                b.trackID = id
                basics.append(b)
                continue
            }
            guard let id, trakOrder.filter({ $0 == id }).count == 1, let track = tracks[id],
                let b = Self.basics(track, index: index, rangeOnly: rangeOnly)
            else { return nil }
            basics.append(b)
        }
        return basics
    }

    package static let identity: [Int32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]

    package static func basics(_ track: Track, index: Int, rangeOnly: Bool = false) -> TrackBasics? {
        guard let header = track.header, header.descriptions == 1, !header.extendedLanguage,
            let entry = header.entry, entry.count >= 8
        else { return nil }
        let tag = FourCC(bytes: entry[4..<8])
        var b: TrackBasics
        switch track.handler {
        case "vide":
            guard let v = video(entry, tag: tag, header: header, index: index, rangeOnly: rangeOnly) else {
                return nil
            }
            b = v
        case "soun":
            guard let a = audio(entry, tag: tag, index: index, rangeOnly: rangeOnly) else { return nil }
            b = a
        default: return nil
        }
        b.trackID = track.trackID
        b.codecTag = tag.text
        switch header.language {
        case 0: b.language = "eng"  // the old Macintosh code 0
        case 0x400..<0x7fff:
            let letters = [10, 5, 0].map { UInt8(0x60 + (Int(header.language) >> $0) & 0x1f) }
            let code = String(decoding: letters, as: UTF8.self)
            b.language = code == "und" ? nil : code
        case 0x7fff: b.language = nil  // none: FFmpeg sets no language
        // Another Macintosh code (a QuickTime movie's French is 1): FFmpeg names it from its table, which the CLI
        // leaves to FFmpeg; a loop range does not depend on it.
        default: if !rangeOnly { return nil }
        }
        return b
    }

    /// A visual sample entry: size at byte 32, children (the codec configuration) from byte 86.
    package static func video(
        _ entry: [UInt8], tag: FourCC, header: TrackHeader, index: Int, rangeOnly: Bool = false
    ) -> TrackBasics? {
        guard entry.count >= 86 else { return nil }
        var r = ByteReader(entry, from: 32, to: entry.count)
        let width = Int(r.u16())
        let height = Int(r.u16())
        guard width > 0, height > 0 else { return nil }
        let children = ByteReader(entry, from: 86, to: entry.count).children(until: entry.count)
        func config(_ type: FourCC) -> ByteReader? { children.first { $0.0 == type }?.1 }
        var b: TrackBasics
        switch tag {
        case "avc1", "avc3":
            guard var c = config("avcC"), c.remaining >= 2, c.u8() == 1 else { return nil }
            guard let name = h264Profiles[Int(c.u8())] else { return nil }
            b = TrackBasics(index: index, kind: .video, codec: "h264", profile: name)
            b.beyondEntry = AVCConfig(Array(c.bytes[c.position - 2..<c.end]))?.beyondRecord
        case "hvc1", "hev1":
            guard var c = config("hvcC"), c.remaining >= 2, c.u8() == 1 else { return nil }
            guard let name = hevcProfiles[Int(c.u8() & 0x1f)] else { return nil }
            b = TrackBasics(index: index, kind: .video, codec: "hevc", profile: name)
        default:
            guard rangeOnly, let codec = appVideo(tag: tag, children: children) else { return nil }
            b = TrackBasics(index: index, kind: .video, codec: codec)
        }
        b.width = width
        b.height = height
        guard let rotation = rotation(header.matrix) else { return nil }
        b.rotation = rotation.degrees
        guard let rate = header.demuxerFrameRate else { return rangeOnly ? b : nil }
        b.declaredFrameRate = rate
        return b
    }

    /// Clockwise degrees as FFmpeg reports a display matrix: none when the matrix is the identity, else the
    /// angle of its rotation part; nil (not modelled) for anything but a quarter turn (a flip, a scale).
    package static func rotation(_ m: [Int32]) -> (degrees: Int?, Void)? {
        guard m.count == 9 else { return nil }
        if m == identity { return (nil, ()) }
        let one: Int32 = 0x10000
        switch (m[0], m[1], m[3], m[4]) {
        case (one, 0, 0, one): return (0, ())
        case (0, one, -one, 0): return (90, ())
        case (-one, 0, 0, -one): return (180, ())
        case (0, -one, one, 0): return (270, ())
        default: return nil
        }
    }

    /// A sound sample entry (versions 0 and 1): children from byte 36 (52 for version 1), the codec
    /// configuration possibly inside a QuickTime wave box; the configuration, not the entry, says the rate and
    /// channels (as FFmpeg reads them).
    package static func audio(_ entry: [UInt8], tag: FourCC, index: Int, rangeOnly: Bool = false) -> TrackBasics? {
        guard entry.count >= 36 else { return nil }
        var r = ByteReader(entry, from: 16, to: entry.count)
        let version = r.u16()
        guard version <= 1 || (rangeOnly && version == 2) else { return nil }
        let start = [36, 52, 72][Int(version)]
        guard entry.count >= start else { return nil }
        var children = ByteReader(entry, from: start, to: entry.count).children(until: entry.count)
        if let wave = children.first(where: { $0.0 == "wave" })?.1 { children += wave.children(until: wave.end) }
        func config(_ type: FourCC) -> ByteReader? { children.first { $0.0 == type }?.1 }
        var b = TrackBasics(index: index, kind: .audio, codec: "")
        switch tag {
        case "mp4a":
            guard let esds = config("esds"), let asc = decoderSpecificInfo(esds, objectType: 0x40),
                let lc = aacLC(asc)
            else { return rangeOnly ? appAudio(entry, tag: tag, children: children, index: index) : nil }
            b.codec = "aac"
            b.profile = "LC"
            b.sampleRate = lc.rate
            b.channels = lc.channels
        case "Opus":
            // The sample entry's channels (FFmpeg's reading), the pre-skip from dOps; a dOps that disagrees on the
            // channels is left to FFmpeg.
            guard var dops = config("dOps"), dops.remaining >= 11 else { return nil }
            var r = ByteReader(entry, from: 24, to: entry.count)
            let channels = Int(r.u16())
            r.skip(6)
            let rate = Int(r.u16())
            _ = dops.u8()  // version
            let dopsChannels = Int(dops.u8())
            let preSkip = Int64(dops.u16())
            guard rate > 0, channels > 0, channels == dopsChannels else { return nil }
            b.codec = "opus"
            // The entry's rate is the encoder's input rate at most (a note for a resampler); Opus plays at 48 kHz.
            b.sampleRate = Int(Opus.rate)
            b.channels = channels
            b.codecDelay = preSkip
        default:
            return rangeOnly ? appAudio(entry, tag: tag, children: children, index: index) : nil
        }
        return b
    }

    /// The DecoderSpecificInfo of an esds whose DecoderConfigDescriptor names `objectType`.
    package static func decoderSpecificInfo(_ esds: ByteReader, objectType: UInt8) -> [UInt8]? {
        var r = esds
        r.skip(4)
        func descriptor(_ tag: UInt8) -> Int? {
            guard r.u8() == tag else { return nil }
            var size = 0
            for _ in 0..<4 {
                let byte = r.u8()
                size = size << 7 | Int(byte & 0x7f)
                if byte & 0x80 == 0 { break }
            }
            return size
        }
        guard descriptor(0x03) != nil else { return nil }
        r.skip(2)
        let flags = r.u8()
        if flags & 0x80 != 0 { r.skip(2) }
        if flags & 0x40 != 0 { r.skip(Int(r.u8())) }
        if flags & 0x20 != 0 { r.skip(2) }
        guard descriptor(0x04) != nil, r.u8() == objectType else { return nil }
        r.skip(12)
        guard let size = descriptor(0x05), size > 0, size <= r.remaining else { return nil }
        return Array(r.bytes[r.position..<r.position + size])
    }

    /// An AudioSpecificConfig that is plain AAC-LC above 24 kHz: object type 2, a table rate, a channel
    /// configuration, no core coder, no extension, and after it nothing or only the sync extension that says SBR
    /// is absent (0x2b7, object type 5, flag 0: FFmpeg's encoder writes it), where explicit SBR would be.
    package static func aacLC(_ asc: [UInt8]) -> (rate: Int, channels: Int)? {
        let sbrAbsent: [UInt8] = [0x56, 0xe5, 0x00]  // 11 bits 0x2b7, 5 bits 5, 1 bit 0, zero padding
        guard asc.count == 2 || (asc.count == 5 && Array(asc[2...]) == sbrAbsent) else { return nil }
        let bits = Int(asc[0]) << 8 | Int(asc[1])
        let objectType = bits >> 11
        let rateIndex = bits >> 7 & 0xf
        let configuration = bits >> 3 & 0xf
        let frameLength = bits >> 2 & 1
        let coreCoder = bits >> 1 & 1
        let extensionFlag = bits & 1
        let rates = [96000, 88200, 64000, 48000, 44100, 32000]
        guard objectType == 2, rateIndex < rates.count, (1...7).contains(configuration), frameLength == 0,
            coreCoder == 0, extensionFlag == 0
        else { return nil }
        return (rates[rateIndex], configuration == 7 ? 8 : configuration)
    }

    /// libavcodec's names for H.264 profile_idc (avcC byte 1) and HEVC general_profile_idc.
    package static let h264Profiles: [Int: String] = [
        66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2",
        144: "High 4:4:4", 244: "High 4:4:4 Predictive", 44: "CAVLC 4:4:4",
    ]
    package static let hevcProfiles: [Int: String] = [1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Rext"]
}
