import Foundation
import LoopRange

// looprange FILE-OR-URL...: each clip's loop range as one JSON line (path, loopRange, loopRangeReason), measured
// as an app does (ClipLoopRange.measure). `--time N`: also each clip's median measuring time over N runs, on stderr.
var arguments = Array(CommandLine.arguments.dropFirst())
var runs = 0
if let at = arguments.firstIndex(of: "--time"), at + 1 < arguments.count, let n = Int(arguments[at + 1]) {
    runs = n
    arguments.removeSubrange(at...(at + 1))
}
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
var failed = false
for argument in arguments {
    let url = argument.contains("://") ? URL(string: argument) : URL(fileURLWithPath: argument)
    guard let url else {
        FileHandle.standardError.write(Data("\(argument): not a URL\n".utf8))
        failed = true
        continue
    }
    do {
        let clip = try await ClipLoopRange.measure(url)
        print(String(decoding: try encoder.encode(clip), as: UTF8.self))
        if runs > 0 {
            var times: [Double] = []
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try ClipLoopRange.measureNow(url)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            let median = times.sorted()[times.count / 2]
            FileHandle.standardError.write(Data("\(argument): median \(median) ms over \(runs)\n".utf8))
        }
    } catch {
        FileHandle.standardError.write(Data("\(argument): \(error)\n".utf8))
        failed = true
    }
}
exit(failed ? 1 : 0)
