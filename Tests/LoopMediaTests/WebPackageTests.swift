import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopMedia

/// The web player's files (issue 22), read back without loopprep: clean.mp4 (fixtures/make-fixtures.sh) is 1 s of
/// 30 fps H.264 (30 frames) and AAC at 48 kHz with FFmpeg's 1024 samples of priming in its edit list.
@Suite struct WebPackageTests {
    @Test func anMP4BecomesOneFragmentedMP4PerTrackFromOneOrigin() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("clean.mp4", in: dir)
        #expect(report.fix?.status == .unchanged || report.fix?.status == .fixed)
        let web = try WebPackage.write(out, temporaries: TemporaryFiles())
        // The priming (1024 samples) sits before the first presented sample: the origin is the next whole second.
        #expect(web.loop.origin == .one && web.loop.length == .one)
        #expect(web.loop.sources.map(\.media) == ["clean.web.video0.mp4", "clean.web.audio1.mp4"])
        // The codecs string is the avcC's profile, constraint flags and level, as stored.
        let avcC = try #require(
            try MiniBox.read(out).first { $0.type == "moov" }?.child("trak")?
                .path("mdia", "minf", "stbl", "stsd"))
        let at = try #require(Self.find(Array("avcC".utf8), in: avcC.payload))
        let hex = avcC.payload[(at + 5)...(at + 7)].map { String(format: "%02x", $0) }.joined()
        #expect(web.loop.sources[0].mime == "video/mp4; codecs=\"avc1.\(hex)\"")
        #expect(web.loop.sources[1].mime == "audio/mp4; codecs=\"mp4a.40.2\"")
        for source in web.loop.sources {
            let path = dir.appendingPathComponent(source.media).path
            let boxes = try MiniBox.read(path)
            let moov = try #require(boxes.first { $0.type == "moov" })
            // Fragmented (mvex), no edit list (MSE ignores them), fragments after the moov.
            #expect(moov.child("mvex") != nil && moov.child("trak")?.child("edts") == nil)
            #expect(boxes.contains { $0.type == "moof" } && !boxes.contains { $0.type == "mfra" })
        }
        let video = try #require(
            try FFmpegReading.read(dir.appendingPathComponent(web.loop.sources[0].media).path)
                .tracks.first)
        #expect(video.start == .one && video.frames == 30)
        let audio = try #require(
            try FFmpegReading.read(dir.appendingPathComponent(web.loop.sources[1].media).path)
                .tracks.first)
        #expect(audio.start == .one - Rational(1024, 48000))
        // The manifest on disk is the loop, and the page and module are beside it.
        let manifest = try JSONDecoder().decode(
            WebLoop.self, from: Data(contentsOf: URL(fileURLWithPath: web.manifest)))
        #expect(manifest == web.loop)
        #expect(manifest.tracks.map(\.frames) == [30, nil] && manifest.tracks[1].samples == 48000)
        let page = try String(contentsOfFile: web.page, encoding: .utf8)
        #expect(page.contains("./loopprep-loop.js") && page.contains("clean.web.json"))
        let module = try String(contentsOfFile: web.player, encoding: .utf8)
        #expect(module.contains("export class LoopPlayer") && module.contains("appendWindowStart"))
    }

    /// A WebM is appended as it is (fixtures/make-fixtures.sh: av1-opus.webm, 1 s of AV1 and Opus): one source, the
    /// file itself, origin 0, its codecs string from the AV1 configuration as ffprobe reads its profile and level
    /// (Main = 0, level 2.0 = index 0, main tier, 8 bits: av01.0.00M.08), and a note on Opus's restart.
    @Test func aWebMIsAppendedAsItIs() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("av1-opus.webm", in: dir)
        #expect(FileManager.default.fileExists(atPath: out), "\(report.fix?.reason ?? "")")
        let probe = try Subprocess.tool(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "stream=profile,level", "-of", "csv=p=0", out])
        #expect(String(decoding: probe.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "Main,0")
        let web = try WebPackage.write(out, temporaries: TemporaryFiles())
        #expect(web.loop.sources == [.init(media: "av1-opus.webm", mime: "video/webm; codecs=\"av01.0.00M.08, opus\"")])
        #expect(web.loop.origin == .zero && web.loop.length == .one && web.media == [out])
        #expect(web.notes.count == 1 && web.notes[0].contains("audio track 1 (opus)"))
    }

    /// A codec the web player does not take is refused in a sentence naming the track.
    @Test func aCodecBrowsersDoNotAppendIsRefusedInWords() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("prores-pcm.mov", in: dir)
        #expect(FileManager.default.fileExists(atPath: out), "\(report.fix?.reason ?? "")")
        let error = #expect(throws: MediaError.self) { try WebPackage.write(out, temporaries: TemporaryFiles()) }
        #expect(MediaError.describe(try #require(error)).contains("video track 0 (prores) in MOV"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".web.") }
        #expect(leftovers.isEmpty)
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }
}
