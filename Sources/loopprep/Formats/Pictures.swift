import ArgumentParser
import Foundation
import LoopAnalysis

/// --seam-images and --html: files written whole (Foundation's atomic write: a temporary file, then rename).
enum Pictures {
    static func write(
        _ report: Report, strips: [String: [UInt8]], folder: String?, html: String?,
        players: [String: WebPlayerOutput] = [:], notes: [String] = []
    ) throws {
        if let folder {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let names = fileNames(Array(strips.keys))
            for (path, bytes) in strips {
                try Data(bytes).write(
                    to: URL(fileURLWithPath: folder).appendingPathComponent(names[path] ?? fileName(path)),
                    options: .atomic)
            }
        }
        if let html {
            let url = URL(fileURLWithPath: html)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(HTMLReport.render(report, strips: strips, notes: notes, players: players, page: html).utf8).write(
                to: url, options: .atomic)
        }
    }

    /// One flat name per input path, never the same for two paths: where two flatten alike (`a/b_c.mp4` and
    /// `a_b/c.mp4`, or names in different scripts), each gets its path's hash too.
    static func fileNames(_ paths: [String]) -> [String: String] {
        let flat = Dictionary(paths.map { ($0, fileName($0)) }, uniquingKeysWith: { a, _ in a })
        let counts = Dictionary(flat.values.map { ($0, 1) }, uniquingKeysWith: +)
        return flat.reduce(into: [:]) { out, entry in
            let (path, name) = entry
            guard counts[name, default: 0] > 1 else {
                out[path] = name
                return
            }
            let tag = String(Shard.hash(path), radix: 16).suffix(8)
            out[path] = String(name.dropLast(".seam.png".count)) + "-" + tag + ".seam.png"
        }
    }

    /// One flat name per input path: every character but letters and digits (of any script: a Japanese or Greek
    /// name keeps them), '-' and '.' becomes '_'; never a leading dot (a hidden file) or underscore.
    static func fileName(_ path: String) -> String {
        let trimmed = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        let safe = String(
            String.UnicodeScalarView(
                trimmed.unicodeScalars.map { c in
                    CharacterSet.alphanumerics.contains(c) || c == "-" || c == "." ? c : "_"
                }))
        let name = String(safe.drop { $0 == "." || $0 == "_" }).trimmingCharacters(in: CharacterSet(charactersIn: "_"))
        return (name.isEmpty ? "clip" : name) + ".seam.png"
    }
}
