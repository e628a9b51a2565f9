import Foundation
import TestSupport
import Testing

/// LoopMedia's folders import downward only, as docs/architecture.md's table says: a file may name what its
/// own folder declares and what lower layers declare. Grep-level: top-level type and function names, found in
/// code with comments and string literals taken out.
@Suite struct LayerTests {
    static let sources = Repository.root.appendingPathComponent("Sources/LoopMedia")

    /// Folder -> layer, from the architecture document's table.
    static func layers() throws -> [String: Int] {
        let doc = try String(
            contentsOf: Repository.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var out: [String: Int] = [:]
        for line in doc.split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, let layer = Int(cells[0]) else { continue }
            for folder in cells[1].split(separator: ",") { out[folder.trimmingCharacters(in: .whitespaces)] = layer }
        }
        return out
    }

    static func files() throws -> [(folder: String, path: String, text: String)] {
        let folders = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        return try folders.flatMap { folder in
            let dir = sources.appendingPathComponent(folder)
            return try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                .filter { $0.hasSuffix(".swift") }
                .map {
                    (folder, "\(folder)/\($0)", try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8))
                }
        }
    }

    /// Names declared at the top level of a file (types, type aliases, functions).
    static func declarations(_ text: String) -> [String] {
        let pattern =
            #"""
            (?m)^(?:(?:public|internal|private|fileprivate|final|indirect)\s+)*\#
            (?:struct|enum|class|protocol|actor|typealias|func)\s+([A-Za-z_][A-Za-z0-9_]*)
            """#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// The code's identifiers, comments and string literals left out.
    static func identifiers(_ text: String) -> Set<String> {
        var code = text
        for pattern in [#"(?s)"""[\s\S]*?""""#, #""(?:\\.|[^"\\\n])*""#, #"(?s)/\*.*?\*/"#, #"//[^\n]*"#] {
            code = code.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        var out = Set<String>()
        var word = ""
        for c in code.unicodeScalars {
            if CharacterSet.alphanumerics.contains(c) || c == "_" {
                word.unicodeScalars.append(c)
            } else if !word.isEmpty {
                out.insert(word)
                word = ""
            }
        }
        if !word.isEmpty { out.insert(word) }
        return out
    }

    @Test func everyFolderHasALayer() throws {
        let layers = try Self.layers()
        let folders = Set(try Self.files().map(\.folder))
        #expect(folders.subtracting(layers.keys).isEmpty, "folders missing from docs/architecture.md's table")
        #expect(layers.count >= 9)
    }

    @Test func foldersImportDownwardOnly() throws {
        let layers = try Self.layers()
        let files = try Self.files()
        var owner: [String: String] = [:]
        for file in files {
            for name in Self.declarations(file.text) { owner[name] = file.folder }
        }
        var wrong: [String] = []
        for file in files {
            guard let mine = layers[file.folder] else { continue }
            for name in Self.identifiers(file.text).sorted() {
                guard let folder = owner[name], folder != file.folder, let theirs = layers[folder] else { continue }
                if theirs >= mine {
                    wrong.append("\(file.path) uses \(name) from \(folder)/ (layer \(theirs) >= \(mine))")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
    }

    /// "One packet path", said precisely: the files that read FFmpeg's packets on their own,
    /// not through PacketReader, are exactly those docs/architecture.md lists with their reasons.
    @Test func onlyTheListedFilesReadPacketsOnTheirOwn() throws {
        let doc = try String(
            contentsOf: Repository.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = doc.components(separatedBy: "## The packet path").dropFirst().first ?? ""
        let listed = Set(
            section.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("|") else { return nil }
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let first = cells.first, first.hasPrefix("`"), first.contains("/") else { return nil }
                return first.split(separator: "`").first.map { $0 + ".swift" }
            })
        let reading = Set(
            try Self.files().filter {
                // The demuxer's packet read, one argument whatever its name (RangeIO's two-argument read is bytes).
                $0.text.range(of: #"\.read\(into: *[A-Za-z_][A-Za-z0-9_.]*\)"#, options: .regularExpression) != nil
                    && !$0.path.hasSuffix("PacketReader.swift")
            }
            .map(\.path))
        #expect(listed.count >= 8)
        #expect(reading == listed)
    }

    /// The check itself finds an upward name (it would pass vacuously if it found none anywhere).
    @Test func theCheckSeesNames() {
        let text = "let reader = try PacketReader(path: p) // Stitcher\nlet s = \"Remuxer\""
        #expect(Self.identifiers(text).contains("PacketReader"))
        #expect(!Self.identifiers(text).contains("Stitcher"))
        #expect(!Self.identifiers(text).contains("Remuxer"))
        #expect(
            Self.declarations("final class PacketReader {\nstruct X {}\n    struct Nested {}\nfunc annexBUnits(") == [
                "PacketReader", "X", "annexBUnits",
            ])
    }

    /// What an app links (the LoopRange product: LoopRange, LoopRangeValues, LoopIndex, LoopAnalysis) imports no C
    /// module: Foundation, the standard library's own modules and each other only.
    @Test func theAppLibrariesImportNoC() throws {
        let allowed: Set = [
            "Foundation", "FoundationNetworking", "Dispatch", "AVFoundation", "CoreMedia", "LoopRange",
            "LoopRangeValues",
            "LoopIndex", "LoopAnalysis",
        ]
        var seen = 0
        for target in ["LoopRange", "LoopRangeValues", "LoopIndex", "LoopAnalysis"] {
            let dir = Repository.root.appendingPathComponent("Sources/\(target)")
            let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n")
                where line.trimmingCharacters(in: .whitespaces).contains("import ") {
                    let words = line.split(separator: " ").map(String.init)
                    guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                        words[..<at].allSatisfy({ $0.hasPrefix("@") || $0.isEmpty })
                    else { continue }
                    seen += 1
                    #expect(allowed.contains(words[at + 1]), "\(target)/\(file): \(line)")
                }
            }
        }
        #expect(seen > 20)
    }
}
