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

    /// A path the docs give in code from a module or a folder of one (`LoopIndex/ISOFile.swift`,
    /// `Web/WebMTracks`) names a file or folder under Sources, the extension left off or not.
    @Test func everyModulePathTheDocsNameExists() throws {
        let pages = Self.files(under: "docs", ending: ".md") + [Repository.root.appendingPathComponent("README.md")]
        let named = try NSRegularExpression(pattern: #"`([A-Z][A-Za-z]*/[A-Za-z0-9_+]+(?:\.swift|\.js)?)(?: \(|`)"#)
        let sources = Repository.root.appendingPathComponent("Sources")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        var (missing, checked) = ([String](), 0)
        for page in pages {
            let text = try String(contentsOf: page, encoding: .utf8)
            for match in named.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let path = String(text[range])
                checked += 1
                let places = [Repository.root, sources] + modules.map { sources.appendingPathComponent($0) }
                let found = places.contains { place in
                    [path, path + ".swift"].contains {
                        FileManager.default.fileExists(atPath: place.appendingPathComponent($0).path)
                    }
                }
                if !found { missing.append("\(page.lastPathComponent): \(path)") }
            }
        }
        #expect(checked > 10 && missing.isEmpty, "\(checked) checked; missing: \(missing)")
    }

    /// Sources, tests and scripts (the fixture recipes, the bench, CI's) alike.
    @Test func sourcesSayWhyNotWhichTicket() throws {
        let ticket = try NSRegularExpression(pattern: "[Ii]ssue [0-9]+", options: [])
        var found: [String] = []
        let scripts = ["scripts", "fixtures", "bench", ".ci"].flatMap { folder in
            [".sh", ".py", "run"].flatMap { Self.files(under: folder, ending: $0) }
        }
        let swift = ["Sources", "Tests", "Tools", "Examples"].flatMap { Self.files(under: $0, ending: ".swift") }
        // (This file names the pattern it looks for.)
        for file in swift + scripts
        where !file.path.contains("/.build/") && !file.path.contains("/bench/out/")
            && file.lastPathComponent != "RepositoryTextTests.swift"
        {
            let text = try String(contentsOf: file, encoding: .utf8)
            if ticket.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                found.append(file.path.replacingOccurrences(of: Repository.root.path + "/", with: ""))
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

    /// A declaration a reader reads as one body: a function (its name), an initializer (`init`) or a subscript.
    static let declaration = try? NSRegularExpression(
        pattern: #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|"#
            + #"mutating|override|final|nonisolated|convenience|required)\s+)*"#
            + #"(?:func\s+([A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)|(init)[?!]?\s*[(<]|(subscript)\s*[(<])"#)

    /// The declaration's name on a line of code, or nil.
    static func declared(_ text: String) -> String? {
        guard let match = declaration?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else {
            return nil
        }
        return (1...3).lazy.compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }.first
    }

    /// How many parameters a declaration starting at `lines[i]` takes: the commas at the top level of its first
    /// parenthesised list, plus one (none for `()`); string literals, nested brackets, generics and arrows skipped.
    static func parameterCount(_ lines: [String], at i: Int) -> Int {
        let literal = try? NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        var (depth, commas, any) = (0, 0, false)
        var previous: Character = " "
        for line in lines[i..<min(i + 20, lines.count)] {
            let range = NSRange(line.startIndex..., in: line)
            let code = literal?.stringByReplacingMatches(in: line, range: range, withTemplate: "") ?? line
            for ch in code.components(separatedBy: "//")[0] {
                defer { previous = ch }
                switch ch {
                case "(", "[": depth += 1
                case "<" where depth > 0: depth += 1
                case ">" where depth > 1 && previous != "-": depth -= 1
                case ")", "]":
                    depth -= 1
                    if depth == 0 { return any ? commas + 1 : 0 }
                case "," where depth == 1: commas += 1
                default: if depth >= 1 && !ch.isWhitespace { any = true }
                }
            }
        }
        return any ? commas + 1 : 0
    }

    /// Each declaration under Sources that `measure` (of the file's lines and the declaration's line) gives a
    /// figure, with its figures (two of one name in one file are both kept).
    static func measured(_ measure: ([String], Int) -> Int?) throws -> [Function: [Int]] {
        var out: [Function: [Int]] = [:]
        for file in RepositoryTextTests.files(under: "Sources", ending: ".swift") {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            let path = String(file.path.dropFirst(Repository.root.path.count).drop { $0 == "/" })
            for (i, line) in lines.enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard !text.hasPrefix("//"), let name = declared(text), let n = measure(lines, i) else { continue }
                out[Function(path: path, name: name), default: []].append(n)
            }
        }
        return out
    }

    /// Each declaration under Sources with more than `maximum` parameters, with their counts.
    static func wide(maximum: Int) throws -> [Function: [Int]] {
        try measured { lines, i in
            let n = parameterCount(lines, at: i)
            return n > maximum && !isMemberwise(lines, at: i) ? n : nil
        }
    }

    /// An initializer whose body only sets each stored property from the parameter of its name: a value's memberwise
    /// initializer, written out because the type is public (Swift's own is internal).
    static func isMemberwise(_ lines: [String], at i: Int) -> Bool {
        guard lines[i].contains("init(") else { return false }
        let indent = lines[i].prefix { $0 == " " }
        guard let open = (i..<min(i + 20, lines.count)).first(where: { lines[$0].hasSuffix("{") }),
            let close = ((open + 1)..<lines.count).first(where: { lines[$0] == indent + "}" })
        else { return false }
        let body = lines[(open + 1)..<close].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return !body.isEmpty
            && body.allSatisfy { line in
                let sides = line.components(separatedBy: " = ")
                return sides.count == 2 && sides[0] == "self." + sides[1]
            }
    }

    /// Each function, initializer and subscript of `minimum` lines or more under Sources, with its lengths.
    static func long(minimum: Int) throws -> [Function: [Int]] {
        let literal = try NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        return try measured { lines, i in
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
            return started && length >= minimum ? length : nil
        }
    }

    /// Closures of `minimum` lines or more under Sources (a `{` opening a trailing closure, a closure argument or
    /// value, or one ending `in` its parameters), by file and line, with their lengths. A body of a declaration or
    /// a statement (a signature or condition running over lines, its `{` alone or after `)`) is not one; a
    /// multi-line string's text is not code.
    static func longClosures(minimum: Int) throws -> [String] {
        let literal = try NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        let modifiers =
            #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|mutating|"#
            + #"override|final|nonisolated|convenience|required|lazy)\s+)*"#
        let statement = try NSRegularExpression(
            pattern: #"^(?:\}\s*)?(?:if|guard|while|for|switch|case|default|else|do|catch|repeat|defer)\b|"#
                + modifiers + #"(?:func|init|subscript|deinit|struct|class|enum|extension|protocol|actor|get|set|"#
                + #"willSet|didSet)\b"#)
        let binding = try NSRegularExpression(pattern: modifiers + #"(?:let|var)\b"#)
        var found: [String] = []
        for file in RepositoryTextTests.files(under: "Sources", ending: ".swift") {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            let code = lines.map { line in
                literal.stringByReplacingMatches(
                    in: line, range: NSRange(line.startIndex..., in: line), withTemplate: ""
                )
                .components(separatedBy: "//")[0].trimmingCharacters(in: .whitespaces)
            }
            var inText = false
            for (i, line) in code.enumerated() {
                if lines[i].components(separatedBy: #"""""#).count % 2 == 0 { inText.toggle() }
                guard !inText, line.hasSuffix("{") || (line.contains("{") && line.hasSuffix(" in")),
                    let brace = line.range(of: "{")
                else { continue }
                let before = String(line[..<brace.lowerBound])
                let whole = NSRange(line.startIndex..., in: line)
                // A value bound to a closure (`let f = { ... }`, `lazy var x = list.map {`); a statement's own
                // braces, a computed property's, a body after a signature or condition over lines are not closures.
                guard statement.firstMatch(in: line, range: whole) == nil else { continue }
                let bound = binding.firstMatch(in: line, range: whole) != nil
                guard bound ? before.contains(" = ") : !before.isEmpty && !"})".contains(line.first ?? "}")
                else { continue }
                var depth = 0
                var end = i
                for j in i..<code.count {
                    depth += code[j].filter { $0 == "{" }.count - code[j].filter { $0 == "}" }.count
                    end = j
                    if depth <= 0 { break }
                }
                let path = String(file.path.dropFirst(Repository.root.path.count).drop { $0 == "/" })
                if end - i + 1 >= minimum { found.append("\(path):\(i + 1): a closure of \(end - i + 1) lines") }
            }
        }
        return found
    }

    /// A budget file: a line `N path name` per declaration allowed N (lines or parameters).
    static func budget(_ name: String) throws -> [Function: [Int]] {
        let listed = try String(contentsOf: Repository.root.appendingPathComponent(name), encoding: .utf8)
        var budget: [Function: [Int]] = [:]
        for line in listed.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let n = Int(parts[0]) else { continue }
            budget[Function(path: String(parts[1]), name: String(parts[2])), default: []].append(n)
        }
        return budget
    }

    /// What differs between the declarations over the bar (`now`) and their budget: one over it or not listed, or a
    /// listed one that shrank (the list is lowered with it) or went under the bar (`under`).
    static func problems(_ now: [Function: [Int]], budget: [Function: [Int]], unit: String, under: String)
        -> [String]
    {
        var problems: [String] = []
        for (function, counts) in now {
            let allowed = (budget[function] ?? []).sorted(by: >)
            for (k, n) in counts.sorted(by: >).enumerated() {
                if k >= allowed.count {
                    problems.append("\(function.path) \(function.name): \(n) \(unit), not on the list (split it)")
                } else if n > allowed[k] {
                    problems.append("\(function.path) \(function.name): \(n) \(unit), over its \(allowed[k])")
                }
            }
        }
        for (function, allowed) in budget {
            let counts = (now[function] ?? []).sorted(by: >)
            for (k, n) in allowed.sorted(by: >).enumerated() where k >= counts.count || counts[k] < n {
                let current = k < counts.count ? "\(counts[k]) \(unit) now" : "\(under) or gone"
                problems.append("\(function.path) \(function.name): listed at \(n), \(current): lower the list")
            }
        }
        return problems.sorted()
    }

    /// Functions, initializers and subscripts of 50 lines or more are listed in Tests/function-budget.txt, and only
    /// shrink.
    @Test func longFunctionsOnlyShrink() throws {
        let problems = Self.problems(
            try Self.long(minimum: 50), budget: try Self.budget("Tests/function-budget.txt"), unit: "lines",
            under: "under 50 lines")
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }

    /// No closure runs to 50 lines (a reader holds it as a function: it is given a name and a place of its own).
    @Test func noClosureIsLong() throws {
        let found = try Self.longClosures(minimum: 50)
        #expect(found.isEmpty, "\(found)")
    }

    /// No declaration takes more than 7 parameters (a value's memberwise initializer, written out for a public type,
    /// is not counted): more is a value waiting to be named.
    @Test func noDeclarationIsWide() throws {
        let problems = try Self.wide(maximum: 7).map { function, counts in
            "\(function.path) \(function.name): \(counts.max() ?? 0) parameters"
        }
        .sorted()
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }
}
