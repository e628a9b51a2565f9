import Testing

@testable import LoopAnalysis

@Suite struct PathPatternTests {
    @Test func namesMatchAtAnyDepth() {
        let mov = PathPattern("*.mov")
        #expect(mov.matches("a.mov") && mov.matches("x/y/a.mov"))
        #expect(!mov.matches("a.mp4") && !mov.matches("a.mov.mp4"))
        // A bare folder name covers what is under it, wherever it is.
        let drafts = PathPattern("drafts")
        #expect(drafts.matches("drafts/a.mp4") && drafts.matches("x/drafts/b/c.mp4"))
        #expect(!drafts.matches("drafts.mp4") && !drafts.matches("mydrafts/a.mp4"))
        #expect(PathPattern("clip-?.mp4").matches("clip-1.mp4") && !PathPattern("clip-?.mp4").matches("clip-10.mp4"))
        #expect(PathPattern("é?.mp4").matches("éa.mp4"))
    }

    @Test func slashesAnchorAtTheConfigFolder() {
        let legacy = PathPattern("legacy/**")
        #expect(legacy.matches("legacy/a.mp4") && legacy.matches("legacy/2019/b.mp4"))
        #expect(!legacy.matches("old/legacy/a.mp4"))
        // As in .gitignore, only a slash before the end anchors: "raw/" is a folder named raw anywhere.
        #expect(PathPattern("raw/").matches("raw/a.mp4") && PathPattern("raw/").matches("x/raw/a.mp4"))
        #expect(PathPattern("/raw").matches("raw/a.mp4") && PathPattern("./raw").matches("raw/a.mp4"))
        let deep = PathPattern("clips/**/loop-*.mp4")
        #expect(deep.matches("clips/loop-1.mp4") && deep.matches("clips/a/b/loop-2.mp4"))
        #expect(!deep.matches("clips/a/intro.mp4") && !deep.matches("other/loop-1.mp4"))
        #expect(PathPattern("a/*/c.mp4").matches("a/b/c.mp4") && !PathPattern("a/*/c.mp4").matches("a/b/x/c.mp4"))
    }
}

@Suite struct ProjectConfigTests {
    static func parse(_ text: String) throws -> ProjectConfig { try ProjectConfig.parse(Array(text.utf8)) }

    static func error(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch let e as ConfigError { return e.message } catch { return "\(error)" }
    }

    @Test func readsEverySetting() throws {
        let c = try Self.parse(
            """
            { "$schema": "x", "target": "web", "min-loop": 2.5, "disable": ["moov-at-end"],
              "thresholds": { "seam-visual-jump": 10, "seam-audio-click": 0.1 },
              "ignore": [ { "path": "legacy/**", "rules": ["seam-visual-jump", "seam-audio-click"] }, { "path": \
              "raw/" } ] }
            """)
        #expect(c.target == .web)
        #expect(c.minimumLoopSeconds == Rational(5, 2))
        #expect(c.disabled == ["moov-at-end"])
        #expect(c.thresholds == ["seam-visual-jump": 10, "seam-audio-click": 0.1])
        #expect(c.ignoredRules(at: "legacy/2019/a.mp4") == ["seam-visual-jump", "seam-audio-click"])
        #expect(c.ignoredRules(at: "raw/a.mp4") == nil)
        #expect(c.ignoredRules(at: "new/a.mp4") == [])
        #expect(try Self.parse("{}") == ProjectConfig())
    }

    @Test func sayWhatIsWrong() {
        #expect(
            Self.error("{ target: web }")
                == "is not valid JSON at line 1, column 3 (a key in double quotes must start here)")
        // The place of the fault, counted from the bytes: line 3, after the 2 spaces and `"disable": [` and `"a" `.
        #expect(
            Self.error("{\n  \"target\": \"web\",\n  \"disable\": [\"a\" \"b\"]\n}\n")
                == "is not valid JSON at line 3, column 19 (expected , or ])")
        // What Foundation's decoder took without a word: a trailing comma, a key given twice, a comment.
        #expect(
            Self.error("{\n  \"target\": \"web\",\n}\n") == "is not valid JSON at line 3, column 1 (a comma before })")
        #expect(Self.error(#"{ "disable": ["a",] }"#) == "is not valid JSON at line 1, column 19 (a comma before ])")
        #expect(
            Self.error("{ \"target\": \"web\",\n  \"target\": \"apple\" }")
                == "gives the key \"target\" twice in one object (line 2, column 3)")
        #expect(Self.error("// web\n{}")?.hasSuffix("(a comment, which JSON has none of)") == true)
        #expect(Self.error("{} {}") == "is not valid JSON at line 1, column 4 (more after the JSON value)")
        #expect((try? Self.parse(#"{ "target": "w\u0065b", "min-loop": 2.5e0 }"#))?.target == .web)
        #expect(Self.error("[1]") == "must hold one JSON object")
        #expect(Self.error(#"{ "thresholdz": {} }"#)?.hasPrefix(#"has an unknown key "thresholdz""#) == true)
        #expect(Self.error(#"{ "target": "android" }"#)?.hasPrefix(#""target" must be one of apple, web"#) == true)
        let minLoop = #""min-loop" must be a time under a day in seconds or milliseconds (1, "1s", "800ms")"#
        #expect(Self.error(#"{ "min-loop": true }"#) == minLoop)
        #expect(Self.error(#"{ "min-loop": "12f" }"#) == minLoop)
        #expect(Self.error(#"{ "min-loop": -1 }"#) == minLoop)
        #expect(Self.error(#"{ "min-loop": 86400 }"#) == minLoop)
        // The command line's syntax: "2s", "800ms", "2" are 2 s, 0.8 s, 2 s.
        for (text, seconds) in [("2s", Rational(2)), ("800ms", Rational(4, 5)), ("2", Rational(2))] {
            #expect(
                (try? ProjectConfig.parse(Array(#"{ "min-loop": "\#(text)" }"#.utf8)))?.minimumLoopSeconds == seconds)
        }
        #expect(
            Self.error(#"{ "disable": ["moov-at-start"] }"#)?.hasPrefix(
                #""disable" names "moov-at-start", no such rule"#) == true)
        #expect(Self.error(#"{ "disable": "moov-at-end" }"#) == #""disable" must be a list of rule names"#)
        #expect(
            Self.error(#"{ "thresholds": { "moov-at-end": 1 } }"#)?.hasPrefix(
                #""thresholds" names "moov-at-end", which has none"#) == true)
        #expect(
            Self.error(#"{ "thresholds": { "seam-audio-click": 3 } }"#)?.hasPrefix(
                #""thresholds"."seam-audio-click" must be a number from 0.0 to 2.0"#) == true)
        #expect(Self.error(#"{ "ignore": [ { "rules": [] } ] }"#)?.hasPrefix(#"each "ignore" entry must be"#) == true)
        #expect(
            Self.error(#"{ "ignore": [ { "path": "a", "rule": [] } ] }"#)?.hasPrefix(#"each "ignore" entry must be"#)
                == true)
    }

    @Test func commandLineWinsThenTheFileThenTheDefaults() throws {
        let c = try Self.parse(#"{ "target": "web", "min-loop": 2, "disable": ["rotation"] }"#)
        let base = AnalysisOptions().disabling(["moov-at-end"])
        let fromFile = c.applied(to: base, target: nil, minimumLoopSeconds: nil)
        #expect(fromFile.target == .web && fromFile.minimumLoopSeconds == Rational(2))
        #expect(fromFile.disabled == ["moov-at-end", "rotation"])
        let fromFlags = c.applied(to: base, target: .safari, minimumLoopSeconds: Rational(1, 2))
        #expect(fromFlags.target == .safari && fromFlags.minimumLoopSeconds == Rational(1, 2))
        let none = ProjectConfig().applied(to: AnalysisOptions(), target: nil, minimumLoopSeconds: nil)
        #expect(none == AnalysisOptions())
    }

    @Test func thresholdsMoveTheSeamRules() throws {
        // A seam 8 of 255 apart with little motion: over the default floor (6), under a project's 10.
        let jump = Clips.clip(
            [Clips.video(), Clips.audio()], seam: SeamFacts(videoDifference: 8, videoMotion: 1, audioJump: [0.08]))
        #expect(Set(Clips.rules(jump)) == ["seam-visual-jump", "seam-audio-click"])
        let c = try Self.parse(#"{ "thresholds": { "seam-visual-jump": 10, "seam-audio-click": 0.1 } }"#)
        #expect(
            Clips.rules(jump, options: c.applied(to: AnalysisOptions(), target: nil, minimumLoopSeconds: nil)) == [])
        // A stricter project: 0.07 still catches the 0.08 jump, a floor of 8 does not catch a difference of 8.
        let strict = try Self.parse(#"{ "thresholds": { "seam-visual-jump": 8, "seam-audio-click": 0.07 } }"#)
        #expect(
            Clips.rules(jump, options: strict.applied(to: AnalysisOptions(), target: nil, minimumLoopSeconds: nil)) == [
                "seam-audio-click"
            ])
    }
}
