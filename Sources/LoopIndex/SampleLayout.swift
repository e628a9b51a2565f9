/// Where a track's samples are: sizes (stsz), samples per chunk (stsc) and chunk offsets (stco/co64), each
/// read only as far as its box really holds entries.
package struct SampleLayout {
    /// stsz's one size for every sample, or 0 when sizes are listed.
    package var fixedSize: Int64 = 0
    /// Samples that have a size: listed ones, or stsz's count when the size is fixed.
    package var sampleCount = 0
    package var sizes = ByteReader([], from: 0, to: 0)
    package var runs: [(firstChunk: Int, perChunk: Int)] = []
    package var offsets: [Int64] = []

    package init(stsz: ByteReader?, stsc: ByteReader?, stco: ByteReader?, co64: ByteReader?, fileSize: Int64) {
        if var sz = stsz {
            sz.skip(4)
            fixedSize = Int64(sz.u32())
            let declared = Int(sz.u32())
            // Listed sizes are bounded by the list; a fixed size by the bytes the file can hold.
            sampleCount = fixedSize != 0 ? min(declared, Int(fileSize / fixedSize)) : min(declared, sz.remaining / 4)
            sizes = sz
        }
        if var o = stco {
            o.skip(4)
            for _ in 0..<o.entries(size: 4) { offsets.append(Int64(o.u32())) }
        }
        if var o = co64 {
            o.skip(4)
            for _ in 0..<o.entries(size: 8) { offsets.append(Int64(clamping: o.u64())) }
        }
        if var sc = stsc {
            sc.skip(4)
            for _ in 0..<sc.entries(size: 12) {
                runs.append((Int(sc.u32()), Int(sc.u32())))
                sc.skip(4)
            }
        }
    }

    /// Calls `body(offset, samples in the chunk)` for each chunk in order until it returns false. stsc runs
    /// are sorted by first chunk, so one pass walks both tables.
    package func forEachChunk(_ body: (Int64, Int) -> Bool) {
        var run = -1
        for (chunk, offset) in offsets.enumerated() {
            while run + 1 < runs.count && runs[run + 1].firstChunk <= chunk + 1 { run += 1 }
            guard body(offset, run >= 0 ? runs[run].perChunk : 0) else { return }
        }
    }

    /// The place of each of the first `count` samples. Offsets and sizes saturate: a value near 2^63 must
    /// read as "past the end of the file", not wrap. Samples the chunk table does not reach get size 0 at
    /// offset Int64.max (the caller sees them as past the end).
    package func locations(count: Int) -> [SampleLocation] {
        var sizes = self.sizes
        var out: [SampleLocation] = []
        out.reserveCapacity(count)
        forEachChunk { offset, perChunk in
            var position = offset
            for _ in 0..<max(min(perChunk, count - out.count), 0) {
                let size = fixedSize != 0 ? fixedSize : Int64(sizes.u32())
                out.append(SampleLocation(offset: position, size: size))
                position = Self.add(position, size)
            }
            return out.count < count
        }
        while out.count < count { out.append(SampleLocation(offset: .max, size: 0)) }
        return out
    }

    package static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (r, o) = a.addingReportingOverflow(b)
        return o ? .max : r
    }

    /// The end of the last byte of sample data. Compared with the file size, this tells a truncated file from
    /// a whole one.
    package func dataEnd() -> Int64 {
        var sizes = self.sizes
        var sample = 0
        var end: Int64 = 0
        forEachChunk { offset, perChunk in
            let n = min(perChunk, sampleCount - sample)
            var position = offset
            if fixedSize != 0 {
                let (bytes, overflow) = fixedSize.multipliedReportingOverflow(by: Int64(max(n, 0)))
                position = Self.add(offset, overflow ? .max : bytes)
            } else {
                for _ in 0..<max(n, 0) { position = Self.add(position, Int64(sizes.u32())) }
            }
            sample += max(n, 0)
            end = max(end, position)
            return sample < sampleCount
        }
        return end
    }
}
