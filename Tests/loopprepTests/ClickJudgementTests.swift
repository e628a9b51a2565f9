import Foundation
import TestSupport
import Testing

/// A click is a wrap rougher than the inside (fixtures/make-metadata.sh, 11): white noise at 1/2 jumps as far on its
/// own as at its wrap, so it has none; the same noise at 1/20 over a ramp from 0 to 0.5 falls by 0.5 at its wrap, ten
/// times what the noise does; and a 0.42 s MP3 (too short for the seam's old half-second window) whose 310 Hz sine at
/// 1/8 ends 0.2 of a period past its last whole one steps by 0.125 x sin(0.4 pi) = 0.119 at its wrap.
@Suite struct ClickJudgementTests {
    /// analyze's JSON of one file: its seam figures and the rules it finds.
    static func analyzed(_ name: String) throws -> (seam: [String: Any], rules: [String]) {
        let run = try Run.loopprep(["analyze", Run.fixture(name), "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        let seam = (file["facts"] as? [String: Any])?["seam"] as? [String: Any] ?? [:]
        let rules = (file["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        return (seam, rules)
    }

    static func first(_ seam: [String: Any], _ key: String) -> Double? { (seam[key] as? [Double])?.first }

    @Test func noiseJumpsAsFarInsideAsAtItsWrap() throws {
        let (seam, rules) = try Self.analyzed("noise-wrap.m4a")
        let jump = try #require(Self.first(seam, "audioJump"))
        let inside = try #require(Self.first(seam, "audioRoughness"))
        // Loud enough to pass for a click by size alone (-26 dBFS), no rougher than the noise itself.
        #expect(jump > 0.05)
        #expect(jump < inside)
        #expect(!rules.contains("seam-audio-click"), "\(rules)")
    }

    @Test func aFallUnderNoiseIsAClick() throws {
        let (seam, rules) = try Self.analyzed("noise-ramp.m4a")
        let jump = try #require(Self.first(seam, "audioJump"))
        let inside = try #require(Self.first(seam, "audioRoughness"))
        // The ramp's 0.5, give or take the noise's 0.05 and the codec.
        #expect(abs(jump - 0.5) < 0.1)
        #expect(jump > 2 * inside)
        #expect(rules.contains("seam-audio-click"), "\(rules)")
    }

    @Test func aShortClipsSeamIsMeasured() throws {
        let (seam, rules) = try Self.analyzed("short-tone.mp3")
        let jump = try #require(Self.first(seam, "audioJump"), "no seam measured: \(seam)")
        let wrap = try #require(Self.first(seam, "audioWrap"))
        // The step of 0.119 the recipe makes, as the jump or the break around it.
        #expect(max(jump, wrap) > 0.08 && max(jump, wrap) < 0.15, "\(seam)")
        #expect(rules.contains("seam-audio-click"), "\(rules)")
    }
}
