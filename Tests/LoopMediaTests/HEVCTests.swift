import Foundation
import LoopAnalysis
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// HEVC parameter-set renumbering, on real x265 output (the fixtures: B-frames, open GOPs, wavefront entry
/// points, Main and Main 10). Renumbering a slice to the id it has must give its bytes back, and to another id
/// and back again too: the header was read to its end and the slice data was not touched.
@Suite struct HEVCTests {
    @Test(arguments: ["hevc-gop10-a.mp4", "hevc10-hdr.mp4", "hevc.mp4"])
    func slicesRenumberAndBack(file: String) throws {
        let probe = try Probe.probe(Fixtures.path(file), keepInput: false, locations: true)
        let video = try #require(probe.facts.mainVideo)
        let config = try #require(
            FrameBytes.extradata(probe, track: video.index).flatMap(HEVCConfig.init))
        let sps = try #require(config.units(33).first)
        let pps = try #require(config.units(34).first)
        #expect(HEVC.ids(sps)?.own == 0 && HEVC.ids(pps)?.own == 0)
        let context = try HEVCSliceContext(sps: sps, pps: pps)
        var slices = 0
        for n in 0..<video.packetCount {
            let sample = try #require(try FrameBytes.read(probe, track: video.index, sample: n))
            for nal in FrameBytes.content(sample, codec: "hevc", extradata: config.bytes) where HEVC.type(nal) < 32 {
                #expect(try context.renumberSlice(nal, ppsID: 0) == nal)
                let moved = try context.renumberSlice(nal, ppsID: 5)
                #expect(moved != nal)
                #expect(try context.renumberSlice(moved, ppsID: 0) == nal)
                slices += 1
            }
        }
        #expect(slices == video.frameCount)
        // The parameter sets: new ids, read back; the rest of each set as it was.
        let newSPS = try HEVC.renumber(sps, own: 3, refers: 2)
        let newPPS = try HEVC.renumber(pps, own: 7, refers: 3)
        #expect(HEVC.ids(newSPS).map { [$0.own, $0.refers ?? -1] } == [3, 2])
        #expect(HEVC.ids(newPPS).map { [$0.own, $0.refers ?? -1] } == [7, 3])
        #expect(
            try HEVC.renumber(newSPS, own: 0, refers: 0) == sps && (try HEVC.renumber(newPPS, own: 0, refers: 0)) == pps
        )
    }
}

/// hev1 (FFmpeg's default tag, parameter sets repeated in band) is reported on Apple's targets and fix writes
/// it as hvc1: the sample entry renamed, its arrays complete, the in-band copies dropped from the keyframes;
/// every frame decodes to the same pixels.
@Suite struct HEV1Tests {
    @Test func fixRetagsHev1AsHvc1() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.path("hevc-hev1.mp4")
        let out = dir.appendingPathComponent("hevc-hev1.mp4").path
        let before = try Probe.facts(path: source)
        #expect(before.mainVideo?.codecTag == "hev1")
        #expect(
            Analyzer.findings(in: before).contains {
                $0.rule == "not-playable-on-target" && $0.message.contains("hev1")
            })
        #expect(
            !Analyzer.findings(in: before, options: .init(target: .chrome)).contains { $0.message.contains("hev1") })
        let report = ClipFix.fix(
            source,
            FixRequest(to: out, options: .init(), analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        #expect(report.fix?.status == .fixed, "\(report.fix?.reason ?? "")")
        let after = try Probe.facts(path: out)
        #expect(after.mainVideo?.codecTag == "hvc1")
        #expect(!Analyzer.findings(in: after).contains { $0.rule == "not-playable-on-target" })
        #expect(try FFmpegDecode.frames(out) == (try FFmpegDecode.frames(source)))
        // The written keyframes carry no parameter sets of their own.
        let probe = try Probe.probe(out, keepInput: false, locations: true)
        let config = try #require(FrameBytes.extradata(probe, track: 0))
        let first = try #require(try FrameBytes.read(probe, track: 0, sample: 0))
        #expect(
            !FrameBytes.content(first, codec: "hevc", extradata: config).contains { (32...34).contains(HEVC.type($0)) })
        #expect(
            HEVCConfig(config)?.arrays.filter { (32...34).contains($0.type & 0x3f) }.allSatisfy { $0.type & 0x80 != 0 }
                == true)
    }
}
