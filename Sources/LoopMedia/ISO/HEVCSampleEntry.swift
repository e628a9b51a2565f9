import LoopAnalysis
import LoopIndex

/// hev1 to hvc1, losslessly: the sample entry is renamed and its hvcC arrays marked complete; a sample that
/// repeats the parameter sets in band (as hev1 allows, hvc1 does not) loses those NAL units, which must be the
/// hvcC's own bytes. Where they differ (the stream changes its parameters), the track stays hev1.
enum HEVCSampleEntry {
    /// The hvcC payload's range inside a sample entry.
    static func hvcCRange(_ entry: [UInt8]) -> Range<Int>? { ISOFile.configurationRange(entry, type: "hvcC") }

    static func moveParameterSets(_ layout: inout TrackLayout, entry: [UInt8], source: String) throws {
        guard let range = hvcCRange(entry), let config = HEVCConfig(Array(entry[range])) else { return }
        let known = Set([32, 33, 34].flatMap { config.units($0) })
        guard !known.isEmpty else { return }
        var replaced: [Int: [UInt8]] = [:]
        for (k, e) in layout.entries.enumerated() where e.isSync {
            let bytes = try e.replacement ?? ISOFile.bytes(source, e.location)
            let units = FrameBytes.content(bytes, codec: "hevc", extradata: config.bytes)
            let sets = units.filter { (32...34).contains(HEVC.type($0)) }
            guard !sets.isEmpty else { continue }
            guard sets.allSatisfy(known.contains) else { return }  // new parameters mid-stream: stays hev1
            replaced[k] = lengthPrefixed(units.filter { !(32...34).contains(HEVC.type($0)) }, size: config.lengthSize)
        }
        for (k, bytes) in replaced { layout.entries[k].replacement = bytes }
        layout.hvc1 = true
    }

    /// An stsd payload (version, flags, count, entries) with its one entry renamed hvc1, arrays complete.
    static func retagged(_ stsd: [UInt8]) -> [UInt8] {
        guard stsd.count > 16 else { return stsd }
        var out = stsd
        out.replaceSubrange(12..<16, with: Array("hvc1".utf8))
        let entry = Array(out[8...])
        guard let range = hvcCRange(entry), var config = HEVCConfig(Array(entry[range])) else { return out }
        for k in config.arrays.indices where (32...34).contains(config.arrays[k].type & 0x3f) {
            config.arrays[k].type |= 0x80
        }
        out.replaceSubrange((8 + range.lowerBound)..<(8 + range.upperBound), with: config.bytes)
        return out
    }
}
