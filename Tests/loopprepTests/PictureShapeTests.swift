import Foundation
import TestSupport
import Testing

/// The picture's shape is a fact of a clip: blended joins (stitch's transitions, loop --crossfade) are coded with the
/// source's pixel aspect and chroma siting, within the profile and level its sample entry says.
/// anamorphic-baseline.mp4 (720x480, pixels 10:11 in pasp and the SPS, Constrained Baseline 3.0, chroma top-left) and
/// anamorphic-main.mkv (pixels 45:34, Main 3.1): fixtures/make-metadata.sh, 8. Read back by ffprobe and by FFmpeg's
/// trace_headers, which prints every SPS the stream carries (the sample entry's and any in band).
@Suite struct PictureShapeTests {
    /// ffprobe's view of the first video stream: profile, level, aspect and siting.
    static func shape(_ path: String) throws -> [String] {
        try Run.tool([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
            "stream=profile,level,sample_aspect_ratio,chroma_location", "-of", "csv=p=0", path,
        ]).stdout.split(separator: "\n").map(String.init)
    }

    /// Every value of these SPS fields in the stream, as FFmpeg's own parser reads them (each distinct value once).
    static func spsFields(_ path: String) throws -> [String: Set<Int>] {
        let fields = [
            "profile_idc", "level_idc", "aspect_ratio_idc", "sar_width", "sar_height",
            "chroma_sample_loc_type_top_field",
        ]
        let run = try Run.tool([
            "ffmpeg", "-v", "debug", "-i", path, "-map", "0:v:0", "-c", "copy", "-bsf:v", "trace_headers", "-f", "null",
            "-",
        ])
        var out: [String: Set<Int>] = [:]
        for line in run.stderr.split(separator: "\n") where line.contains("trace_headers") {
            let words = line.split(separator: " ")
            guard let name = fields.first(where: { words.contains(Substring($0)) }),
                let value = words.last.flatMap({ Int($0) })
            else { continue }
            out[name, default: []].insert(value)
        }
        return out
    }

    @Test(arguments: [
        [
            "stitch", "anamorphic-baseline.mp4", "anamorphic-baseline.mp4", "--transition", "crossfade", "--duration",
            "0.3",
        ],
        ["loop", "anamorphic-baseline.mp4", "--crossfade", "0.3"],
        [
            "stitch", "anamorphic-main.mkv", "anamorphic-main.mkv", "--transition", "crossfade", "--duration", "0.3",
            "--disable", "not-playable-on-target",
        ],
    ])
    func blendedJoinsKeepTheShape(_ arguments: [String]) throws {
        let input = Run.fixture(arguments[1])
        let ext = (arguments[1] as NSString).pathExtension
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        let args = arguments.map { $0.hasPrefix("anamorphic-") ? Run.fixture($0) : $0 }
        let run = try Run.loopprep(args + ["-o", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try Self.shape(out) == Self.shape(input))
        let made = try Self.spsFields(input)
        let written = try Self.spsFields(out)
        // The fixture's one SPS: what the recipe asked for.
        #expect(made["profile_idc"] == (ext == "mp4" ? [66] : [77]))
        #expect(made["level_idc"] == (ext == "mp4" ? [30] : [31]))
        // Every SPS of the output, the joins' too, says the same.
        #expect(written == made, "\(written) against \(made)")
        if ext == "mp4" {
            let boxes = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(boxes.range(of: Data("pasp".utf8)) != nil)
        }
    }
}
