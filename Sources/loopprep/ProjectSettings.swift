import Foundation
import LoopAnalysis
import LoopMedia

/// The project's `.loopprep.json` as this run applies it: which file (if any), and where its patterns are rooted.
struct ProjectSettings: Sendable {
    var config = ProjectConfig()
    /// The config file, as found; nil when there is none (or --no-config).
    var file: String?
    /// Its folder, absolute: `ignore` patterns are relative to it.
    var folder: String?

    /// `--config PATH`, else the first `.loopprep.json` in the working folder or a folder above it.
    static func load(explicit: String?, search: Bool) throws(ConfigError) -> ProjectSettings {
        guard let path = explicit ?? (search ? find(from: FileManager.default.currentDirectoryPath) : nil) else {
            return ProjectSettings()
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError("\(path): cannot be read")
        }
        do {
            let config = try ProjectConfig.parse([UInt8](data))
            let absolute = URL(fileURLWithPath: path).standardizedFileURL
            return ProjectSettings(config: config, file: path, folder: absolute.deletingLastPathComponent().path)
        } catch {
            throw ConfigError("\(path) \(error.message)")
        }
    }

    static func find(from start: String) -> String? {
        var folder = URL(fileURLWithPath: start).standardizedFileURL
        while true {
            let candidate = folder.appendingPathComponent(ProjectConfig.fileName).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// The analysis options with the file's settings under the command line's.
    func applied(to options: AnalysisOptions, target: Target?, minimumLoopSeconds: Rational?) -> AnalysisOptions {
        var o = config.applied(to: options, target: target, minimumLoopSeconds: minimumLoopSeconds)
        o.config = file
        return o
    }

    /// A path relative to the config's folder, or nil when it lies outside it (or is a URL).
    func relative(_ path: String) -> String? {
        guard let folder, !RemoteFile.isRemote(path) else { return nil }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let root = folder.hasSuffix("/") ? folder : folder + "/"
        return absolute.hasPrefix(root) ? String(absolute.dropFirst(root.count)) : nil
    }

    /// Skipped whole by an `ignore` entry. A file named on the command line (as pre-commit names every staged
    /// file) is skipped too, with a note saying which entry and how to analyse it anyway (eslint's way).
    func skips(_ item: Inputs.Item) -> Bool {
        guard let relative = relative(item.path), let pattern = config.skippingPattern(at: relative) else {
            return false
        }
        if !item.searched {
            Console.stderr(
                """
                loopprep: note: \(item.path) is skipped: \(file ?? ProjectConfig.fileName) ignores "\(pattern)" \
                (--no-config analyzes it)

                """)
        }
        return true
    }

    /// The rules not checked on this file (its `ignore` entries that name rules).
    func ignoredRules(_ path: String) -> [String] {
        guard let relative = relative(path) else { return [] }
        return (config.ignoredRules(at: relative) ?? []).sorted()
    }

    /// The options for one file: `options` with the rules its `ignore` entries name also off.
    func options(_ options: AnalysisOptions, for path: String) -> (options: AnalysisOptions, ignored: [String]?) {
        let ignored = ignoredRules(path)
        return ignored.isEmpty ? (options, nil) : (options.disabling(ignored), ignored)
    }
}
