import ArgumentParser
import Foundation
import LoopAnalysis
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

    /// The extensions a folder walk takes as media: Container's one table.
    static let mediaExtensions = Set(Container.byExtension.keys)

    /// A URL's last path component as a file name: percent-decoded where that gives a plain name.
    static func decoded(_ name: String) -> String {
        guard let plain = name.removingPercentEncoding, !plain.isEmpty, !plain.contains("/"), !plain.contains("\0"),
            plain != ".", plain != ".."
        else { return name }
        return plain
    }

    /// The files under `root` (a folder's real path), shown under `shown` and `relative`. A link to a file is that
    /// file (git-annex, dataset folders, build outputs), as ffprobe and MediaInfo take it; a link to a folder is
    /// walked once, where it is not the folder being walked or one above it (no cycles); a dangling one is reported.
    static func walk(_ root: URL, shown: String, relative base: String, _ walked: inout Set<String>) -> [Item] {
        let fm = FileManager.default
        let rootPath = root.standardizedFileURL.path
        guard walked.insert(rootPath).inserted,
            let walker = fm.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey],
                options: [.skipsHiddenFiles])
        else { return [] }
        var found: [Item] = []
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            var isFile = values?.isRegularFile == true
            var dangling = false
            let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count))
                .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let named = base.isEmpty ? relative : base + "/" + relative
            let at = shown.hasSuffix("/") ? shown + relative : shown + "/" + relative
            if values?.isSymbolicLink == true {
                var isDirectory: ObjCBool = false
                let target = url.resolvingSymlinksInPath().standardizedFileURL
                if fm.fileExists(atPath: target.path, isDirectory: &isDirectory) {
                    isFile = !isDirectory.boolValue
                    let above = rootPath == target.path || rootPath.hasPrefix(target.path + "/")
                    if isDirectory.boolValue, !above {
                        found += walk(target, shown: at, relative: named, &walked)
                    }
                } else {
                    dangling = true
                }
            }
            guard isFile || dangling else { continue }
            found.append(
                Item(
                    path: at, relativePath: named,
                    explicit: dangling || mediaExtensions.contains(url.pathExtension.lowercased()), searched: true))
        }
        return found
    }

    static func collect(_ paths: [String]) -> [Item] {
        var items: [Item] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                // A URL's name is its path's last component, without the query (a presigned URL's signature) and
                // percent-decoded (`My%20Clip.mp4` is written as `My Clip.mp4`; a name that would decode to a
                // folder or an empty name stays encoded); a local file's is its own, a `?` in it included.
                let local = !RemoteFile.isRemote(path)
                let name =
                    (String(local ? Substring(path) : path.split(separator: "?", maxSplits: 1).first ?? "")
                    as NSString).lastPathComponent
                items.append(Item(path: path, relativePath: local ? name : Self.decoded(name), explicit: true))
                continue
            }
            // A folder named through a link is walked as `ls` lists it; the paths shown are the ones given.
            var walked: Set<String> = []
            items += walk(URL(fileURLWithPath: path).resolvingSymlinksInPath(), shown: path, relative: "", &walked)
                .sorted { $0.path < $1.path }
        }
        // A file named twice (`clip.mp4 clip.mp4`, a folder and a file in it) is one input, taken where it came
        // first: it would otherwise be written twice to one output.
        var seen = Set<String>()
        return items.filter { item in
            let key =
                RemoteFile.isRemote(item.path) ? item.path : URL(fileURLWithPath: item.path).standardizedFileURL.path
            return seen.insert(key).inserted
        }
    }
}
/// Files found in the folders given that are not audio or video (FFmpeg finds neither in them): passed over, and
/// said once after the batch, by name, so a CI run never leaves a file out without a word.
final class PassedOver: Sendable {
    private let paths = Locked<[String]>([])

    /// Records `path` and returns nil, the batch's "no result" for it.
    func pass<T>(_ path: String) -> T? {
        paths.withLock { $0.append(path) }
        return nil
    }

    /// One line on stderr naming them (the first ten), nothing where there are none.
    func say() {
        let names = paths.withLock { $0 }.sorted()
        guard !names.isEmpty else { return }
        let shown =
            names.prefix(10).joined(separator: ", ") + (names.count > 10 ? ", and \(names.count - 10) more" : "")
        Console.stderr(
            """
            loopprep: note: \(names.count) file\(names.count == 1 ? "" : "s") found in the folders given \
            \(names.count == 1 ? "is" : "are") not audio or video and \(names.count == 1 ? "was" : "were") passed \
            over: \(shown)\n
            """)
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

/// What `-o` names, checked once before any work: a folder or a file, and whether loopprep can write there.
enum OutputTarget {
    /// An output `command` renders (a reel, a blended loop) is written in the container its name says: one of the
    /// four it writes; any other name (`reel.avi`, `reel`) is refused, where it was written as an MP4 under it.
    static func checkRendered(_ output: String, command: String, what: String) throws {
        guard Container(extension: (output as NSString).pathExtension)?.isRendered != true else { return }
        throw ValidationError(
            "-o \(output): \(command) writes MP4, MOV, Matroska or WebM; name \(what) .mp4, .mov, .mkv or .webm")
    }

    /// A folder: ends in `/`, or is one.
    static func namesAFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return path.hasSuffix("/")
            || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    /// Before any work: an `-o` that is a file where outputs go into a folder is a usage error; a folder nothing
    /// can be written into fails the run (exit 1) in one line. `file`: the one output file -o names, if it does.
    static func check(_ output: String?, file: String?, outputs: Int, dryRun: Bool) throws {
        guard let output, !dryRun, !RemoteFile.isRemote(output) else { return }
        if file == nil, namesAFile(output) {
            Console.stderr(
                """
                loopprep: error: -o \(output) is a file: the \(outputs) output\(outputs == 1 ? "" : "s") \
                go\(outputs == 1 ? "es" : "") into a folder; name a folder\n
                """)
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        if let why = unwritable(file.map(parent) ?? output) {
            Console.stderr("loopprep: error: \(why); nothing done\n")
            throw ExitCode(ExitStatus.findings.rawValue)
        }
    }

    /// A file that exists (not a folder): where a command that writes into a folder cannot.
    static func namesAFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// Why nothing can be written into `folder`, in loopprep's words, or nil. A file is made and removed in it, or
    /// (while it does not exist) in the nearest folder above it that does, where the run would create it: a
    /// folder without write permission, a read-only disk or a file in the way is found before any work, not once
    /// per input after it; nothing is left behind.
    static func unwritable(_ folder: String) -> String? {
        let dir = folder.isEmpty ? "." : folder
        var existing = dir
        while !FileManager.default.fileExists(atPath: existing) {
            let up = parent(existing)
            existing = up.isEmpty ? "." : up
        }
        let verb = existing == dir ? "write into" : "create"
        guard !namesAFile(existing) else {
            return "cannot \(verb) the output folder \(dir): \(existing) is a file, in the way"
        }
        let probe = (existing as NSString).appendingPathComponent(".loopprep-write-check-\(getpid())")
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { return "cannot \(verb) the output folder \(dir): \(cause(errno: errno))" }
        close(fd)
        unlink(probe)
        return nil
    }

    /// The folder a path is in ("" for a bare name), in plain string terms: Foundation's
    /// `deletingLastPathComponent` traps on some short relative paths (".") on Linux.
    static func parent(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "" }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    /// An errno in words a user acts on.
    static func cause(errno code: Int32) -> String {
        switch code {
        case EACCES, EPERM: "permission denied (choose another folder, or change its permissions)"
        case EROFS: "the disk is read-only"
        case ENOSPC, EDQUOT: "the disk is full"
        case ENOTDIR, EEXIST: "a file is in the way of that path"
        case ENOENT: "part of that path does not exist"
        default: "the system refused (\(String(cString: strerror(code)).lowercased()))"
        }
    }
}
