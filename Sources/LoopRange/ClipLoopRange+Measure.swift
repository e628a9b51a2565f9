import Foundation
import LoopAnalysis
import LoopIndex
@_exported import LoopRangeValues

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ClipLoopRange {
    /// The loop range of the clip at `url` (a file URL, or http(s) read by byte ranges: an MP4's index, not its
    /// media), measured on the device: for MP4, MOV, M4A and fragmented MP4 exactly what `loopprep analyze
    /// --no-seam --format json` gives for the file (the same index reader and planner); for anything else, or an
    /// MP4 with a stream the index reader does not time (AAC whose SBR only a decoder finds), `loopRangeReason` says
    /// which and that the app needs the CLI's report. Runs off the caller's thread; throws where the file cannot be
    /// read or is not media at all (an MP4 or MOV without its index, a picture or a page), in loopprep's words.
    public static func measure(_ url: URL) async throws -> ClipLoopRange {
        try await withCheckedThrowingContinuation { done in
            DispatchQueue.global(qos: .userInitiated).async {
                done.resume(with: Result { try measureNow(url) })
            }
        }
    }

    /// `measure`, on the calling thread (a command-line program, a test, a background queue of the app's own).
    public static func measureNow(_ url: URL) throws -> ClipLoopRange {
        let path = url.isFileURL ? url.path : url.absoluteString
        let file: any ByteSource = url.isFileURL ? try LocalFile(url.path) : try HTTPRanges(url)
        guard let reading = try IndexReading.read(file, path: path, rangeOnly: true) else {
            return ClipLoopRange(path: path, loopRange: nil, loopRangeReason: try RangeReading.whyNotTimed(file))
        }
        let findings = Analyzer.findings(in: reading.facts, options: AnalysisOptions(seamChecks: false))
        let (range, reason) = LoopRanges.range(reading.facts, timelines: reading.timelines, findings: findings)
        return ClipLoopRange(path: path, loopRange: range, loopRangeReason: reason)
    }
}

/// An http(s) file read by byte ranges with URLSession: every read is one bounded `Range: bytes=a-b` request, so an
/// MP4's index costs the index's bytes. A server that does not answer ranges with 206 is refused.
final class HTTPRanges: ByteSource {
    let url: URL
    let size: Int64

    init(_ url: URL) throws {
        self.url = url
        let (_, response) = try Self.get(url, from: 0, count: 1)
        guard response.statusCode == 206,
            let total = (response.allHeaderFields["Content-Range"] as? String)?.split(separator: "/").last
                .flatMap({ Int64($0) })
        else {
            let reason =
                response.statusCode >= 400
                ? "the server answered \(response.statusCode): check the address, and that the file is still there"
                : "the server does not serve byte ranges (no 206 with a Content-Range): it cannot be read in place"
            throw MediaError("open", reason: reason)
        }
        size = total
    }

    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let want = Int(max(0, min(Int64(count), size - offset)))
        guard want > 0 else { return [] }
        let (data, response) = try Self.get(url, from: offset, count: want)
        guard response.statusCode == 206 else {
            throw MediaError("read", reason: "the server answered \(response.statusCode) to a byte range")
        }
        return [UInt8](data.prefix(want))
    }

    static func get(_ url: URL, from offset: Int64, count: Int) throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.setValue("bytes=\(offset)-\(offset + Int64(count) - 1)", forHTTPHeaderField: "Range")
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: Result<(Data, HTTPURLResponse), Error>?
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let http = response as? HTTPURLResponse, let data {
                answer = .success((data, http))
            } else {
                answer = .failure(
                    MediaError(
                        "open",
                        reason: """
                            cannot fetch \(url.absoluteString): check the address and the connection \
                            (\(error?.localizedDescription ?? "no answer"))
                            """))
            }
            semaphore.signal()
        }.resume()
        semaphore.wait()
        guard let answer else { throw MediaError("open", reason: "cannot fetch \(url.absoluteString): no answer") }
        return try answer.get()
    }
}
