import Foundation
import LoopIndex
import TestSupport
import Testing

/// Nothing but the timing changes: what an MP4 or MOV says besides its timing survives every lossless path, byte
/// for byte, and what a path cannot carry is said. The expected values are how fixtures/make-metadata.sh made the
/// files (its ffmpeg -metadata arguments, exiftool's XMP, the boxes its surgery wrote), read back by ffprobe.
@Suite struct MetadataTests {
    /// ffprobe's JSON of a file: its format tags, and each stream's type, tags and side data.
    struct Probed {
        var format: [String: String]
        var streams: [[String: Any]]

        init(_ path: String) throws {
            let run = try Run.tool(["ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_format", path])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            format = ((json["format"] as? [String: Any])?["tags"] as? [String: String]) ?? [:]
            streams = json["streams"] as? [[String: Any]] ?? []
        }

        func stream(_ type: String) -> [String: Any]? { streams.first { $0["codec_type"] as? String == type } }
        func tags(_ type: String) -> [String: String] { stream(type)?["tags"] as? [String: String] ?? [:] }
        func sideData(_ type: String) -> [[String: Any]] { stream(type)?["side_data_list"] as? [[String: Any]] ?? [] }
    }

    /// The paths that keep an MP4/MOV's own metadata: the copy from the index, FFmpeg's muxer with the edit lists
    /// after it (a repeat, re-encoded audio, a faded seam), and the web target's baked composition times.
    static let paths: [[String]] = [
        [], ["--loops", "2"], ["--unroll", "2"], ["--reencode-audio"], ["--seam-fade", "10ms"], ["--target", "web"],
    ]

    /// The QuickTime recipe (title, date and location as © entries, XMP, a track name, a language, a creation
    /// time, colour): every tag ffprobe found in the input is in each output, and the udta holds the © entries'
    /// own bytes (0xA9, never the replacement character's EF BF BD).
    @Test(arguments: paths)
    func quickTimeTagsSurvive(options: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture("meta-gps.mov"), "-o", dir.path] + options)
        #expect(run.status <= 1, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent("meta-gps.mov").path
        let probed = try Probed(out)
        #expect(probed.format["title"] == "Sunset" && probed.format["date"] == "2019", "\(probed.format)")
        #expect(probed.format["location"] == "+48.8584+002.2945/")
        #expect(probed.format["creation_time"] == "2019-06-01T18:30:00.000000Z")
        #expect(probed.tags("video")["handler_name"] == "Camera")
        #expect(probed.tags("audio")["language"] == "fra")
        #expect(probed.stream("video")?["color_primaries"] as? String == "bt709")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let udta = try #require(MiniBox.read(out).first { $0.type == "moov" }?.children.first { $0.type == "udta" })
        let types = Self.children(udta.payload).map(\.type)
        #expect(types.contains(FourCC("©nam")) && types.contains(FourCC("©day")) && types.contains(FourCC("©xyz")))
        #expect(types.contains(FourCC("XMP_")))
        #expect(Self.find(Array("Sunset over Paris".utf8), in: bytes))
        #expect(!Self.find([0xEF, 0xBF, 0xBD, 0x6E, 0x61, 0x6D], in: bytes))
    }

    /// QuickTime metadata keys (mdta), XMP in a top-level uuid box, HDR10 and 360° boxes in the sample description,
    /// a GoPro-style timed metadata track: kept on every path; the telemetry track cut to the picture's range on the
    /// index path and named where a path drops it.
    @Test(arguments: paths)
    func keysXMPAndSampleDescriptionBoxesSurvive(options: [String]) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Run.loopprep(["fix", Run.fixture("meta-keys.mp4"), "-o", dir.path] + options)
        #expect(run.status <= 1, "\(run.stdout)\(run.stderr)")
        let out = dir.appendingPathComponent("meta-keys.mp4").path
        let probed = try Probed(out)
        #expect(probed.format["com.apple.quicktime.location.ISO6709"] == "+48.8584+002.2945/", "\(probed.format)")
        #expect(probed.format["com.example.rig"] == "drone-7" && probed.format["title"] == "Sunset")
        let side = probed.sideData("video")
        let kinds = Set(side.compactMap { $0["side_data_type"] as? String })
        #expect(
            kinds == ["Stereo 3D", "Spherical Mapping", "Mastering display metadata", "Content light level metadata"],
            "\(side)")
        let light = side.first { $0["side_data_type"] as? String == "Content light level metadata" }
        #expect(light?["max_content"] as? Int == 1000 && light?["max_average"] as? Int == 400)
        let mastering = side.first { $0["side_data_type"] as? String == "Mastering display metadata" }
        #expect(
            mastering?["red_x"] as? String == "35400/50000"
                && mastering?["max_luminance"] as? String == "10000000/10000")
        let top = try MiniBox.read(out)
        let uuid = try #require(top.first { $0.type == "uuid" })
        #expect(Self.find(Array("Sunset XMP".utf8), in: uuid.payload))
        // The telemetry: the picture's 2 s on the index path; dropped and named on FFmpeg's.
        let picture = try #require(Double(probed.stream("video")?["duration"] as? String ?? ""))
        if let data = probed.stream("data") {
            #expect(data["codec_tag_string"] as? String == "gpmd")
            #expect(Double(data["duration"] as? String ?? "") == picture, "\(data)")
            #expect(run.stdout.contains("(2: gpmd data), cut to the same range as the picture"), "\(run.stdout)")
        } else {
            #expect(
                run.stdout.contains("drops 1 track that is neither audio nor video (2: gpmd data)"), "\(run.stdout)")
        }
    }

    /// A stitched reel carries its first clip's movie metadata (tags, keys, XMP), in MP4 and MOV.
    @Test(arguments: [("meta-keys.mp4", "reel.mp4"), ("meta-gps.mov", "reel.mov")])
    func aReelKeepsItsFirstClipsTags(clip: String, reel: String) throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(reel).path
        let run = try Run.loopprep(
            ["stitch", Run.fixture(clip), Run.fixture("clean.mp4"), "-o", out, "--normalize", "--no-seam"])
        #expect(run.status <= 1, "\(run.stdout)\(run.stderr)")
        let probed = try Probed(out)
        #expect(probed.format["title"] == "Sunset", "\(probed.format)")
        let text = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(Self.find(Array((clip.hasSuffix(".mov") ? "Sunset over Paris" : "Sunset XMP").utf8), in: text))
        if clip.hasSuffix(".mov") { #expect(probed.format["location"] == "+48.8584+002.2945/") }
        if clip.hasSuffix(".mp4") { #expect(probed.format["com.example.rig"] == "drone-7") }
    }

    /// A Matroska reel of an MP4 (meta-opus.mp4: fixtures/make-metadata.sh, 7) keeps the first clip's tags as
    /// Matroska tags (its -metadata arguments, as ffprobe reads the reel) and names the XMP exiftool put in a uuid
    /// box, which Matroska has no place for; the dry run names it the same.
    @Test func aMatroskaReelKeepsTheTagsAndNamesWhatItCannotHold() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reel.mkv").path
        let clip = Run.fixture("meta-opus.mp4")
        let args = ["stitch", clip, clip, "-o", out, "--disable", "not-playable-on-target", "--format", "json"]
        let note =
            "the first clip's file: uuid (XMP) has no place in a Matroska reel and is left out (its tags are kept): "
            + "an .mp4 or .mov reel keeps it"
        for dry in [true, false] {
            let run = try Run.loopprep(args + (dry ? ["--dry-run"] : []))
            #expect(run.status <= 1, "\(run.stdout)\(run.stderr)")
            let json = try run.file()
            #expect(json["metadataLeftOut"] as? [String] == [note], "\(run.stdout)")
            #expect(FileManager.default.fileExists(atPath: out) == !dry)
        }
        let probed = try Probed(out)
        #expect(probed.format["title"] == "Sunset", "\(probed.format)")
        #expect(probed.format["DATE"] == "2019")
        #expect(probed.format["LOCATION"] == "+48.8584+002.2945/")
        #expect(probed.format["creation_time"]?.hasPrefix("2019-06-01T18:30:00") == true)
        // An MP4 reel of the same clip keeps the XMP and names nothing.
        let mp4 = dir.appendingPathComponent("reel.mp4").path
        let run = try Run.loopprep([
            "stitch", clip, clip, "-o", mp4, "--target", "web", "--format", "json", "--no-seam",
        ])
        #expect(run.status <= 1, "\(run.stdout)\(run.stderr)")
        #expect(try run.file()["metadataLeftOut"] as? [String] == [])
        #expect(
            Self.find(Array("Sunset over Paris".utf8), in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp4)))))
    }

    /// A tag's text, as QuickTime (a 16-bit length, a language, the text) and iTunes (a `data` box of type 1) keep
    /// it; a box of another shape is no tag.
    @Test func aTagsTextIsReadFromEitherLayout() {
        func item(_ bytes: [UInt8]) -> KeptMetadata.Item { .init(place: "movie: udta", track: nil, bytes: bytes) }
        #expect(KeptMetadata.text(item([0, 6, 0x55, 0xC4] + Array("Sunset".utf8))) == "Sunset")
        let data = be32(16 + 4) + Array("data".utf8) + be32(1) + be32(0) + Array("2019".utf8)
        #expect(KeptMetadata.text(item(data)) == "2019")
        // A JPEG cover (type 13) and a length that does not fit are not text.
        #expect(KeptMetadata.text(item(be32(16 + 2) + Array("data".utf8) + be32(13) + be32(0) + [0xFF, 0xD8])) == nil)
        #expect(KeptMetadata.text(item([0, 9, 0x55, 0xC4] + Array("Sunset".utf8))) == nil)
    }

    /// A box type is four bytes: a © entry parsed and written again is the same bytes.
    @Test func aCopyrightSignTypeIsItsBytes() throws {
        let entry: [UInt8] = [0, 0, 0, 14, 0xA9, 0x6E, 0x61, 0x6D, 0, 2, 0x55, 0xC4, 0x48, 0x69]
        let udta = [0, 0, 0, UInt8(8 + entry.count)] + Array("udta".utf8) + entry
        let parsed = try #require(try Box.parse(udta, from: 0, to: udta.count).first)
        #expect(parsed.bytes == udta)
        let type = FourCC(bytes: entry[4..<8])
        #expect(type == "©nam" && type.bytes == [0xA9, 0x6E, 0x61, 0x6D] && type.text == "©nam")
    }

    /// The check's reading: an output missing an input's tag, or holding it otherwise, is named; the plan's own
    /// rewrites (iTunSMPB, Nero chapters, durations) are not looked at.
    @Test func theCheckNamesALostOrChangedItem() throws {
        func box(_ type: FourCC, _ body: [UInt8]) -> [UInt8] { be32(UInt32(8 + body.count)) + type.bytes + body }
        func moov(_ udta: [UInt8], duration: UInt32 = 1200) -> [UInt8] {
            let header = box(
                "mvhd",
                [0, 0, 0, 0] + be32(1) + be32(2) + be32(600) + be32(duration) + [UInt8](repeating: 1, count: 80))
            return box("moov", header + box("udta", udta))
        }
        let name = box("©nam", [0, 6, 0x55, 0xC4] + Array("Sunset".utf8))
        let place = box("©xyz", [0, 4, 0x55, 0xC4] + Array("+48/".utf8))
        let chapters = box("chpl", [1, 0, 0, 0, 0, 0, 0, 0, 0])
        let input = KeptMetadata.items(top: [], moov: moov(name + place + chapters))
        // Another duration and other chapters: nothing lost.
        let retimed = KeptMetadata.items(top: [], moov: moov(name + place, duration: 600))
        #expect(KeptMetadata.differences(input: input, output: retimed, tracks: [:]).isEmpty)
        let lost = KeptMetadata.items(top: [], moov: moov(name))
        #expect(KeptMetadata.differences(input: input, output: lost, tracks: [:]) == ["movie: udta ©xyz is missing"])
        let changed = KeptMetadata.items(
            top: [], moov: moov(box("©nam", [0, 6, 0x55, 0xC4] + Array("Sunrise".utf8)) + place))
        #expect(KeptMetadata.differences(input: input, output: changed, tracks: [:]) == ["movie: udta ©nam differs"])
    }

    /// A folder of symbolic links (a dataset, git-annex): each is the file it points to, its size and moov
    /// included, and fix writes it; the report keeps the link's path.
    @Test func aSymbolicLinkIsItsTarget() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let links = dir.appendingPathComponent("links")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        let target = Run.fixture("audio-longer.mp4")
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("clip.mp4").path, withDestinationPath: target)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int)
        let analyzed = try Run.loopprep(["analyze", "links", "--format", "json", "--no-seam"], in: dir)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(analyzed.stdout.utf8)) as? [String: Any])
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        #expect(file["path"] as? String == "links/clip.mp4")
        let facts = try #require(file["facts"] as? [String: Any])
        #expect(facts["fileSize"] as? Int == size, "\(facts)")
        let fixed = try Run.loopprep(["fix", "links", "-o", "out/"], in: dir)
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(fixed.stdout.contains("fixed -> out/clip.mp4"))
        // The link is left as it was, pointing where it did.
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: links.appendingPathComponent("clip.mp4").path)
                == target)
        // In place, the link's target is fixed and the link kept: a copy of the fixture stands in for the target.
        let copy = dir.appendingPathComponent("store/clip.mp4")
        try FileManager.default.createDirectory(
            at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: target, toPath: copy.path)
        let link = dir.appendingPathComponent("inplace.mp4").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: copy.path)
        let inPlace = try Run.loopprep(["fix", "inplace.mp4", "--in-place"], in: dir)
        #expect(inPlace.status == 0, "\(inPlace.stdout)\(inPlace.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == copy.path)
        // The target now needs nothing (audio-longer.mp4's extra audio cut).
        let again = try Run.loopprep(["analyze", link, "--no-seam"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(!again.stdout.contains("audio-longer-than-video"))
    }

    static func children(_ payload: [UInt8]) -> [(type: FourCC, size: Int)] {
        var out: [(FourCC, Int)] = []
        var at = 0
        while at + 8 <= payload.count {
            let size = Int(FourCC(bytes: payload[at..<at + 4]).value)
            guard size >= 8, at + size <= payload.count else { break }
            out.append((FourCC(bytes: payload[at + 4..<at + 8]), size))
            at += size
        }
        return out
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
    }
}
