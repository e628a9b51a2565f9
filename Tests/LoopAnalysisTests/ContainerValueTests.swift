import Foundation
import Testing

@testable import LoopAnalysis

/// The container as a type: one case and one row each; in a report, its short name as before.
@Suite struct ContainerValueTests {
    /// Every case's name reads back as itself, and any other FFmpeg demuxer name is kept as it is.
    @Test func namesRoundTrip() throws {
        let all: [Container] = [
            .mp4, .mov, .matroska, .webm, .ogg, .mpegts, .mpegps, .flv, .avi, .wav, .flac, .mp3, .aiff, .caf, .adts,
            .other("asf"),
        ]
        #expect(all.allSatisfy { Container(name: $0.name) == $0 })
        #expect(Container(name: "mpeg").name == "mpeg" && Container(name: "aac") == .adts)
        // JSON: the name, as the reports have always written it.
        let json = try JSONEncoder().encode([Container.webm, .other("asf")])
        #expect(String(decoding: json, as: UTF8.self) == #"["webm","asf"]"#)
        let read = try JSONDecoder().decode([Container].self, from: json)
        #expect(read == [.webm, .other("asf")])
    }

    /// The rows: ISO-BMFF has edit lists, Matroska has milliseconds; fix keeps seven in their own kind and turns
    /// four video containers into MP4; a name's extension says its container and the muxer that writes it again.
    @Test func eachRowSaysWhatItsContainerCanDo() {
        #expect(Container.mov.isISO && !Container.webm.isISO && Container.webm.isMatroska)
        #expect([Container.mp4, .mov, .ogg, .avi].allSatisfy { $0.cutsFinerThanItsClock })
        #expect(!Container.matroska.cutsFinerThanItsClock && !Container.mpegts.cutsFinerThanItsClock)
        let kept: [Container] = [.mp4, .mov, .matroska, .webm, .wav, .flac, .ogg]
        #expect(kept.allSatisfy { $0.keptByFix } && !Container.mpegts.keptByFix)
        #expect(
            [Container.mpegts, .mpegps, .flv, .avi].allSatisfy { $0.convertedByFix } && !Container.mp4.convertedByFix)
        #expect(Container(extension: "M4V") == .mp4 && Container(extension: "mka") == .matroska)
        #expect(Container(extension: "m2ts") == .mpegts && Container(extension: "txt") == nil)
        #expect(Container.mp4.muxer(forExtension: "m4a") == "ipod" && Container.mp4.muxer(forExtension: "mp4") == "mp4")
        #expect(Container.webm.muxer(forExtension: "webm") == "webm" && Container.flv.muxer(forExtension: "flv") == nil)
        #expect(Container(muxer: "ipod") == .mp4 && Container(muxer: "matroska") == .matroska)
    }
}
