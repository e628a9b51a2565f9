import LoopAnalysis

/// Movie fragments (moof/traf: tfhd, tfdt, trun) appended to the tracks' sample tables, so a fragmented file's
/// timing comes from its index like a plain one's. FFmpeg 5.1 gives trun samples duration 0 and reads trun
/// version 1's signed composition offsets late; the index has both exactly.
package struct Fragments {
    /// trex: what a fragment's samples are when neither tfhd nor trun says.
    package struct Defaults {
        package var descriptionIndex: UInt32 = 1
        package var duration: UInt32 = 0
        package var size: UInt32 = 0
        package var flags: UInt32 = 0
    }

    package let defaults: [Int: Defaults]
    package let fileSize: Int64
    /// Whether to record each sample's place (the writer needs them; analysis only the end of the data).
    package let keepLocations: Bool
    /// One past each track's last sample byte, for the truncation check.
    package var dataEnd: [Int: Int64] = [:]
    /// Where each track's next sample is decoded when a fragment has no tfdt.
    package var nextDts: [Int: Int64] = [:]

    package init(defaults: [Int: Defaults], fileSize: Int64, keepLocations: Bool) {
        self.defaults = defaults
        self.fileSize = fileSize
        self.keepLocations = keepLocations
    }

    /// sample_is_non_sync_sample, in the 32-bit sample flags.
    package static let nonSync: UInt32 = 0x0001_0000

    package mutating func read(_ moof: [UInt8], at moofOffset: Int64, into tracks: inout [Int: ISOFile.Track]) throws {
        var body = ByteReader(moof, from: 0, to: moof.count)
        body.skip(8)
        // Without base-data-offset or default-base-is-moof, the first traf's data starts at the moof and each
        // later traf's where the previous one's ended (ISO 14496-12, 8.8.7.1).
        var previousEnd = moofOffset
        for (type, traf) in body.children(until: moof.count) where type == "traf" {
            previousEnd = try readTraf(traf, moofOffset: moofOffset, previousEnd: previousEnd, into: &tracks)
        }
    }

    private mutating func readTraf(
        _ traf: ByteReader, moofOffset: Int64, previousEnd: Int64,
        into tracks: inout [Int: ISOFile.Track]
    ) throws -> Int64 {
        let children = traf.children(until: traf.end)
        guard var tfhd = children.first(where: { $0.0 == "tfhd" })?.1 else { return previousEnd }
        tfhd.skip(1)  // version
        let flags = UInt32(tfhd.u8()) << 16 | UInt32(tfhd.u16())
        let id = Int(tfhd.u32())
        guard let track = tracks[id] else { return previousEnd }
        var d = defaults[id] ?? Defaults()
        var base = flags & 0x02_0000 != 0 ? moofOffset : previousEnd
        if flags & 0x01 != 0 { base = Int64(clamping: tfhd.u64()) }
        if flags & 0x02 != 0 { d.descriptionIndex = tfhd.u32() }
        if flags & 0x08 != 0 { d.duration = tfhd.u32() }
        if flags & 0x10 != 0 { d.size = tfhd.u32() }
        if flags & 0x20 != 0 { d.flags = tfhd.u32() }
        guard d.descriptionIndex <= 1 || track.descriptionCount >= Int(d.descriptionIndex) else {
            throw MediaError(
                "read index",
                reason: "a fragment of track \(id) names sample description \(d.descriptionIndex), which does not exist"
            )
        }

        var dts = nextDts[id] ?? track.timeline.samples.last.map { $0.dts &+ $0.duration } ?? 0
        if var tfdt = children.first(where: { $0.0 == "tfdt" })?.1 {
            let version = tfdt.u8()
            tfdt.skip(3)
            dts = version == 1 ? Int64(clamping: tfdt.u64()) : Int64(tfdt.u32())
        }
        var position = base
        for (type, run) in children where type == "trun" {
            var r = run
            r.skip(1)  // version: 1 means signed offsets; 0 is read signed too
            let runFlags = UInt32(r.u8()) << 16 | UInt32(r.u16())
            let declared = Int(r.u32())
            if runFlags & 0x01 != 0 { position = SampleLayout.add(base, Int64(Int32(bitPattern: r.u32()))) }
            let firstFlags: UInt32? = runFlags & 0x04 != 0 ? r.u32() : nil
            let fields = [0x100, 0x200, 0x400, 0x800].filter { runFlags & UInt32($0) != 0 }.count * 4
            // Bounded by the bytes the run really holds (and by the file, when every field is a default).
            let count =
                fields > 0 ? min(declared, r.remaining / fields) : min(declared, Int(fileSize / Int64(max(d.size, 1))))
            guard (tracks[id]?.timeline.samples.count ?? 0) + count <= 50_000_000 else {
                throw MediaError("read index", reason: "absurd sample count in the fragments of track \(id)")
            }
            for i in 0..<count {
                let duration = runFlags & 0x100 != 0 ? r.u32() : d.duration
                let size = runFlags & 0x200 != 0 ? r.u32() : d.size
                let sampleFlags = runFlags & 0x400 != 0 ? r.u32() : (i == 0 ? firstFlags ?? d.flags : d.flags)
                let raw = runFlags & 0x800 != 0 ? r.u32() : 0
                let offset = Int64(Int32(bitPattern: raw))
                tracks[id]?.timeline.samples.append(
                    SampleTiming(
                        dts: dts, pts: dts &+ offset, duration: Int64(duration),
                        isSync: sampleFlags & Self.nonSync == 0))
                if keepLocations { tracks[id]?.locations.append(SampleLocation(offset: position, size: Int64(size))) }
                dts &+= Int64(duration)
                position = SampleLayout.add(position, Int64(size))
                dataEnd[id] = max(dataEnd[id] ?? 0, position)
            }
        }
        nextDts[id] = dts
        return position
    }
}
