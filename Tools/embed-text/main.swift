import Foundation

// embed-text INPUT OUTPUT TYPE NAME: writes OUTPUT, a Swift file whose `extension TYPE { static let NAME }` is
// INPUT's text (UTF-8) as one string literal. Run by the EmbedPlayer build plugin.
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
var literal = ""
for scalar in text.unicodeScalars {
    switch scalar {
    case "\\": literal += "\\\\"
    case "\"": literal += "\\\""
    case "\n": literal += "\\n"
    case "\r": literal += "\\r"
    case "\t": literal += "\\t"
    case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        literal += "\\u{\(String(scalar.value, radix: 16))}"
    default: literal.unicodeScalars.append(scalar)
    }
}
let source = """
    // Generated at build time from \((input as NSString).lastPathComponent) by embed-text; edit that file.
    extension \(type) {
        static let \(name) = "\(literal)"
    }

    """
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("embed-text: cannot write \(output)\n".utf8))
    exit(1)
}
