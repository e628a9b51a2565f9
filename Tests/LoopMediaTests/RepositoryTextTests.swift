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

/// Functions a reader can hold: every function of 50 lines or more in Sources is on the allow-list
/// (Tests/function-budget.txt: its lines, file and name), no longer than listed, and the list only shrinks (an entry
/// whose function is gone or shorter must be lowered or removed). Lines run from the `func` line to its closing
/// brace, nested functions included.
@Suite struct FunctionBudgetTests {
    struct Function: Hashable {
        var path: String
        var name: String
    }

    /// Each function of `minimum` lines or more under Sources, with its lengths (two of one name in one file are
    /// both kept).
    static func long(minimum: Int) throws -> [Function: [Int]] {
        let declaration = try NSRegularExpression(
            pattern: #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|"#
                + #"mutating|override|final|nonisolated)\s+)*func\s+([A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)"#)
        let literal = try NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        var out: [Function: [Int]] = [:]
        for file in RepositoryTextTests.files(under: "Sources", ending: ".swift") {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            let path = String(file.path.dropFirst(Repository.root.path.count).drop { $0 == "/" })
            for (i, line) in lines.enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard !text.hasPrefix("//"),
                    let match = declaration.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                    let name = Range(match.range(at: 1), in: text).map({ String(text[$0]) })
                else { continue }
                var depth = 0
                var started = false
                var end = i
                scan: while end < lines.count {
                    let code = literal.stringByReplacingMatches(
                        in: lines[end], range: NSRange(lines[end].startIndex..., in: lines[end]), withTemplate: "")
                    for ch in code.components(separatedBy: "//")[0] {
                        if ch == "{" {
                            depth += 1
                            started = true
                        } else if ch == "}" {
                            depth -= 1
                        }
                    }
                    if started && depth <= 0 { break scan }
                    if !started && end > i + 12 { break scan }
                    end += 1
                }
                let length = end - i + 1
                if started, length >= minimum { out[Function(path: path, name: name), default: []].append(length) }
            }
        }
        return out
    }

    @Test func longFunctionsOnlyShrink() throws {
        let listed = try String(
            contentsOf: Repository.root.appendingPathComponent("Tests/function-budget.txt"), encoding: .utf8)
        var budget: [Function: [Int]] = [:]
        for line in listed.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let lines = Int(parts[0]) else { continue }
            budget[Function(path: String(parts[1]), name: String(parts[2])), default: []].append(lines)
        }
        let now = try Self.long(minimum: 50)
        var problems: [String] = []
        for (function, lengths) in now {
            let allowed = (budget[function] ?? []).sorted(by: >)
            for (k, n) in lengths.sorted(by: >).enumerated() {
                if k >= allowed.count {
                    problems.append("\(function.path) \(function.name): \(n) lines, not on the list (split it)")
                } else if n > allowed[k] {
                    problems.append("\(function.path) \(function.name): \(n) lines, over its \(allowed[k])")
                }
            }
        }
        for (function, allowed) in budget {
            let lengths = (now[function] ?? []).sorted(by: >)
            for (k, n) in allowed.sorted(by: >).enumerated() where k >= lengths.count || lengths[k] < n {
                let current = k < lengths.count ? "\(lengths[k]) lines now" : "under 50 lines or gone"
                problems.append("\(function.path) \(function.name): listed at \(n), \(current): lower the list")
            }
        }
        #expect(problems.isEmpty, "\(problems.sorted().joined(separator: "; "))")
    }
}
