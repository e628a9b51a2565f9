import ArgumentParser
import Foundation
import LoopAnalysis

/// --seam-images and --html: files written whole (Foundation's atomic write: a temporary file, then rename).
enum Pictures {
    static func write(_ report: Report, strips: [String: [UInt8]], folder: String?, html: String?) throws {
        if let folder {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (path, bytes) in strips {
                try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(fileName(path)), options: .atomic)
            }
        }
        if let html {
            let url = URL(fileURLWithPath: html)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(HTMLReport.render(report, strips: strips).utf8).write(to: url, options: .atomic)
        }
    }

    /// One flat name per input path: every character but letters, digits, '-' and '.' becomes '_'.
    static func fileName(_ path: String) -> String {
        let trimmed = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        let safe = String(trimmed.unicodeScalars.map { c -> Character in
            CharacterSet.alphanumerics.contains(c) && c.isASCII || c == "-" || c == "." ? Character(c) : "_"
        })
        return safe.trimmingCharacters(in: CharacterSet(charactersIn: "_")) + ".seam.png"
    }
}
