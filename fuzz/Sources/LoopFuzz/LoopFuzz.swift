import Foundation
import LoopAnalysis
import LoopMedia

/// One libFuzzer input: the bytes are a clip. It goes through everything a user's file goes through: the
/// probe (container index, packet scan), every rule, the seam check (decoding the first and last frames), and
/// fix (plan, stream-copy remux, moov rewrite, verification). A throw is the expected answer to bad bytes; a
/// crash, a sanitizer report, a leak, a hang or a runaway allocation is a finding, and so is an MP4 that
/// loopprep's index reader and FFmpeg's demuxer both read, differently.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Data(bytes: data, count: size)
    let input = Workspace.shared.input
    guard (try? bytes.write(to: URL(fileURLWithPath: input))) != nil else { return 0 }
    // The second reader held to FFmpeg (issue 35, item 6): where loopprep's index reader answers alone, its
    // facts and timelines are what FFmpeg's demuxer reads; a difference is a finding (a crash with its name).
    if let own = try? Probe.probe(input, keepInput: false), own.readByIndexAlone,
        let ffmpeg = try? Probe.probe(input, keepInput: true),
        ffmpeg.facts != own.facts || ffmpeg.timelines != own.timelines
    {
        fatalError("the index-only reading differs from FFmpeg's: \(own.facts) against \(ffmpeg.facts)")
    }
    _ = ClipAnalysis.report(path: input, options: AnalysisOptions(), picture: false)
    _ = ClipFix.fix(input, FixRequest(to: Workspace.shared.output, temporaries: Workspace.shared.temporaries))
    try? FileManager.default.removeItem(atPath: Workspace.shared.output)
    return 0
}

/// Per-process scratch files (libFuzzer's -jobs runs several processes side by side).
final class Workspace: @unchecked Sendable {
    static let shared = Workspace()
    let directory: String
    let input: String
    let output: String
    let temporaries = TemporaryFiles()

    private init() {
        let base = ProcessInfo.processInfo.environment["LOOPFUZZ_DIR"] ?? NSTemporaryDirectory()
        directory = (base as NSString).appendingPathComponent("loopfuzz-\(getpid())")
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        input = (directory as NSString).appendingPathComponent("input.mp4")
        output = (directory as NSString).appendingPathComponent("output.mp4")
    }
}

/// libFuzzer's driver, called from our own entry point: SwiftPM links an executable target's `main` to
/// `<Target>_main`, so the driver's own `main` cannot be used.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@_cdecl("LoopFuzz_main")
public func loopFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var vector = argv
    return runDriver(&count, &vector, fuzzOne)
}
