import LoopAnalysis

/// HEVC byte formats, for smart rendering: the hvcC record (ISO 14496-15), and the parameter set ids of an
/// encoder's stream rewritten so its VPS, SPS and PPS can sit beside a source's in one hvcC (x265 always
/// writes id 0, which the source uses too). A slice names its PPS in an Exp-Golomb code near its start, so a
/// new id can change the header's length: the header is parsed to its end (ITU-T H.265 7.3.6.1), written again
/// with the new id, re-aligned, and the slice data copied after it as it was.
package struct HEVCConfig: Equatable {
    /// The 22 bytes before the arrays (profile, tier, level, chroma, bit depths, lengthSizeMinusOne...).
    package var header: [UInt8]
    /// (NAL unit type, units) in order; completeness flags kept in the type byte's top bit.
    package var arrays: [(type: UInt8, units: [[UInt8]])]

    package static func == (a: HEVCConfig, b: HEVCConfig) -> Bool {
        a.header == b.header && a.arrays.map(\.type) == b.arrays.map(\.type)
            && a.arrays.map(\.units) == b.arrays.map(\.units)
    }

    package init?(_ bytes: [UInt8]) {
        guard bytes.count >= 23, bytes[0] == 1 else { return nil }
        header = Array(bytes[0..<22])
        var i = 23
        arrays = []
        for _ in 0..<Int(bytes[22]) {
            guard i + 3 <= bytes.count else { return nil }
            let type = bytes[i]
            let count = Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            i += 3
            guard let units = sizedUnits(bytes, at: &i, count: count) else { return nil }
            arrays.append((type, units))
        }
    }

    package var lengthSize: Int { Int(header[21] & 3) + 1 }

    package var bytes: [UInt8] {
        var out = header + [UInt8(arrays.count)]
        for (type, units) in arrays {
            out += [type, UInt8(units.count >> 8), UInt8(units.count & 0xff)]
            for u in units { out += [UInt8(u.count >> 8), UInt8(u.count & 0xff)] + u }
        }
        return out
    }

    /// The parameter sets of one NAL type (32 VPS, 33 SPS, 34 PPS).
    package func units(_ type: UInt8) -> [[UInt8]] { arrays.filter { $0.type & 0x3f == type }.flatMap(\.units) }

    /// Adds units to the array of their type (a new array where there is none).
    package mutating func append(_ units: [[UInt8]]) {
        for unit in units {
            let type = HEVC.type(unit)
            if let k = arrays.firstIndex(where: { $0.type & 0x3f == type }) {
                arrays[k].units.append(unit)
            } else {
                arrays.append((type, [unit]))
            }
        }
    }
}

package enum HEVC {
    package static func type(_ nal: [UInt8]) -> UInt8 { (nal.first ?? 0) >> 1 & 0x3f }

    /// The ids a parameter set declares (VPS: its own; SPS: its own and its VPS's; PPS: its own and its SPS's).
    package static func ids(_ nal: [UInt8]) -> (own: Int, refers: Int?)? {
        var r = BitReader(NAL.unescape(Array(nal.dropFirst(2))))
        switch type(nal) {
        case 32: return r.u(4).map { ($0, nil) }
        case 33:
            guard let vps = r.u(4), let sub = r.u(3) else { return nil }
            r.skip(1)
            guard skipProfileTierLevel(&r, subLayers: sub), let id = r.ue() else { return nil }
            return (id, vps)
        case 34:
            guard let id = r.ue(), let sps = r.ue() else { return nil }
            return (id, sps)
        default: return nil
        }
    }

    /// A VPS, SPS or PPS with new ids (`own`, and the set it refers to), its other fields as they were.
    package static func renumber(_ nal: [UInt8], own: Int, refers: Int?) throws -> [UInt8] {
        var r = BitReader(NAL.unescape(Array(nal.dropFirst(2))))
        var w = BitWriter()
        switch type(nal) {
        case 32:
            r.skip(4)
            w.write(own, bits: 4)
        case 33:
            guard let vps = r.u(4), let sub = r.u(3), let nesting = r.u(1) else { throw bad("SPS") }
            w.write(refers ?? vps, bits: 4)
            w.write(sub, bits: 3)
            w.write(nesting, bits: 1)
            let ptl = r.position
            guard skipProfileTierLevel(&r, subLayers: sub), r.ue() != nil else { throw bad("SPS") }
            // The profile, tier and level bits as they were, then the new id.
            var copy = BitReader(r.bytes)
            copy.position = ptl
            guard let idStart = Self.positionOfSPSID(r.bytes, from: ptl, subLayers: sub) else { throw bad("SPS") }
            w.copy(from: &copy, bits: idStart - ptl)
            w.ue(own)
        case 34:
            guard r.ue() != nil, let sps = r.ue() else { throw bad("PPS") }
            w.ue(own)
            w.ue(refers ?? sps)
        default:
            throw MediaError("encode", reason: "NAL unit type \(type(nal)) is not a parameter set")
        }
        try copyToStopBit(&r, into: &w)
        return Array(nal.prefix(2)) + NAL.escape(w.bytes)
    }

    private static func positionOfSPSID(_ rbsp: [UInt8], from start: Int, subLayers: Int) -> Int? {
        var r = BitReader(rbsp)
        r.position = start
        return skipProfileTierLevel(&r, subLayers: subLayers) ? r.position : nil
    }

    /// profile_tier_level(1, max_sub_layers_minus1).
    package static func skipProfileTierLevel(_ r: inout BitReader, subLayers: Int) -> Bool {
        r.skip(96)  // general profile space, tier, profile idc, 32 compatibility flags, 48 constraint bits, level idc
        var profilePresent: [Int] = []
        var levelPresent: [Int] = []
        for _ in 0..<subLayers {
            guard let p = r.u(1), let l = r.u(1) else { return false }
            profilePresent.append(p)
            levelPresent.append(l)
        }
        if subLayers > 0 { r.skip(2 * (8 - subLayers)) }
        for i in 0..<subLayers {
            if profilePresent[i] == 1 { r.skip(88) }
            if levelPresent[i] == 1 { r.skip(8) }
        }
        return r.position <= r.bytes.count * 8
    }

    /// The RBSP's bits up to (not including) its stop bit, then the stop bit and alignment anew.
    package static func copyToStopBit(_ r: inout BitReader, into w: inout BitWriter) throws {
        guard let last = r.bytes.lastIndex(where: { $0 != 0 }) else { throw bad("parameter set") }
        let stop = last * 8 + 7 - r.bytes[last].trailingZeroBitCount
        guard stop >= r.position else { throw bad("parameter set") }
        w.copy(from: &r, bits: stop - r.position)
        w.write(1, bits: 1)
        w.align()
    }

    package static func bad(_ what: String) -> MediaError {
        MediaError("encode", reason: "the encoder wrote an HEVC \(what) loopprep cannot read")
    }

}

/// What a slice header needs of its SPS and PPS to be read to its end.
package struct HEVCSliceContext {
    package var ppsID = 0, spsID = 0
    // SPS
    package var chromaArrayType = 1
    package var separateColourPlanes = false
    package var pocLsbBits = 4
    package var ctbAddressBits = 0
    package var shortTermSets: [(deltas: Int, used: Int)] = []
    package var longTermPresent = false
    package var longTermSPS = 0
    package var temporalMVP = false
    package var sao = false
    // PPS
    package var dependentSlices = false
    package var outputFlag = false
    package var extraBits = 0
    package var cabacInitPresent = false
    package var weightedPred = false, weightedBipred = false
    package var chromaQPOffsetsInSlice = false
    package var deblockingOverride = false, deblockingDisabled = false
    package var loopFilterAcrossSlices = false
    package var tilesOrWPP = false
    package var listsModification = false
    package var headerExtension = false
    package var chromaQPOffsetList = false

    /// From the encoder's own SPS and PPS (one of each: x265's).
    package init(sps: [UInt8], pps: [UInt8]) throws {
        try readSPS(sps)
        try readPPS(pps)
    }

    /// What a slice header needs of the SPS: its chroma, POC and CTB sizes, short- and long-term sets, SAO.
    private mutating func readSPS(_ sps: [UInt8]) throws {
        var r = BitReader(NAL.unescape(Array(sps.dropFirst(2))))
        guard r.u(4) != nil, let sub = r.u(3) else { throw HEVC.bad("SPS") }
        r.skip(1)
        guard HEVC.skipProfileTierLevel(&r, subLayers: sub), let sid = r.ue(), let chroma = r.ue() else {
            throw HEVC.bad("SPS")
        }
        spsID = sid
        if chroma == 3 { separateColourPlanes = r.u(1) == 1 }
        chromaArrayType = separateColourPlanes ? 0 : chroma
        guard let width = r.ue(), let height = r.ue() else { throw HEVC.bad("SPS") }
        if r.u(1) == 1 { for _ in 0..<4 { _ = r.ue() } }  // conformance window
        _ = r.ue()
        _ = r.ue()  // bit depths
        guard let pocMinus4 = r.ue() else { throw HEVC.bad("SPS") }
        pocLsbBits = pocMinus4 + 4
        let allSubLayers = r.u(1) == 1
        for _ in (allSubLayers ? 0 : sub)...sub {
            _ = r.ue()
            _ = r.ue()
            _ = r.ue()
        }
        guard let minCb = r.ue(), let diffCb = r.ue() else { throw HEVC.bad("SPS") }
        _ = r.ue()
        _ = r.ue()
        _ = r.ue()
        _ = r.ue()  // transform block sizes and depths
        let ctbLog2 = minCb + 3 + diffCb
        let ctb = 1 << ctbLog2
        let ctbs = ((width + ctb - 1) / ctb) * ((height + ctb - 1) / ctb)
        ctbAddressBits = ctbs > 1 ? Int.bitWidth - (ctbs - 1).leadingZeroBitCount : 0
        if r.u(1) == 1, r.u(1) == 1 { try Self.skipScalingList(&r) }
        r.skip(1)  // amp
        sao = r.u(1) == 1
        if r.u(1) == 1 {
            r.skip(8)
            _ = r.ue()
            _ = r.ue()
            r.skip(1)
        }  // pcm
        try readReferenceSets(&r)
    }

    /// The SPS's short-term reference picture sets, its long-term pictures and temporal MVP.
    private mutating func readReferenceSets(_ r: inout BitReader) throws {
        guard let sets = r.ue() else { throw HEVC.bad("SPS") }
        for i in 0..<sets {
            shortTermSets.append(try Self.shortTermSet(&r, index: i, count: sets, known: shortTermSets))
        }
        longTermPresent = r.u(1) == 1
        if longTermPresent {
            guard let n = r.ue() else { throw HEVC.bad("SPS") }
            longTermSPS = n
            for _ in 0..<n { r.skip(pocLsbBits + 1) }
        }
        temporalMVP = r.u(1) == 1
    }

    /// What a slice header needs of the PPS: its flags, tiles or WPP, deblocking, and the range extension's.
    private mutating func readPPS(_ pps: [UInt8]) throws {
        var p = BitReader(NAL.unescape(Array(pps.dropFirst(2))))
        guard let pid = p.ue(), p.ue() != nil else { throw HEVC.bad("PPS") }
        ppsID = pid
        dependentSlices = p.u(1) == 1
        outputFlag = p.u(1) == 1
        extraBits = p.u(3) ?? 0
        p.skip(1)  // sign data hiding
        cabacInitPresent = p.u(1) == 1
        _ = p.ue()
        _ = p.ue()
        _ = p.se()  // ref idx defaults, init qp
        p.skip(1)  // constrained intra
        let transformSkip = p.u(1) == 1
        if p.u(1) == 1 { _ = p.ue() }  // cu qp delta depth
        _ = p.se()
        _ = p.se()
        chromaQPOffsetsInSlice = p.u(1) == 1
        weightedPred = p.u(1) == 1
        weightedBipred = p.u(1) == 1
        p.skip(1)  // transquant bypass
        let tiles = p.u(1) == 1
        let wpp = p.u(1) == 1
        tilesOrWPP = tiles || wpp
        if tiles {
            guard let columns = p.ue(), let rows = p.ue() else { throw HEVC.bad("PPS") }
            if p.u(1) == 0 { for _ in 0..<(columns + rows) { _ = p.ue() } }  // not uniform: sizes
            p.skip(1)  // loop filter across tiles
        }
        loopFilterAcrossSlices = p.u(1) == 1
        if p.u(1) == 1 {
            deblockingOverride = p.u(1) == 1
            deblockingDisabled = p.u(1) == 1
            if !deblockingDisabled {
                _ = p.se()
                _ = p.se()
            }
        }
        if p.u(1) == 1 { try Self.skipScalingList(&p) }
        listsModification = p.u(1) == 1
        _ = p.ue()
        headerExtension = p.u(1) == 1
        if p.u(1) == 1 { try readRangeExtension(&p, transformSkip: transformSkip) }
        guard p.position <= p.bytes.count * 8 else { throw HEVC.bad("PPS") }
    }

    /// The PPS's extensions: of them only the range extension's chroma QP offset list reaches a slice header.
    private mutating func readRangeExtension(_ p: inout BitReader, transformSkip: Bool) throws {
        let range = p.u(1) == 1
        p.skip(3)  // multilayer, 3d, scc
        guard p.u(4) == 0 else { throw HEVC.bad("PPS extension") }
        if range {
            if transformSkip { _ = p.ue() }  // log2 max transform skip size
            p.skip(1)  // cross-component prediction
            chromaQPOffsetList = p.u(1) == 1
        }
    }

    package static func skipScalingList(_ r: inout BitReader) throws {
        for size in 0..<4 {
            for _ in stride(from: 0, to: 6, by: size == 3 ? 3 : 1) {
                if r.u(1) == 0 {
                    _ = r.ue()
                    continue
                }
                let coefficients = min(64, 1 << (4 + size * 2))
                if size > 1 { _ = r.se() }
                for _ in 0..<coefficients { _ = r.se() }
            }
        }
        guard r.position <= r.bytes.count * 8 else { throw HEVC.bad("scaling list") }
    }

    /// st_ref_pic_set(idx): how many deltas it has, and how many of them the current picture uses.
    package static func shortTermSet(_ r: inout BitReader, index: Int, count: Int, known: [(deltas: Int, used: Int)])
        throws
        -> (deltas: Int, used: Int)
    {
        if index != 0, r.u(1) == 1 {
            var delta = 1
            if index == count {
                guard let d = r.ue() else { throw HEVC.bad("RPS") }
                delta = d + 1
            }
            guard index - delta >= 0, index - delta < known.count else { throw HEVC.bad("RPS") }
            r.skip(1)
            _ = r.ue()  // sign, abs delta
            var deltas = 0
            var used = 0
            for _ in 0...known[index - delta].deltas {
                let usedFlag = r.u(1) == 1
                let useDelta = usedFlag ? true : r.u(1) == 1
                if usedFlag { used += 1 }
                if useDelta { deltas += 1 }
            }
            return (deltas, used)
        }
        guard let negative = r.ue(), let positive = r.ue() else { throw HEVC.bad("RPS") }
        var used = 0
        for _ in 0..<(negative + positive) {
            _ = r.ue()
            if r.u(1) == 1 { used += 1 }
        }
        return (negative + positive, used)
    }

    /// A slice NAL of this SPS/PPS pair renumbered to PPS `id`: the header up to the PPS id, the new id, the
    /// rest of the header, byte alignment anew, and the slice data bytes as they were.
    package func renumberSlice(_ nal: [UInt8], ppsID id: Int) throws -> [UInt8] {
        let type = Int(HEVC.type(nal))
        let rbsp = NAL.unescape(Array(nal.dropFirst(2)))
        var r = BitReader(rbsp)
        var w = BitWriter()
        func fail() -> MediaError { HEVC.bad("slice header") }
        guard let first = r.u(1) else { throw fail() }
        w.write(first, bits: 1)
        if (16...23).contains(type) {
            guard let f = r.u(1) else { throw fail() }
            w.write(f, bits: 1)
        }
        guard r.ue() != nil else { throw fail() }
        w.ue(id)
        let rest = r.position
        var dependent = false
        if first == 0 {
            if dependentSlices { dependent = r.u(1) == 1 }
            r.skip(ctbAddressBits)
        }
        if !dependent {
            r.skip(extraBits)
            guard let sliceType = r.ue() else { throw fail() }
            if outputFlag { r.skip(1) }
            if separateColourPlanes { r.skip(2) }
            var temporal = false
            var currentUsed = 0
            if type != 19 && type != 20 {
                r.skip(pocLsbBits)
                if r.u(1) == 0 {
                    currentUsed = try Self.shortTermSet(
                        &r, index: shortTermSets.count, count: shortTermSets.count, known: shortTermSets
                    ).used
                } else if shortTermSets.count > 1 {
                    let bits = Int.bitWidth - (shortTermSets.count - 1).leadingZeroBitCount
                    guard let k = r.u(bits), k < shortTermSets.count else { throw fail() }
                    currentUsed = shortTermSets[k].used
                } else {
                    currentUsed = shortTermSets.first?.used ?? 0
                }
                if longTermPresent {
                    var fromSPS = 0
                    if longTermSPS > 0 { fromSPS = r.ue() ?? 0 }
                    guard let pictures = r.ue() else { throw fail() }
                    for i in 0..<(fromSPS + pictures) {
                        if i < fromSPS {
                            if longTermSPS > 1 { r.skip(Int.bitWidth - (longTermSPS - 1).leadingZeroBitCount) }
                        } else {
                            r.skip(pocLsbBits)
                            if r.u(1) == 1 { currentUsed += 1 }
                        }
                        if r.u(1) == 1 { _ = r.ue() }
                    }
                    // (A long-term picture from the SPS may be used too; lists modification needs the count.)
                    if listsModification, fromSPS > 0 { throw fail() }
                }
                if temporalMVP { temporal = r.u(1) == 1 }
            }
            var saoLuma = false
            var saoChroma = false
            if sao {
                saoLuma = r.u(1) == 1
                if chromaArrayType != 0 { saoChroma = r.u(1) == 1 }
            }
            if sliceType == 0 || sliceType == 1 {
                let b = sliceType == 0
                var l0 = 0
                var l1 = 0
                if r.u(1) == 1 {
                    l0 = r.ue() ?? 0
                    if b { l1 = r.ue() ?? 0 }
                }
                if listsModification, currentUsed > 1 {
                    let bits = Int.bitWidth - (currentUsed - 1).leadingZeroBitCount
                    if r.u(1) == 1 { r.skip(bits * (l0 + 1)) }
                    if b, r.u(1) == 1 { r.skip(bits * (l1 + 1)) }
                }
                if b { r.skip(1) }
                if cabacInitPresent { r.skip(1) }
                if temporal {
                    var fromL0 = true
                    if b { fromL0 = r.u(1) == 1 }
                    if (fromL0 && l0 > 0) || (!fromL0 && l1 > 0) { _ = r.ue() }
                }
                // x265 is run without weighted prediction.
                if (weightedPred && !b) || (weightedBipred && b) { throw fail() }
                _ = r.ue()  // five minus max merge candidates
            }
            _ = r.se()  // slice qp delta
            if chromaQPOffsetsInSlice {
                _ = r.se()
                _ = r.se()
            }
            if chromaQPOffsetList { r.skip(1) }
            var override = false
            if deblockingOverride { override = r.u(1) == 1 }
            var disabled = deblockingDisabled
            if override {
                disabled = r.u(1) == 1
                if !disabled {
                    _ = r.se()
                    _ = r.se()
                }
            }
            if loopFilterAcrossSlices && (saoLuma || saoChroma || !disabled) { r.skip(1) }
        }
        if tilesOrWPP {
            guard let entries = r.ue() else { throw fail() }
            if entries > 0 {
                guard let length = r.ue() else { throw fail() }
                r.skip(entries * (length + 1))
            }
        }
        if headerExtension {
            guard let length = r.ue() else { throw fail() }
            r.skip(8 * length)
        }
        // byte_alignment(): a one, then zeros to the byte.
        let headerEnd = r.position
        guard r.u(1) == 1 else { throw fail() }
        while r.position % 8 != 0 { guard r.u(1) == 0 else { throw fail() } }
        guard r.position <= rbsp.count * 8 else { throw fail() }
        var copy = BitReader(rbsp)
        copy.position = rest
        w.copy(from: &copy, bits: headerEnd - rest)
        w.write(1, bits: 1)
        w.align()
        return Array(nal.prefix(2)) + NAL.escape(w.bytes + rbsp[(r.position / 8)...])
    }
}

extension HEVCConfig {
    /// Two configurations clash if a parameter set id means different bytes in each.
    package func clashes(with other: HEVCConfig) -> Bool {
        for type: UInt8 in 32...34 {
            let mine = Dictionary(
                units(type).compactMap { u in HEVC.ids(u).map { ($0.own, u) } }, uniquingKeysWith: { a, _ in a })
            for u in other.units(type) { if let id = HEVC.ids(u)?.own, let m = mine[id], m != u { return true } }
        }
        return false
    }
}

extension HEVCConfig {
    /// Its VPS, SPS and PPS as values, with their ids.
    package var parameterSets: [ParameterSet] {
        [(UInt8(32), ParameterSet.Kind.video), (33, .sequence), (34, .picture)].flatMap { type, kind in
            units(type).map { ParameterSet(kind: kind, id: HEVC.ids($0)?.own, bytes: $0) }
        }
    }
}
