import LoopAnalysis

/// What an app learns where the index alone cannot time a file: why, in a sentence naming the stream or the
/// container (the app needs the CLI's report then), or an error where the file is not one to loop at all, in the
/// CLI's words: an MP4 or MOV cut off before its index, or bytes that are no video or audio container.
package enum RangeReading {
    /// The reason the app needs loopprep analyze's report for `file`, or a thrown error (as analyze says it).
    package static func whyNotTimed(_ file: any ByteSource) throws -> String {
        let head = try file.read(at: 0, count: 16)
        let needs = "the app needs the loop range from loopprep analyze's report for it"
        // ISO-BMFF's first box: ftyp, or in a QuickTime movie without one, the movie, its media or padding.
        let isoTypes = ["ftyp", "moov", "mdat", "wide", "free", "skip", "pnot"].map { Array($0.utf8) }
        if head.count >= 8, isoTypes.contains(Array(head[4..<8])) {
            guard let iso = try ISOFile.read(file, fileSize: file.size) else {
                throw MediaError(
                    "open",
                    reason: """
                        an MP4/MOV with no index (no moov box): it was cut off before its end was written (a recording \
                        stopped early, or a partial download); copy or export it again
                        """)
            }
            return "\(untimed(iso) ?? "an MP4 or MOV whose index loopprep's reader does not take whole"): \(needs)"
        }
        if let container = container(head, file: file) { return "a \(container) file, not an MP4 or MOV: \(needs)" }
        throw MediaError(
            "open",
            reason: """
                not a video or audio file loopprep recognises (its first bytes match no container it reads\
                \(picture(head).map { "; they are \($0)'s" } ?? "")); check that it is a whole media file
                """)
    }

    /// The first track the index does not time, named: an AAC whose SBR only a decoder finds, or another codec.
    static func untimed(_ iso: ISOFile) -> String? {
        for (index, id) in iso.trakOrder.enumerated() {
            guard let id, let track = iso.tracks[id], track.handler == "vide" || track.handler == "soun",
                ISOFile.basics(track, index: index, rangeOnly: true) == nil,
                let entry = track.header?.entry, entry.count >= 8
            else { continue }
            let tag = String(
                decoding: entry[4..<8].map { $0 < 0x20 || $0 > 0x7e ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
            if tag == "mp4a", lowRateLC(entry) {
                return """
                    its AAC track \(index) declares AAC-LC at 24 kHz or less, which a decoder may play at twice the \
                    rate with SBR that no box declares (only a decoder can say)
                    """
            }
            let kind = track.handler == "vide" ? "video" : "audio"
            return "its \(kind) track \(index) is '\(tag)', which the index reader does not time"
        }
        return nil
    }

    /// An AAC entry whose configuration is AAC-LC (object type 2) at 24 kHz or less (rate index 6 or more).
    static func lowRateLC(_ entry: [UInt8]) -> Bool {
        let start = entry.count >= 36 && entry[16] == 0 && entry[17] == 1 ? 52 : 36
        guard entry.count > start else { return false }
        var children = ByteReader(entry, from: start, to: entry.count).children(until: entry.count)
        if let wave = children.first(where: { $0.0 == "wave" })?.1 { children += wave.children(until: wave.end) }
        guard let esds = children.first(where: { $0.0 == "esds" })?.1,
            let asc = ISOFile.decoderSpecificInfo(esds, objectType: 0x40), asc.count >= 2
        else { return false }
        var bits = BitReader(asc)
        return bits.u(5) == 2 && (bits.u(4) ?? 0) >= 6
    }

    /// The container another file's first bytes name, where it is one of FFmpeg's media containers.
    static func container(_ b: [UInt8], file: any ByteSource) -> String? {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "Matroska or WebM" }
        if starts(Array("OggS".utf8)) { return "Ogg" }
        if starts(Array("RIFF".utf8)) { return starts(Array("AVI ".utf8), at: 8) ? "AVI" : "RIFF (WAV)" }
        if starts(Array("FLV".utf8)) { return "FLV" }
        if starts(Array("fLaC".utf8)) { return "FLAC" }
        if starts(Array("caff".utf8)) { return "CAF" }
        if starts(Array("FORM".utf8)) { return "AIFF" }
        if starts(Array("ID3".utf8)) { return "MP3" }
        if starts([0x00, 0x00, 0x01, 0xBA]) { return "MPEG program stream" }
        if starts([0x47]), (try? file.read(at: 188, count: 1)) == [0x47] { return "MPEG transport stream" }
        if b.count >= 2, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 { return "ADTS AAC" }
        if b.count >= 2, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 { return "MP3" }
        return nil
    }

    /// What a file of no media container is, where its first bytes say (a picture, a page, an archive).
    static func picture(_ b: [UInt8]) -> String? {
        func starts(_ text: [UInt8]) -> Bool { b.count >= text.count && Array(b[0..<text.count]) == text }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "a PNG picture" }
        if starts([0xFF, 0xD8, 0xFF]) { return "a JPEG picture" }
        if starts(Array("GIF8".utf8)) { return "a GIF picture" }
        if starts(Array("%PDF".utf8)) { return "a PDF document" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "a ZIP archive" }
        let text = String(decoding: b, as: UTF8.self).lowercased()
        if text.contains("<!doctype") || text.contains("<html") { return "a web page" }
        return nil
    }
}
