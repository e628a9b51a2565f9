import LoopAnalysis
import LoopIndex

/// An x265 run's parameter sets with ids the track does not use yet (VPS, SPS and PPS each the lowest free
/// one), and the renumbering its slices need.
struct HEVCRenumbering: Sendable {
    /// x265's VPS, SPS and PPS as it wrote them (all id 0).
    let original: [[UInt8]]
    /// The same, renumbered, for the hvcC.
    let units: [[UInt8]]
    let slices: HEVCSliceContext
    let ppsID: Int

    /// `ids`: the ones the render plan gave this encoder's sets (StitchRenderPlan.hevcGroups).
    init(encoderSets: [[UInt8]], ids: HEVCSetIDs) throws {
        guard let vps = encoderSets.first(where: { HEVC.type($0) == 32 }),
            let sps = encoderSets.first(where: { HEVC.type($0) == 33 }),
            let pps = encoderSets.first(where: { HEVC.type($0) == 34 })
        else {
            throw MediaError("encode", reason: "the HEVC encoder gave no VPS, SPS and PPS")
        }
        let v = ids.video
        let s = ids.sequence
        let p = ids.picture
        original = [vps, sps, pps]
        units = [
            try HEVC.renumber(vps, own: v, refers: nil), try HEVC.renumber(sps, own: s, refers: v),
            try HEVC.renumber(pps, own: p, refers: s),
        ]
        slices = try HEVCSliceContext(sps: sps, pps: pps)
        ppsID = p
    }

    /// An encoded access unit (Annex B) as a sample of the track: parameter sets and delimiters dropped (they
    /// are in the hvcC), slices renumbered, NAL units length-prefixed like the source's.
    func sample(_ bytes: [UInt8], lengthSize: Int) throws -> [UInt8] {
        var units: [[UInt8]] = []
        for unit in annexBUnits(bytes) {
            let type = HEVC.type(unit)
            if (32...35).contains(type) { continue }
            units.append(type < 32 ? try slices.renumberSlice(unit, ppsID: ppsID) : unit)
        }
        return lengthPrefixed(units, size: lengthSize)
    }
}
