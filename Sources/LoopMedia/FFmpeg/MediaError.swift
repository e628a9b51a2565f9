import CFFmpeg
import Foundation
import LoopIndex

extension MediaError {
    public init(_ operation: String, code: Int32) {
        self.init(operation, reason: MediaError.text(code), code: code)
    }

    static func text(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "FFmpeg error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension MediaError {
    /// Any error as one line for a report, in loopprep's words: what it was doing, what is wrong with the file,
    /// what the user can do; FFmpeg's own text only after them, in parentheses. Foundation's file errors as the
    /// POSIX reason and the path, not NSError's multi-line dump.
    public static func describe(_ error: Error) -> String {
        if let media = error as? MediaError { return media.explained }
        let ns = error as NSError
        guard ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else { return "\(error)" }
        let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        let underlying = (ns.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap {
            $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : nil
        }
        let missing =
            ns.domain == NSCocoaErrorDomain
            && [CocoaError.fileNoSuchFile.rawValue, CocoaError.fileReadNoSuchFile.rawValue].contains(ns.code)
        let reason = underlying ?? (missing ? "No such file or directory" : ns.localizedDescription)
        // A full disk in loopprep's words, wherever it was met.
        let posix =
            ns.domain == NSPOSIXErrorDomain
            ? Int32(ns.code) : (ns.userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) }
        let words = posix == ENOSPC || posix == EDQUOT ? "the disk is full (\(reason.lowercased()))" : reason
        let line = words.replacingOccurrences(of: "\n", with: " ")
        // Without a path, the system's words alone ("Invalid argument") would say nothing of what failed.
        guard let path else { return "the system refused a file operation loopprep made (\(line))" }
        return "\(path): \(line)"
    }
}

/// Throws on a negative FFmpeg return code, naming the operation.
@discardableResult
func check(_ code: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    if code < 0 { throw MediaError(operation(), code: code) }
    return code
}

extension MediaError {
    /// The operation of a written output refused by its check (the output not kept).
    static let verifyOutput = "verify output"

    /// A write failure in loopprep's words, FFmpeg's kept after it: what failed, what it means for the file.
    public static func whileWriting(_ error: Error) -> String {
        guard let media = error as? MediaError, let code = media.code,
            ["write packet", "write header", "finish output", "open output", "create output"].contains(media.operation)
        else { return describe(error) }
        let meaning: String
        switch code {
        case lp_error_invaliddata, lp_error_einval:
            meaning =
                "FFmpeg's muxer refused the copied stream (a codec, tag or timestamp this container does not take)"
        case lp_error_enospc: meaning = "the disk is full"
        case lp_error_enomem: meaning = "out of memory"
        default: meaning = "FFmpeg could not write it"
        }
        return "could not write the output: \(meaning) (\(media.description))"
    }
}

extension MediaError {
    /// The error as a sentence a user understands. An error loopprep raised with its own reason is that reason;
    /// one FFmpeg reported (a code) says what loopprep was doing and what it means for the file, FFmpeg's text
    /// kept after it.
    public var explained: String {
        guard let code else { return description }
        let ffmpeg = "(FFmpeg: \(operation): \(reason))"
        let meaning: String
        if let status = Self.httpStatus(code) {
            // A server's answer, not the file's content.
            return "the server answered \(status): check the address, and that the file is still there \(ffmpeg)"
        }
        switch (operation, code) {
        case (_, lp_error_eof):
            meaning = "the file ends before its data does: it is truncated; copy or download it again"
        case ("open", lp_error_invaliddata):
            meaning = """
                not a video or audio file FFmpeg recognises (its first bytes match no container it reads); check \
                that it is a whole media file
                """
        case ("open", lp_averror(EACCES)), ("open", lp_averror(EPERM)):
            meaning = "loopprep may not read this file (permission denied)"
        case ("open", lp_averror(ENOENT)):
            meaning = "no such file"
        case ("open", lp_averror(EISDIR)):
            meaning = "this is a folder, not a file"
        case ("open", _), ("read stream info", _):
            meaning = "FFmpeg cannot read the file's streams: it is damaged or in a form FFmpeg does not read"
        case ("read packet", lp_error_invaliddata):
            meaning = """
                the file is damaged partway through (a packet cannot be read); export or download it again
                """
        case ("read packet", _):
            meaning = "reading the file failed partway through; check the disk or the connection and try again"
        case ("seek", _):
            meaning = "FFmpeg cannot seek in this file (its format keeps no index of where each frame is)"
        case ("decode", lp_error_invaliddata):
            meaning = "a frame does not decode (its data is damaged); export the clip again"
        case ("decode", _):
            meaning = "FFmpeg's decoder failed on a frame; export the clip again"
        case ("open decoder", _):
            meaning = "FFmpeg cannot decode this codec"
        case (_, lp_error_enomem):
            meaning = "out of memory"
        case (_, lp_error_enospc):
            meaning = "the disk is full"
        default:
            meaning = "FFmpeg failed while loopprep was doing this: \(operation); please report the file"
        }
        return "\(meaning) \(ffmpeg)"
    }

    /// FFmpeg's HTTP errors (FFERRTAG(0xF8, '4', '0', '4') and its kin) as the status a server sent; nil for others.
    static func httpStatus(_ code: Int32) -> String? {
        func tag(_ b: String) -> Int32 {
            let bytes = [0xF8] + Array(b.utf8).map(Int32.init)
            return -(bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24)
        }
        let known = ["400", "401", "403", "404", "4XX", "5XX"]
        return known.first { tag($0) == code }.map { $0.replacingOccurrences(of: "XX", with: "xx") }
    }
}
