import Foundation

/// What both test targets need: the repository's paths, scratch folders, and a process runner that captures
/// stdout, stderr and the exit status.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    public static let fixtures = root.appendingPathComponent("fixtures")

    public static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// A new empty folder under the system's temporary folder; the caller removes it.
    public static func temporaryDirectory(_ prefix: String = "loopprep-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

public enum Subprocess {
    /// Runs `executable` to the end with stdin closed. Both pipes are read at once so neither can fill up and
    /// block the child.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        in directory: URL? = nil
    ) throws -> (out: Data, err: Data, status: Int32) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return (outData, errData, process.terminationStatus)
    }

    /// A tool from PATH (ffmpeg, ffprobe, mount, rm).
    public static func tool(_ name: String, _ arguments: [String]) throws -> (out: Data, err: Data, status: Int32) {
        try run(URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments)
    }
}

/// Where a test runs: some check Linux's own mechanisms (glibc's loader log, util-linux's script, the lazy FFmpeg
/// stubs a Mac does without).
public enum Platform {
    #if os(Linux)
        public static let isLinux = true
    #else
        public static let isLinux = false
    #endif
}
