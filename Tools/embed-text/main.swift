import Foundation

// embed-text INPUT OUTPUT TYPE NAME: writes OUTPUT, a Swift file whose `extension TYPE { static let NAME }` is
// INPUT's text (UTF-8) as one raw multi-line string literal, line for line (so the file stays within the
// 120 columns of the text's own lines). Run by scripts/embed-player.sh; the output is committed.
let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: embed-text INPUT OUTPUT TYPE NAME\n".utf8))
    exit(2)
}
let (input, output, type, name) = (arguments[1], arguments[2], arguments[3], arguments[4])
guard let text = try? String(contentsOfFile: input, encoding: .utf8) else {
    FileHandle.standardError.write(Data("embed-text: cannot read \(input) as UTF-8 text\n".utf8))
    exit(1)
}
// A raw literal with enough #s that no run of quotes in the text closes it; no line of the text is indented by
// the literal (its closing delimiter is at column 0), and the text's own last line break is kept.
var hashes = "#"
while text.contains("\"\"\"" + hashes) { hashes += "#" }
let source = """
    // Generated from \((input as NSString).lastPathComponent) by scripts/embed-player.sh (Tools/embed-text): \
    edit that file and run the script.
    // swift-format-ignore-file
    extension \(type) {
        static let \(name) = \(hashes)\"\"\"

    """ + text + "\n\"\"\"" + hashes + "\n}\n"
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("embed-text: cannot write \(output)\n".utf8))
    exit(1)
}
