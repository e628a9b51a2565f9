import CFFmpeg
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One loader for every FFmpeg library: each function in ffmpeg_symbols.def resolves in the
/// library it names, by the soname of the headers loopprep was built against. A function filed under the wrong
/// library would end a run at its first call.
@Suite struct LoaderTests {
    @Test func everyStubResolvesInTheLibraryItNames() throws {
        #if os(Linux)
            let def = try String(
                contentsOf: Repository.root.appendingPathComponent("Sources/CFFmpegLoader/ffmpeg_symbols.def"),
                encoding: .utf8)
            let majors: [String: UInt32] = [
                "avformat": lp_avformat_header_version >> 16, "avcodec": lp_avcodec_header_version >> 16,
                "avutil": lp_avutil_header_version >> 16, "swscale": lp_swscale_header_version >> 16,
                "swresample": lp_swresample_header_version >> 16, "avfilter": lp_avfilter_header_version >> 16,
            ]
            var handles: [String: UnsafeMutableRawPointer] = [:]
            for (library, major) in majors {
                let handle: UnsafeMutableRawPointer? = dlopen("lib\(library).so.\(major)", RTLD_NOW | RTLD_LOCAL)
                guard let handle else {
                    Issue.record("lib\(library).so.\(major) does not load")
                    continue
                }
                handles[library] = handle
            }
            var checked: [String: Int] = [:]
            var otherVersions: [String] = []
            for line in def.split(separator: "\n") where line.hasPrefix("LP_FFMPEG(") {
                let cells = line.dropFirst("LP_FFMPEG(".count).dropLast().split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                let (library, name) = (cells[0], cells[1])
                let handle = try #require(handles[library], "\(library)")
                let holders = handles.filter { dlsym($0.value, name) != nil }.map(\.key)
                if holders.isEmpty {
                    // Only another FFmpeg has it (called under its headers alone: scripts/check-ffmpeg.sh).
                    otherVersions.append(name)
                    continue
                }
                #expect(dlsym(handle, name) != nil, "\(name) is in \(holders), not in lib\(library)")
                checked[library, default: 0] += 1
            }
            #expect(Set(checked.keys) == Set(majors.keys))
            #expect(checked.values.reduce(0, +) > 100)
            // On 5.1: the packet side data API of 7.0 and the encoder configuration query of 7.1; a few at most.
            #expect(otherVersions.count < 10, "\(otherVersions)")
        #endif
    }
}
