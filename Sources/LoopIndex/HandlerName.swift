/// A handler box's name, which QuickTime writes as a Pascal string (a count byte, then the text) and ISO/IEC 14496-12
/// as a C string (the text, then a zero): the same name in either file, read or written in its own form.
package enum HandlerName {
    /// The bytes before the name: version and flags, pre_defined, the handler type, three reserved words.
    static let nameStart = 24

    /// The name's text, whichever form holds it (a count byte that covers the rest, or ends before a zero after it,
    /// is a Pascal string, as FFmpeg's reader takes it).
    package static func text(_ payload: [UInt8]) -> [UInt8] {
        guard payload.count > nameStart else { return [] }
        let name = Array(payload[nameStart...])
        let count = Int(name[0])
        let pascal =
            count > 0
            && (count == name.count - 1 || (count < name.count - 1 && name[(count + 1)...].allSatisfy { $0 == 0 }))
        if pascal {
            return Array(name[1...count])
        }
        return Array(name.prefix { $0 != 0 })
    }

    /// The payload with its name written in QuickTime's form (`quickTime`) or ISO's.
    package static func payload(_ payload: [UInt8], quickTime: Bool) -> [UInt8] {
        guard payload.count >= nameStart else { return payload }
        let name = text(payload).prefix(255)
        return Array(payload.prefix(nameStart)) + (quickTime ? [UInt8(name.count)] + name : name + [0])
    }
}
