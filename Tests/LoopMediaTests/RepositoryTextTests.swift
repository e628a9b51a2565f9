import Foundation
import TestSupport
import Testing

/// What the repository's own text says holds: every file or folder the docs and the README name exists (a
/// removed build plugin, a moved script), and the sources say why, not which ticket (the issues are not in the
/// repository: "issue 41, item 5" tells a reader nothing).
@Suite struct RepositoryTextTests {
    static func files(under folder: String, ending: String) -> [URL] {
        let root = Repository.root.appendingPathComponent(folder)
        let all = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects ?? []
        return all.compactMap { $0 as? URL }.filter { $0.path.hasSuffix(ending) }
    }

    @Test func everyPathTheDocsNameExists() throws {
        let pages = Self.files(under: "docs", ending: ".md") + [Repository.root.appendingPathComponent("README.md")]
        #expect(pages.count > 5)
        let named = try NSRegularExpression(
            pattern: "(?:Sources|Tests|scripts|fixtures|bench|Tools|Examples)/[A-Za-z0-9_./+-]+")
        // What a run writes (bench/out/, bench/corpus/) is no part of the repository.
        let ignored = ["bench/out", "bench/corpus"]
        var missing: [String] = []
        for page in pages {
            let text = try String(contentsOf: page, encoding: .utf8)
            for match in named.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range, in: text) else { continue }
                var path = String(text[range])
                while let last = path.last, ".,:)/".contains(last) { path.removeLast() }
                if ignored.contains(where: path.hasPrefix) { continue }
                if !FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(path).path) {
                    missing.append("\(page.lastPathComponent): \(path)")
                }
            }
        }
        #expect(missing.isEmpty, "\(missing)")
    }

    @Test func sourcesSayWhyNotWhichTicket() throws {
        let ticket = try NSRegularExpression(pattern: "[Ii]ssue [0-9]+", options: [])
        var found: [String] = []
        for file in Self.files(under: "Sources", ending: ".swift") {
            let text = try String(contentsOf: file, encoding: .utf8)
            if ticket.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                found.append(file.lastPathComponent)
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
