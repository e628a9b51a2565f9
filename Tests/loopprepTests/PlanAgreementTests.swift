import Foundation
import LoopAnalysis
import TestSupport
import Testing

/// Plan, then carry out: a dry run prints the plan, and a write carries out that same value. Every command is run
/// twice on its fixture set, once with --dry-run and once writing, and each input's plan in the two JSON reports must
/// be equal (the write's plan is in its report whether the output was kept or refused).
@Suite(.serialized) struct PlanAgreementTests {
    /// Every command's report of one input in one shape: its outcome and the plan it carried out, at one path.
    struct Document: Decodable {
        struct File: Decodable {
            var path: String
            var outcome: Outcome
            var plan: FixPlan?
            /// loop --crossfade's plan: the blend's timeline (at `plan` and `blend`).
            var blend: StitchTimeline?
            var chosen: Int?

            enum CodingKeys: String, CodingKey { case path, outcome, plan, blend, chosen }

            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                path = try c.decode(String.self, forKey: .path)
                outcome = try c.decode(Outcome.self, forKey: .outcome)
                chosen = try c.decodeIfPresent(Int.self, forKey: .chosen)
                blend = try c.decodeIfPresent(StitchTimeline.self, forKey: .blend)
                if let blend {
                    // A crossfaded loop's plan is its blend, where every command's plan is.
                    #expect(try c.decodeIfPresent(StitchTimeline.self, forKey: .plan) == blend, "\(path)")
                } else {
                    plan = try c.decodeIfPresent(FixPlan.self, forKey: .plan)
                }
            }
        }
        var files: [File]
    }

    /// fix on every fixture, one batch each way (the folder as a user gives it).
    @Test func everyFixtureFixedAsItsDryRunPlanned() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let planned = try Self.fix([Run.fixtures.path, "-o", out, "--dry-run"])
        let written = try Self.fix([Run.fixtures.path, "-o", out, "--no-seam"])
        #expect(planned.count == written.count && planned.count > 100, "\(planned.count) \(written.count)")
        var compared = 0
        for (path, dry) in planned {
            let wet = try #require(written[path], "\(path)")
            guard let plan = dry.plan else {
                // Unreadable, or refused while planning: the write refuses before writing too, nothing on disk.
                #expect(wet.plan == nil && wet.outcome.failed, "\(path): \(wet.outcome)")
                #expect(wet.outcome == dry.outcome, "\(path): \(wet.outcome)")
                continue
            }
            #expect(dry.outcome.status == .planned || dry.outcome.status == .refused, "\(path): \(dry.outcome)")
            #expect(wet.plan == plan, "\(path): the write carried out another plan than its dry run's")
            if dry.outcome.status == .planned, wet.outcome.status != .refused {
                #expect(wet.outcome.output == dry.outcome.output, "\(path)")
                #expect([.written, .unchanged].contains(wet.outcome.status), "\(path): \(wet.outcome)")
                // The name claimed before any input was read is the plan's, but where the streams decide: PCM
                // goes into a MOV.
                let relative = String(path.dropFirst(Run.fixtures.path.count + 1))
                let expected = FixConversion.expectedPath(out + "/" + relative, to: nil)
                if plan.convertsTo != .mov { #expect(dry.outcome.output == expected, "\(path)") }
            }
            compared += 1
        }
        #expect(compared > 80, "\(compared)")
    }

    /// loop on clips that repeat (a period in an MP4 and a WebM, long-GOP footage, a scrolling street): the cut or
    /// the blend planned is the one written.
    @Test(arguments: [["--crossfade", "0.2"], []])
    func everyLoopWrittenAsItsDryRunPlanned(extra: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        for name in ["loop-period45.mp4", "loop-period45.webm", "footage-gop250.mp4", "street-period.mp4"] {
            try FileManager.default.copyItem(
                atPath: Run.fixture(name), toPath: clips.appendingPathComponent(name).path)
        }
        let out = dir.appendingPathComponent("out").path
        let planned = try Self.loop([clips.path, "-o", out, "--dry-run"] + extra)
        let written = try Self.loop([clips.path, "-o", out] + extra)
        #expect(planned.count == 4 && written.count == 4)
        for (path, dry) in planned {
            let wet = try #require(written[path], "\(path)")
            #expect(dry.plan != nil || dry.blend != nil || dry.outcome.status == .refused, "\(path): no plan")
            #expect(wet.plan == dry.plan && wet.blend == dry.blend, "\(path)")
            // The same refusal in the same words, or the loop written where the plan put it.
            #expect(wet.chosen == dry.chosen, "\(path)")
            if dry.outcome.status == .refused {
                #expect(wet.outcome == dry.outcome, "\(path): \(wet.outcome)")
            } else {
                #expect(dry.outcome.status == .planned && wet.outcome.status == .written, "\(path): \(wet.outcome)")
                let named = out + "/" + (path as NSString).lastPathComponent
                #expect(wet.outcome.output == dry.outcome.output && wet.outcome.output == dry.plan?.outputPath ?? named)
            }
        }
    }

    /// stitch: the timeline planned (clips, joins, frames) is the one written, cut or crossfaded, looping or not.
    @Test(arguments: [
        ["h264-gop10-a.mp4", "h264-gop10-b.mp4", "--transition", "crossfade", "--duration", "0.2"],
        ["h264-gop10-a.mp4", "h264-gop10-b.mp4", "--loop"],
        ["vp9-gop10-a.webm", "vp9-gop10-b.webm", "--transition", "crossfade", "--duration", "0.2", "--loop"],
        ["ss-cut-a.mkv", "ss-cut-b.mkv", "--transition", "crossfade", "--duration", "0.4"],
    ])
    func everyStitchWrittenAsItsDryRunPlanned(arguments: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = arguments.prefix(2).map(Run.fixture)
        let out = dir.appendingPathComponent("reel." + (clips[0].hasSuffix(".webm") ? "webm" : "mp4")).path
        let rest = Array(arguments.dropFirst(2)) + ["-o", out, "--format", "json"]
        let dry = try Run.loopprep(["stitch"] + clips + rest + ["--dry-run"])
        let wet = try Run.loopprep(["stitch"] + clips + rest)
        #expect(dry.status == 0 && wet.status == 0, "\(dry.stderr)\(wet.stderr)")
        // The reel's record in every command's report.
        let planned = try #require(try JSONDecoder().decode(Report.self, from: Data(dry.stdout.utf8)).files.first)
        let carried = try #require(try JSONDecoder().decode(Report.self, from: Data(wet.stdout.utf8)).files.first)
        #expect(planned.reel?.timeline != nil && planned.reel?.timeline == carried.reel?.timeline)
        #expect(planned.reel?.reencoded == carried.reel?.reencoded)
        #expect(planned.outcome == .planned(output: out) && carried.outcome == .written(output: out))
    }

    /// Each input's report, by path.
    static func fix(_ arguments: [String]) throws -> [String: Document.File] {
        try files(["fix"] + arguments)
    }

    static func loop(_ arguments: [String]) throws -> [String: Document.File] {
        try files(["loop"] + arguments)
    }

    static func files(_ arguments: [String]) throws -> [String: Document.File] {
        let run = try Run.loopprep(arguments + ["--format", "json"])
        let document = try JSONDecoder().decode(Document.self, from: Data(run.stdout.utf8))
        return Dictionary(document.files.map { ($0.path, $0) }) { a, _ in a }
    }
}
