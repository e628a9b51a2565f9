import Foundation
import LoopAnalysis
import LoopIndex
import LoopMedia
import TestSupport
import Testing

/// The repository's fixtures and an independent reader (ffprobe) for cross-checks.
enum Fixtures {
    static func path(_ name: String) -> String { Repository.fixture(name) }
}

enum FFprobe {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // (ffprobe's JSON names.)
    struct Stream: Decodable {
        var index: Int
        var codec_name: String?
        var start_time: String?
        var duration: String?
        var duration_ts: Int64?
        var nb_frames: String?
        /// Packets FFmpeg's demuxer returns (-count_packets): for MOV PCM, chunks split at 1024 frames.
        var nb_read_packets: String?
        var channels: Int?
        var sample_rate: String?
        /// The codec configuration as ffprobe dumps it (-show_data): "00000000: 4f70 7573 ...  OpusHead..".
        var extradata: String?
        var extradataBytes: [UInt8] {
            (extradata ?? "").split(separator: "\n").flatMap { line -> [UInt8] in
                guard let colon = line.firstIndex(of: ":") else { return [] }
                let hex = line[line.index(after: colon)...].prefix(41).split(separator: " ").joined()
                return stride(from: 0, to: hex.count - 1, by: 2).compactMap { i in
                    UInt8(
                        hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 2)],
                        radix: 16)
                }
            }
        }
    }
    struct Output: Decodable { var streams: [Stream] }

    /// `ffprobe -show_streams -of json`: its reading of a file, with edit lists applied.
    static func streams(_ path: String) throws -> [Stream] {
        let data = try run(["-v", "error", "-count_packets", "-show_streams", "-show_data", "-of", "json", path])
        return try JSONDecoder().decode(Output.self, from: data).streams
    }

    static func run(_ arguments: [String]) throws -> Data {
        let (out, _, status) = try Tool.run("ffprobe", arguments)
        guard status == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return out
    }
}

/// Runs a test tool (ffmpeg, ffprobe) from PATH and captures stdout, stderr and the exit status.
enum Tool {
    static func run(_ tool: String, _ arguments: [String]) throws -> (out: Data, err: Data, status: Int32) {
        try Subprocess.tool(tool, arguments)
    }
}

extension FFprobe {
    /// Every packet's payload hash per stream, in decode order (ffprobe -show_data_hash), with edits ignored.
    static func packetHashes(_ path: String) throws -> [Int: [String]] {
        let data = try run([
            "-v", "error", "-show_packets", "-show_data_hash", "MD5", "-show_entries", "packet=stream_index,data_hash",
            "-of", "csv=p=0", path,
        ])
        var out: [Int: [String]] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: ",")
            guard parts.count == 2, let stream = Int(parts[0]) else { continue }
            out[stream, default: []].append(String(parts[1]))
        }
        return out
    }
}

enum Scratch {
    static func directory() throws -> URL { try Repository.temporaryDirectory("loopprep-media") }
}

/// ffmpeg as an independent decoder: presented audio as 16-bit samples, presented video frames as MD5s.
enum FFmpegDecode {
    /// Float samples, as the decoder makes them (a conversion to 16 bits would add position-dependent rounding).
    static func audio(_ path: String) throws -> [Float] {
        let data = try run(["-i", path, "-map", "0:a:0", "-f", "f32le", "-c:a", "pcm_f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func frames(_ path: String) throws -> [String] {
        let data = try run(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    static func run(_ arguments: [String]) throws -> Data {
        try Tool.run("ffmpeg", ["-nostdin", "-v", "error"] + arguments).out
    }
}

extension FFmpegDecode {
    /// ffmpeg's own complaints while decoding the whole file (`-v error`): empty for a clean stream.
    static func errors(_ path: String) throws -> String {
        String(
            decoding: try Tool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"]).err,
            as: UTF8.self)
    }

    /// Mean PSNR (dB) of the first `frames` presented frames of `a` against `b`.
    static func psnr(_ a: String, _ b: String, frames: Int) throws -> Double {
        let err = try Tool.run(
            "ffmpeg",
            ["-nostdin", "-i", a, "-i", b, "-frames:v", "\(frames)", "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"]
        ).err
        let text = String(decoding: err, as: UTF8.self)
        guard let range = text.range(of: "average:") else { return 0 }
        let value = text[range.upperBound...].prefix { !$0.isWhitespace }
        return value == "inf" ? .infinity : Double(value) ?? 0
    }
}

/// fix on one fixture into a scratch folder (seam checks off), as most media tests run it.
enum FixRun {
    static func fix(_ fixture: String, in dir: URL, options: FixOptions = .init()) -> (report: FileReport, out: String)
    {
        let out = dir.appendingPathComponent(fixture).path
        let report = ClipFix.fix(
            Fixtures.path(fixture),
            FixRequest(to: out, options: options, analysis: .init(seamChecks: false), temporaries: TemporaryFiles()))
        return (report, out)
    }
}
