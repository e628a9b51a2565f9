import Foundation
import LoopMedia

/// Expands the command line's paths: files as given, folders recursively (hidden entries skipped), in a
/// deterministic order. In a folder, files with a media extension are always analyzed (so a broken .mp4 is
/// reported); other files are offered to FFmpeg and kept only if it finds audio or video in them.
struct Inputs {
    struct Item: Sendable {
        /// As the user would type it.
        var path: String
        /// Relative to the folder it was found under (the file name for a file given directly).
        var relativePath: String
        /// Named on the command line: a read failure is always reported.
        var explicit: Bool
        /// Found by searching a folder (not named on the command line).
        var searched: Bool = false
    }

    static let mediaExtensions: Set = [
        "mp4", "m4v", "m4a", "mov", "qt", "3gp", "webm", "mkv", "mka", "avi", "ts",
        "mts", "m2ts", "mpg", "mpeg", "flv", "ogv", "ogg", "opus", "wav", "aac", "mp3", "caf",
    ]

    static func collect(_ paths: [String]) -> [Item] {
        var items: [Item] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                // A URL's name is its path's last component, without the query (a presigned URL's signature); a
                // local file's is its own, a `?` in it included.
                let local = !RemoteFile.isRemote(path)
                let name =
                    (String(local ? Substring(path) : path.split(separator: "?", maxSplits: 1).first ?? "")
                    as NSString).lastPathComponent
                items.append(Item(path: path, relativePath: name, explicit: true))
                continue
            }
            let root = URL(fileURLWithPath: path)
            guard
                let walker = fm.enumerator(
                    at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey],
                    options: [.skipsHiddenFiles])
            else { continue }
            var found: [Item] = []
            for case let url as URL in walker {
                let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
                var isFile = values?.isRegularFile == true
                var dangling = false
                if values?.isSymbolicLink == true {
                    // A link to a file is that file (git-annex, dataset folders, build outputs), as ffprobe and
                    // MediaInfo take it; a link to a folder is not followed (no loops); a dangling one is reported.
                    var isDirectory: ObjCBool = false
                    if fm.fileExists(atPath: url.resolvingSymlinksInPath().path, isDirectory: &isDirectory) {
                        isFile = !isDirectory.boolValue
                    } else {
                        dangling = true
                    }
                }
                guard isFile || dangling else { continue }
                let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count))
                    .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                let shown = path.hasSuffix("/") ? path + relative : path + "/" + relative
                found.append(
                    Item(
                        path: shown, relativePath: relative,
                        explicit: dangling || mediaExtensions.contains(url.pathExtension.lowercased()),
                        searched: true))
            }
            items += found.sorted { $0.path < $1.path }
        }
        return items
    }
}
/// clip2 before clip10: digit runs compare as numbers.
enum NaturalOrder {
    static func less(_ a: String, _ b: String) -> Bool {
        let x = chunks(a)
        let y = chunks(b)
        for (p, q) in zip(x, y) where p != q {
            if let m = Int(p), let n = Int(q) { return m != n ? m < n : p < q }
            return p < q
        }
        return x.count < y.count
    }
    static func chunks(_ s: String) -> [String] {
        var out: [String] = []
        var current = ""
        for c in s {
            if let last = current.last, last.isNumber != c.isNumber {
                out.append(current)
                current = ""
            }
            current.append(c)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}
