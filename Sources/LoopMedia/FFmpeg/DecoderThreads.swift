import Foundation

/// How many threads a decoder of the seam checks takes: FFmpeg's own choice (frame threads, one per core) where
/// one file is decoded at a time, one where the batch already decodes a file per core. Frame threads then only
/// add their per-thread picture buffers and hand-offs (a 1080p GOP decoded on two cores by two files, each with
/// two frame threads, ran 15-25% slower than with one thread each).
public enum DecoderThreads {
    private static let perDecoder = Locked(0)

    /// The batch about to run: `files` decoded side by side on `cores` cores.
    public static func share(files: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        perDecoder.withLock { $0 = files >= max(cores, 2) ? 1 : 0 }
    }

    /// 0 (FFmpeg's choice) or 1.
    static var seam: Int { perDecoder.withLock { $0 } }
}
