import LoopIndex

/// A track's stbl for the kept samples: the source's sample description, then stts, ctts, stss, stsz, stsc,
/// stco/co64, and the per-sample tables that can be carried across (sdtp, sample groups).
struct SampleTables {
    var box: Box

    /// `chunkSamples`: each chunk's samples (frames for PCM); the chunk offsets are left 0.
    init(track: TrackLayout, source: Box, chunkSamples: [Int64], wide: Bool) {
        var children: [Box] = []
        if var stsd = source.first("stsd") {
            if track.hvc1, let payload = stsd.payload { stsd.payload = HEVCSampleEntry.retagged(payload) }
            children.append(stsd)
        }
        let entries = track.entries
        if let pcm = track.pcm {
            // A frame per sample, a tick per frame: one stts run, stsz's size as the source had it.
            let frames = entries.reduce(Int64(0)) { $0 + $1.duration }
            children.append(.full("stts", be32(1) + be32(UInt32(clamping: frames)) + be32(1)))
            children.append(.full("stsz", be32(pcm.sampleSizeField) + be32(UInt32(clamping: frames))))
            children.append(Self.chunkTable(chunkSamples))
        } else {
            children.append(.full("stts", Self.runs(entries.lazy.map(\.duration), signed: false)))
            if entries.contains(where: { $0.compositionOffset != 0 }) {
                let negative = entries.contains { $0.compositionOffset < 0 }
                children.append(
                    .full(
                        "ctts", version: negative ? 1 : 0,
                        Self.runs(entries.lazy.map(\.compositionOffset), signed: negative)))
            }
            if !entries.allSatisfy(\.isSync) {
                let sync = entries.indices.filter { entries[$0].isSync }
                children.append(.full("stss", be32(UInt32(sync.count)) + sync.flatMap { be32(UInt32($0 + 1)) }))
            }
            let first = entries.first.map { MP4Writer.bytes($0, track) }
            if let size = first, entries.allSatisfy({ MP4Writer.bytes($0, track) == size }) {
                children.append(.full("stsz", be32(UInt32(clamping: size)) + be32(UInt32(entries.count))))
            } else {
                var table = be32(0) + be32(UInt32(entries.count))
                table.reserveCapacity(8 + 4 * entries.count)
                for entry in entries { table.append(u32: UInt32(clamping: MP4Writer.bytes(entry, track))) }
                children.append(.full("stsz", table))
            }
            children.append(Self.chunkTable(chunkSamples))
        }
        children.append(Self.offsetTable([Int64](repeating: 0, count: chunkSamples.count), wide: wide))
        if track.pcm == nil {
            if let sdtp = Self.dependencies(source.first("sdtp"), entries) { children.append(sdtp) }
            children += Self.sampleGroups(source, entries)
        }
        box = Box("stbl", children: children)
    }

    /// stco (32-bit) or co64: each chunk's offset in the file.
    static func offsetTable(_ offsets: [Int64], wide: Bool) -> Box {
        var table = be32(UInt32(offsets.count))
        table.reserveCapacity(4 + offsets.count * (wide ? 8 : 4))
        for offset in offsets {
            if wide {
                table.append(u32: UInt32(UInt64(offset) >> 32))
                table.append(u32: UInt32(UInt64(offset) & 0xffff_ffff))
            } else {
                table.append(u32: UInt32(clamping: offset))
            }
        }
        return .full(wide ? "co64" : "stco", table)
    }

    /// Run-length (count, value) pairs after the entry count, as stts and ctts store them.
    static func runs<S: Sequence>(_ values: S, signed: Bool) -> [UInt8] where S.Element == Int64 {
        var pairs: [(UInt32, Int64)] = []
        for v in values {
            if let last = pairs.last, last.1 == v { pairs[pairs.count - 1].0 += 1 } else { pairs.append((1, v)) }
        }
        var out = be32(UInt32(pairs.count))
        out.reserveCapacity(4 + 8 * pairs.count)
        for (count, value) in pairs {
            out.append(u32: count)
            out.append(u32: signed ? UInt32(bitPattern: Int32(clamping: value)) : UInt32(clamping: value))
        }
        return out
    }

    /// stsc: runs of chunks with the same number of samples, all with sample description 1.
    static func chunkTable(_ perChunk: [Int64]) -> Box {
        var runs: [(first: Int, count: Int64)] = []
        for (i, n) in perChunk.enumerated() where runs.last?.count != n { runs.append((i + 1, n)) }
        return .full(
            "stsc",
            be32(UInt32(runs.count))
                + runs.flatMap { be32(UInt32($0.first)) + be32(UInt32(clamping: $0.count)) + be32(1) })
    }

    /// sdtp holds a byte per sample: the kept samples' bytes.
    static func dependencies(_ sdtp: Box?, _ entries: [TrackLayout.Entry]) -> Box? {
        guard let p = sdtp?.payload, p.count > 4 else { return nil }
        let flags = p.dropFirst(4)
        guard entries.allSatisfy({ $0.sourceIndex < flags.count }) else { return nil }
        return Box("sdtp", Array(p[0..<4]) + entries.map { flags[flags.startIndex + $0.sourceIndex] })
    }

    /// Sample groups (sgpd descriptions, sbgp per-sample mapping: AAC and Opus roll distances, HEVC temporal
    /// levels): descriptions as they were, the mapping cut to the kept samples. A mapping that does not cover
    /// every kept sample leaves the rest in no group, as the source did.
    static func sampleGroups(_ stbl: Box, _ entries: [TrackLayout.Entry]) -> [Box] {
        var out: [Box] = []
        for sbgp in stbl.children where sbgp.type == "sbgp" {
            guard let p = sbgp.payload, p.count >= 12 else { continue }
            var r = ByteReader(p, from: 0, to: p.count)
            let version = r.u8()
            r.skip(3)
            let groupingType = r.fourCC()
            let parameter = version == 1 ? r.u32() : nil
            // Runs as stored (bounded by the box's bytes), walked with the kept samples' increasing source
            // numbers: never expanded, whatever count a run claims.
            var runs: [(end: Int, index: UInt32)] = []
            var covered = 0
            for _ in 0..<r.entries(size: 8) {
                let count = Int(r.u32())
                let index = r.u32()
                covered = covered.addingReportingOverflow(count).overflow ? Int.max : covered + count
                runs.append((covered, index))
            }
            var run = 0
            let kept = entries.map { entry -> UInt32 in
                while run < runs.count && runs[run].end <= entry.sourceIndex { run += 1 }
                return run < runs.count ? runs[run].index : 0
            }
            var pairs: [(UInt32, UInt32)] = []
            for v in kept {
                if let last = pairs.last, last.1 == v { pairs[pairs.count - 1].0 += 1 } else { pairs.append((1, v)) }
            }
            let runBytes: [UInt8] = pairs.flatMap { be32($0.0) + be32($0.1) }
            let body: [UInt8] = groupingType.bytes + (parameter.map(be32) ?? []) + be32(UInt32(pairs.count)) + runBytes
            if let sgpd = stbl.children.first(where: {
                $0.type == "sgpd" && $0.payload.map { FourCC(bytes: $0.dropFirst(4)) } == groupingType
            }) {
                out.append(sgpd)
            }
            out.append(.full("sbgp", version: version, body))
        }
        return out
    }
}

extension Array where Element == UInt8 {
    /// Appends a big-endian 32-bit value without a temporary array (tables of an hour's samples).
    mutating func append(u32 v: UInt32) {
        append(UInt8(v >> 24))
        append(UInt8(v >> 16 & 0xff))
        append(UInt8(v >> 8 & 0xff))
        append(UInt8(v & 0xff))
    }
}
