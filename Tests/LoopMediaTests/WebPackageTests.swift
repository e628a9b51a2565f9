import CFFmpeg
import Foundation
import LoopAnalysis
import TestSupport
import Testing

@testable import LoopIndex
@testable import LoopMedia
@testable import loopprep

/// The web player's files, read back without loopprep: clean.mp4 (fixtures/make-fixtures.sh) is 1 s of
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

    /// A WebM's tracks are appended one WebM each (fixtures/make-fixtures.sh: av1-opus.webm, 1 s of 30 fps AV1 and a
    /// 440 Hz Opus tone at 48 kHz): the video copied, its codecs string from the AV1 configuration as ffprobe reads
    /// its profile and level (Main = 0, level 2.0 = index 0, main tier, 8 bits: av01.0.00M.08); the Opus encoded
    /// again over the loop repeated. 48000 samples are 50 frames of 20 ms (one loop an append); libopus delays
    /// its output by 312 samples, a frame once rounded up, so the first append holds 51 packets and starts 1/50 s
    /// before the loop. FFmpeg decoding the first append and then the later one twice (as a browser's decoder
    /// meets them) hears the tone with no 5 ms block 3 dB off and no step, where the loop-ready file's own
    /// encoding played three times rings at each wrap.
    @Test func aWebMsOpusIsEncodedAgainOverTheLoopRepeated() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (report, out) = FixRun.fix("av1-opus.webm", in: dir)
        #expect(FileManager.default.fileExists(atPath: out), "\(report.fix?.reason ?? "")")
        let probe = try Subprocess.tool(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "stream=profile,level", "-of", "csv=p=0", out])
        #expect(String(decoding: probe.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "Main,0")
        let web = try WebPackage.write(out, temporaries: TemporaryFiles())
        #expect(
            web.loop.sources == [
                .init(media: "av1-opus.web.video0.webm", mime: "video/webm; codecs=\"av01.0.00M.08\""),
                .init(
                    media: "av1-opus.web.audio1.webm", mime: "audio/webm; codecs=\"opus\"",
                    first: "av1-opus.web.audio1.first.webm", firstLead: Rational(1, 50)),
            ])
        #expect(web.loop.origin == .zero && web.loop.length == .one)
        #expect(web.loop.tracks[1].loopContinuous == true && web.loop.tracks[1].primingSamples == 0)
        #expect(web.notes.count == 1 && web.notes[0].contains("20 ms frames"))
        let path = { (name: String) in dir.appendingPathComponent(name).path }
        let video = try #require(try FFmpegReading.read(path("av1-opus.web.video0.webm")).tracks.first)
        #expect(video.kind == .video && video.frames == 30 && video.start == .zero)
        for (name, packets) in [("av1-opus.web.audio1.first.webm", 51), ("av1-opus.web.audio1.webm", 50)] {
            let run = try Subprocess.tool(
                "ffprobe",
                ["-v", "error", "-show_entries", "packet=pts,duration", "-of", "csv=p=0", path(name)])
            let rows = String(decoding: run.out, as: UTF8.self).split(separator: "\n")
            // Every packet a whole 20 ms frame from 0 (Matroska's milliseconds), no pre-skip to discard.
            #expect(rows.map(String.init) == (0..<packets).map { "\($0 * 20),20" }, "\(name)")
        }
        let continuous = try Self.decodeInTurn(
            [
                path("av1-opus.web.audio1.first.webm"), path("av1-opus.web.audio1.webm"),
                path("av1-opus.web.audio1.webm"),
            ])
        #expect(continuous.count == 960 + 3 * 48000)
        #expect(Self.seams(Array(continuous.dropFirst(960))) == [])
        let own = try Self.decodeInTurn([out, out, out])
        #expect(Self.seams(own) != [])
    }

    /// FFmpeg's decoder fed the files' audio packets one after the other without a reset, as a browser's decoder
    /// meets appends: the pre-skip of the first file applied, a later file's not (the stream goes on), each
    /// packet's end trim kept (Matroska's DiscardPadding). FFmpeg's concat demuxer is not used: from 9.0 on its
    /// Matroska demuxer marks every file's first block with the pre-skip, so the decoder would drop 312 samples at
    /// each wrap, as no browser does. The first channel as floats.
    static func decodeInTurn(_ files: [String]) throws -> [Float] {
        let packet = try Packet()
        let frame = try Frame()
        var decoder: Decoder?
        var samples: [Float] = []
        func take(_ f: Frame) { for i in 0..<f.sampleCount { samples.append(f.sample(channel: 0, index: i)) } }
        for (n, file) in files.enumerated() {
            let input = try InputFile(path: file)
            let stream = try #require((0..<input.streamCount).first { input.basics($0).kind == .audio })
            if decoder == nil { decoder = try Decoder(input, stream: stream) }
            while try input.read(into: packet) {
                guard packet.streamIndex == stream else { continue }
                var size = 0
                if n > 0, let data = av_packet_get_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 4
                {
                    for i in 0..<4 { data[i] = 0 }
                }
                try decoder?.decode(packet, into: frame, take)
            }
        }
        try decoder?.decode(nil, into: frame, take)
        return samples
    }

    static func seams(_ x: [Float]) -> [Int] {
        let blocks = stride(from: 0, to: x.count - 239, by: 240).map { i in
            (x[i..<(i + 240)].map { Double($0 * $0) }.reduce(0, +) / 240).squareRoot()
        }
        let median = blocks.sorted()[blocks.count / 2]
        let amplitude = median * 2.squareRoot()
        var found: Set<Int> = []
        for (b, level) in blocks.enumerated() where level < median * 0.708 || level > median * 1.413 {
            found.insert(b * 240)
        }
        for i in 1..<(x.count - 1) where abs(Double(x[i + 1] - 2 * x[i] + x[i - 1])) > 0.1 * amplitude {
            found.insert(i / 240 * 240)
        }
        return found.sorted()
    }

    /// The player loopprep writes is the JavaScript file in the source tree, built in whole (the EmbedPlayer plugin):
    /// what the test command's TypeScript check read is what users get.
    @Test func thePlayerWrittenIsTheCheckedJavaScript() throws {
        let source = try String(
            contentsOf: Repository.root.appendingPathComponent("Sources/LoopMedia/Web/loopprep-loop.js"),
            encoding: .utf8)
        #expect(PlayerAssets.module == source)
        #expect(source.hasPrefix("// loopprep-loop.js") && source.hasSuffix("}\n"))
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
