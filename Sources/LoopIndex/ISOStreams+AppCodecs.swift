import LoopAnalysis

/// The streams an app's loop range times from the index though the CLI leaves their description to FFmpeg: every
/// codec AVFoundation plays. Their timing is the sample table's, as it is for H.264 and AAC (FFmpeg's mov demuxer
/// reads the same stts, ctts and edit lists; PCM's samples are grouped into its packets by `ISOFile`), so what is
/// read here is only what the planner and the rules ask of a stream: FFmpeg's name for its codec, and an audio
/// track's rate and channels as its configuration says them.
extension ISOFile {
    /// Video read for a range alone: AV1 (av1C: reordered only where the index's composition offsets say so),
    /// ProRes and the other intra-only codecs, MPEG-4 Part 2 (its esds), VP9; nil for another.
    static func appVideo(tag: FourCC, children: [(FourCC, ByteReader)]) -> String? {
        switch tag {
        case "av01": children.contains { $0.0 == "av1C" } ? "av1" : nil
        case "apch", "apcn", "apcs", "apco", "ap4h", "ap4x": "prores"
        case "jpeg", "mjpa": "mjpeg"
        case "vp09": "vp9"
        case "mp4v":
            children.first { $0.0 == "esds" }.flatMap { decoderSpecificInfo($0.1, objectType: 0x20) } != nil
                ? "mpeg4" : nil
        default: nil
        }
    }

    /// Audio read for a range alone: PCM in every QuickTime and ISO form, ALAC (its magic cookie's rate and
    /// channels), AC-3 and E-AC-3 (1536 samples a frame), MP3 (an MPEG-1/2 audio esds or a .mp3 entry), AMR, HE-AAC
    /// whose esds says SBR. nil for another, and for AAC whose SBR only a decoder would find.
    static func appAudio(
        _ entry: [UInt8], tag: FourCC, children: [(FourCC, ByteReader)], index: Int
    ) -> TrackBasics? {
        func config(_ type: FourCC) -> ByteReader? { children.first { $0.0 == type }?.1 }
        guard let sound = SoundFields(entry) else { return nil }
        var b = TrackBasics(index: index, kind: .audio, codec: "", sampleRate: sound.rate, channels: sound.channels)
        let littleEndian =
            config("enda").map {
                var e = $0
                return e.u16() != 0
            } ?? false
        switch tag {
        case "twos", "sowt", "raw ", "in24", "in32", "fl32", "fl64", "lpcm", "ipcm", "fpcm":
            guard
                let name = pcm(
                    tag: tag, bits: sound.bits, littleEndian: littleEndian, flags: sound.flags,
                    pcmC: config("pcmC"))
            else { return nil }
            b.codec = name
        case "alac":
            // The magic cookie (after its full box header): frame length, version, bit depth, three tuning bytes,
            // channels, then the run, frame bytes and bit rate, and the rate.
            guard var cookie = config("alac"), cookie.remaining >= 28 else { return nil }
            cookie.skip(4 + 9)
            b.channels = Int(cookie.u8())
            cookie.skip(10)
            (b.codec, b.sampleRate) = ("alac", Int(cookie.u32()))
        case "ac-3", "ec-3", ".mp3", "samr", "sawb":
            let names: [FourCC: String] = [
                "ac-3": "ac3", "ec-3": "eac3", ".mp3": "mp3", "samr": "amr_nb", "sawb": "amr_wb",
            ]
            b.codec = names[tag] ?? ""
        case "mp4a":
            guard let esds = config("esds") else { return nil }
            if [0x69, 0x6B].contains(objectType(esds)) {
                b.codec = "mp3"
            } else if let asc = decoderSpecificInfo(esds, objectType: 0x40), let he = explicitSBR(asc) {
                (b.codec, b.profile, b.sampleRate, b.channels) = ("aac", he.profile, he.rate, he.channels)
            } else {
                return nil
            }
        default: return nil
        }
        return (b.sampleRate ?? 0) > 0 ? b : nil
    }

    /// A sound sample entry's own fields: versions 0 and 1 (the rate as 16.16) and QuickTime's version 2 (the rate
    /// as a double, then the channels, bits and LPCM flags).
    struct SoundFields {
        var channels: Int
        var bits: Int
        var rate: Int
        var flags: UInt32 = 0

        init?(_ entry: [UInt8]) {
            var r = ByteReader(entry, from: 16, to: entry.count)
            let version = r.u16()
            r.skip(6)
            (channels, bits) = (Int(r.u16()), Int(r.u16()))
            r.skip(4)
            rate = Int(r.u32() >> 16)
            guard version == 2 else { return }
            guard entry.count >= 72 else { return nil }
            var v2 = ByteReader(entry, from: 40, to: entry.count)
            let exact = Double(bitPattern: v2.u64())
            guard exact.isFinite, exact > 0, exact < 1e7 else { return nil }
            (rate, channels) = (Int(exact), Int(v2.u32()))
            v2.skip(4)
            (bits, flags) = (Int(v2.u32()), v2.u32())
        }
    }

    /// FFmpeg's PCM codec names: QuickTime's entries by their tag (twos and sowt by their bits; in24, in32, fl32,
    /// fl64 big-endian unless an enda box says little), the version 2 lpcm entry by its flags (1 float, 2 big-endian,
    /// 4 signed), ISO's ipcm and fpcm by their pcmC box (its first flag bit: little-endian).
    static func pcm(tag: FourCC, bits: Int, littleEndian: Bool, flags: UInt32, pcmC: ByteReader?) -> String? {
        let end = littleEndian ? "le" : "be"
        switch tag {
        case "twos": return bits == 8 ? "pcm_s8" : bits == 16 ? "pcm_s16be" : nil
        case "sowt": return bits == 8 ? "pcm_s8" : bits == 16 ? "pcm_s16le" : nil
        case "raw ": return "pcm_u8"
        case "in24": return "pcm_s24" + end
        case "in32": return "pcm_s32" + end
        case "fl32": return "pcm_f32" + end
        case "fl64": return "pcm_f64" + end
        case "lpcm":
            let float = flags & 1 != 0
            let order = flags & 2 != 0 ? "be" : "le"
            guard bits > 0, bits % 8 == 0, bits <= 64 else { return nil }
            if float { return [32, 64].contains(bits) ? "pcm_f\(bits)\(order)" : nil }
            if bits == 8 { return flags & 4 != 0 ? "pcm_s8" : "pcm_u8" }
            return [16, 24, 32].contains(bits) ? "pcm_s\(bits)\(order)" : nil
        case "ipcm", "fpcm":
            guard var c = pcmC, c.remaining >= 6 else { return nil }
            c.skip(4)
            let order = c.u8() & 1 != 0 ? "le" : "be"
            let size = Int(c.u8())
            if tag == "fpcm" { return [32, 64].contains(size) ? "pcm_f\(size)\(order)" : nil }
            return [16, 24, 32].contains(size) ? "pcm_s\(size)\(order)" : nil
        default: return nil
        }
    }

    /// The DecoderConfigDescriptor's object type of an esds (read even where it carries no DecoderSpecificInfo, as
    /// an MP3's does not).
    static func objectType(_ esds: ByteReader) -> UInt8? {
        var r = esds
        r.skip(4)
        func descriptor(_ tag: UInt8) -> Bool {
            guard r.remaining > 0, r.u8() == tag else { return false }
            for _ in 0..<4 where r.remaining > 0 && r.u8() & 0x80 == 0 { break }
            return true
        }
        guard descriptor(0x03), r.remaining >= 3 else { return nil }
        r.skip(2)
        let flags = r.u8()
        if flags & 0x80 != 0 { r.skip(2) }
        if flags & 0x40 != 0 { r.skip(Int(r.u8())) }
        if flags & 0x20 != 0 { r.skip(2) }
        guard descriptor(0x04), r.remaining > 0 else { return nil }
        return r.u8()
    }

    /// An AudioSpecificConfig that declares SBR itself: object type 5 (HE-AAC) or 29 (HE-AAC v2, with PS) with its
    /// extension rate, or AAC-LC followed by the sync extension 0x2b7 saying SBR is present. The rate is the
    /// output rate, as FFmpeg's demuxer reads it from the configuration; nil for anything else.
    static func explicitSBR(_ asc: [UInt8]) -> (rate: Int, channels: Int, profile: String)? {
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        var bits = BitReader(asc)
        guard let objectType = bits.u(5), let rateIndex = bits.u(4), rateIndex < rates.count,
            let configuration = bits.u(4), (1...7).contains(configuration)
        else { return nil }
        let channels = configuration == 7 ? 8 : configuration
        if objectType == 5 || objectType == 29 {
            guard let extensionIndex = bits.u(4), extensionIndex < rates.count else { return nil }
            return (rates[extensionIndex], channels, objectType == 29 ? "HE-AACv2" : "HE-AAC")
        }
        // AAC-LC, then its GASpecificConfig (three bits: frame length, core coder, extension: all 0), then the
        // backward-compatible extension.
        guard objectType == 2, bits.u(3) == 0, asc.count >= 5, bits.u(11) == 0x2b7, bits.u(5) == 5,
            bits.u(1) == 1
        else { return nil }
        guard let extensionIndex = bits.u(4), extensionIndex < rates.count else { return nil }
        return (rates[extensionIndex], channels, "HE-AAC")
    }
}
