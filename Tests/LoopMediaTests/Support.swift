import Foundation
import Testing

/// The repository's fixtures and an independent reader (ffprobe) for cross-checks.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

enum FFprobe {
    struct Stream: Decodable {
        var index: Int
        var codec_name: String?
        var start_time: String?
        var duration: String?
        var nb_frames: String?
        var channels: Int?
        var sample_rate: String?
    }
    struct Output: Decodable { var streams: [Stream] }

    /// `ffprobe -show_streams -of json`: its reading of a file, with edit lists applied.
    static func streams(_ path: String) throws -> [Stream] {
        let data = try run(["-v", "error", "-show_streams", "-of", "json", path])
        return try JSONDecoder().decode(Output.self, from: data).streams
    }

    static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return data
    }
}
