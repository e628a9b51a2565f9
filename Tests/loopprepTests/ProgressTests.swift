import Testing

@testable import loopprep

/// The progress line fits the terminal: at 40 columns and at 120, never wider, with the count always shown.
@Suite struct ProgressTests {
    @Test(arguments: [40, 60, 80, 120])
    func lineFitsTheTerminal(columns: Int) {
        let line = Progress.line(
            "analyzing", 1234, 10000, "media/a/very/long/folder/name/with/a/clip-number-0001234.mp4", columns: columns)
        #expect(line.count <= columns - 1)
        #expect(line.contains("1234/10000"))
        #expect(line.hasPrefix("analyzing"))
        if columns >= 80 { #expect(line.contains("[") && line.hasSuffix(".mp4")) }
    }
}
