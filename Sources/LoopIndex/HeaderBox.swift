/// The three header boxes whose layout has two versions (ISO/IEC 14496-12: mvhd 8.2.2, tkhd 8.3.2, mdhd 8.4.2):
/// version 0 with 32-bit creation and modification times and duration, version 1 with 64-bit ones. One value per
/// box, read from either version and written in the version its fields need (version 1 where the box was, or where
/// a time or the duration passes 32 bits), as Bento4 keeps one class per box: the index reader, the edit-list
/// finalizer and the MP4 writer all go through it.
package struct HeaderBox: Equatable {
    package enum Kind: String, Sendable { case mvhd, tkhd, mdhd }

    package var kind: Kind
    package var version: UInt8
    package var flags: [UInt8]
    package var creation: UInt64
    package var modification: UInt64
    /// mvhd and mdhd: the timescale; tkhd: the track ID.
    package var timescaleOrTrackID: UInt32
    /// tkhd's reserved word between its track ID and duration (absent from the others).
    package var reserved: UInt32
    package var duration: UInt64
    /// Every byte after the duration, as stored (mvhd's rate, volume and matrix; tkhd's layer, volume, matrix and
    /// size; mdhd's language).
    package var rest: [UInt8]

    /// The box's payload (after its 8-byte header) read as `kind`; nil where it is shorter than its version needs.
    /// A version other than 1 is read as version 0, as FFmpeg's mov demuxer reads mvhd and tkhd (mdhd's reader
    /// refuses one above 1: `ISOFile` says so).
    package init?(_ kind: Kind, payload: [UInt8]) {
        guard let first = payload.first else { return nil }
        let wide = first == 1
        let timeSize = wide ? 8 : 4
        let fixed = 4 + 2 * timeSize + 4 + (kind == .tkhd ? 4 : 0) + timeSize
        guard payload.count >= fixed else { return nil }
        var r = ByteReader(payload, from: 0, to: payload.count)
        func time() -> UInt64 { wide ? r.u64() : UInt64(r.u32()) }
        self.kind = kind
        version = r.u8()
        flags = [r.u8(), r.u8(), r.u8()]
        creation = time()
        modification = time()
        timescaleOrTrackID = r.u32()
        reserved = kind == .tkhd ? r.u32() : 0
        duration = time()
        rest = Array(payload[fixed...])
    }

    package var timescale: Int64 { Int64(timescaleOrTrackID) }
    package var trackID: Int { Int(timescaleOrTrackID) }

    /// The payload, in version 1 where the box was or where a field needs 64 bits, else version 0.
    package var payload: [UInt8] {
        let limit = UInt64(UInt32.max)
        let wide = version == 1 || duration > limit || creation > limit || modification > limit
        // (Another version was read as 0 and is written so.)
        func time(_ v: UInt64) -> [UInt8] { wide ? be64(v) : be32(UInt32(v)) }
        return [wide ? 1 : 0] + flags + time(creation) + time(modification) + be32(timescaleOrTrackID)
            + (kind == .tkhd ? be32(reserved) : []) + time(duration) + rest
    }

    /// A box's payload with its duration (and, given, its timescale) replaced, widened if the duration needs it.
    package static func rewrite(_ box: inout Box, duration: Int64, timescale: Int64? = nil) throws {
        guard let kind = Kind(rawValue: box.type.text), let payload = box.payload,
            var header = HeaderBox(kind, payload: payload)
        else { throw MediaError("write output", reason: "a short or unknown \(box.type)") }
        header.duration = UInt64(max(duration, 0))
        if let timescale, kind != .tkhd { header.timescaleOrTrackID = UInt32(clamping: timescale) }
        box.payload = header.payload
    }
}
