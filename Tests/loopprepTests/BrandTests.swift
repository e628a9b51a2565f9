import Foundation
import TestSupport
import Testing

/// A file's type box says what it is to the players that read its brands first (a phone's 3gp6): fix keeps the
/// source's on every path, the index copy and the muxer's (whose own names isom). brand-3gp6.3gp:
/// fixtures/make-metadata.sh, 12 (FFmpeg's 3gp muxer: major 3gp6, compatible 3gp6 isom iso2 avc1).
@Suite struct BrandTests {
    /// The first box of a file, whole, read from its bytes.
    static func firstBox(_ path: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        return Array(bytes.prefix(size))
    }

    /// Every handler box's payload in the file, in order (found by its type's bytes: the fixtures hold no media that
    /// spells "hdlr").
    static func handlers(_ path: String) throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var out: [[UInt8]] = []
        for at in 4..<(bytes.count - 4) where bytes[at..<at + 4].elementsEqual("hdlr".utf8) {
            let size =
                Int(bytes[at - 4]) << 24 | Int(bytes[at - 3]) << 16 | Int(bytes[at - 2]) << 8 | Int(bytes[at - 1])
            guard size >= 8, at - 4 + size <= bytes.count else { continue }
            out.append(Array(bytes[(at + 4)..<(at - 4 + size)]))
        }
        return out
    }

    /// A MOV's handler names are Pascal strings (a count byte first), an MP4's C strings (a zero last): `fix --to mp4`
    /// writes meta-gps.mov's "Camera" (fixtures/make-metadata.sh, 1) in the MP4's form, where it read as
    /// "\u{6}Camera"; a MOV written again keeps its own bytes.
    @Test func handlerNamesAreWrittenInTheOutputsForm() throws {
        let input = Run.fixture("meta-gps.mov")
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("out.mp4").path
        let mov = dir.appendingPathComponent("out.mov").path
        for (out, options) in [(mp4, ["--to", "mp4"]), (mov, ["--seam-fade", "10ms"])] {
            let run = try Run.loopprep(["fix", input, "-o", out] + options)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        }
        let named = try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream_tags=handler_name", "-of",
            "csv=p=0", mp4,
        ])
        #expect(named.stdout == "Camera\n")
        let camera = Array("Camera".utf8)
        #expect(try Self.handlers(input).contains { $0.suffix(7) == [6] + camera })
        #expect(try Self.handlers(mp4).contains { $0.suffix(7) == camera + [0] })
        #expect(
            try Self.handlers(mov).filter { $0.suffix(6).elementsEqual(camera) }
                == Self.handlers(input).filter {
                    $0.suffix(6).elementsEqual(camera)
                })
    }

    @Test(arguments: [[], ["--seam-fade", "10ms"]])
    func aPhonesBrandsAreKept(_ options: [String]) throws {
        let input = Run.fixture("brand-3gp6.3gp")
        let made = try Self.firstBox(input)
        #expect(Array(made[4..<12]) == Array("ftyp3gp6".utf8))
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.3gp").path
        let run = try Run.loopprep(["fix", input, "-o", out] + options)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try Self.firstBox(out) == made)
    }
}

/// Chapters through FFmpeg's muxer: chapters-timecode.mov (fixtures/make-fixtures.sh: One at 0, Two at 0.7 s to
/// 1.5 s; its audio starts 0.2 s late, so fix starts there) written as an MP4 (`--to mp4`) and as a MOV whose audio
/// is encoded again: the chapters the cut keeps, moved to its start (One 0-0.5 s, Two from 0.5 s to the cut's end at
/// 1.1667 s, in whole milliseconds down), where both were dropped while the plan said the chapter track was kept.
@Suite struct MuxedChapterTests {
    @Test(arguments: [("out.mp4", ["--to", "mp4"]), ("out.mov", ["--seam-fade", "10ms"])])
    func chaptersAreCutWithThePicture(_ name: String, _ options: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(name).path
        let run = try Run.loopprep(["fix", Run.fixture("chapters-timecode.mov"), "-o", out] + options)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let chapters = try Run.tool([
            "ffprobe", "-v", "error", "-show_entries", "chapter=start_time,end_time:chapter_tags=title", "-of",
            "csv=p=0", out,
        ]).stdout.split(separator: "\n").map(String.init)
        #expect(chapters == ["0.000000,0.500000,One", "0.500000,1.166000,Two"])
    }
}
