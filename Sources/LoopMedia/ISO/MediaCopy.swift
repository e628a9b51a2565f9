import Foundation
import LoopIndex

extension MP4Writer {
    /// The output laid out before a byte of it is written: its head (ftyp, moov, padding, the mdat header) and the
    /// place of every copied range, so the media can be copied in any order.
    struct Layout: Sendable {
        /// A source range copied to `at`, or bytes written there instead (a timecode sample advanced).
        struct Piece: Sendable {
            var at: Int64
            var source: Int64
            var size: Int64
            var replacement: [UInt8]? = nil
        }
        var head: [UInt8]
        /// In output order.
        var pieces: [Piece]
        var size: Int64
        /// Where the media read to check the output's end starts: a second before the last sync sample the
        /// tracks share (a video's last GOP), so it can be copied before the middle.
        var tailStart: Int64

        /// The copy's order: the media's first 4 MiB (the first frames every reading decodes), then the tail, then
        /// the rest; a range is split where those parts meet.
        func ordered() -> [Piece] {
            let front = min(Int64(head.count) + (4 << 20), tailStart)
            var first: [Piece] = []
            var tail: [Piece] = []
            var middle: [Piece] = []
            for piece in pieces {
                var rest = piece
                for cut in [front, tailStart]
                where rest.replacement == nil && rest.at < cut && cut < rest.at + rest.size {
                    let head = Piece(at: rest.at, source: rest.source, size: cut - rest.at)
                    if cut == front { first.append(head) } else { middle.append(head) }
                    rest = Piece(at: cut, source: rest.source + head.size, size: rest.size - head.size)
                }
                if rest.at < front {
                    first.append(rest)
                } else if rest.at >= tailStart {
                    tail.append(rest)
                } else {
                    middle.append(rest)
                }
            }
            return first + tail + middle
        }
    }
}

/// An MP4 being written from its layout: created with its head (ftyp, moov) and its final size, then its media
/// copied from the source, a reader of the growing file told of each slice (`progress`).
final class MediaCopy: Sendable {
    let layout: MP4Writer.Layout
    private let input: FileHandle
    private let output: FileHandle

    init(_ layout: MP4Writer.Layout, from source: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let out = FileHandle(forWritingAtPath: path)
        else {
            throw MediaError("write output", reason: "cannot create \(path)")
        }
        guard let input = FileHandle(forReadingAtPath: source) else {
            try? out.close()
            throw MediaError("write output", reason: "cannot reopen \(source)")
        }
        self.layout = layout
        self.input = input
        output = out
        // (Thrown from here, deinit closes both.)
        try out.write(contentsOf: Data(layout.head))
        // The file has its final size from the start (the media not yet copied reads as a hole), as a reader of the
        // growing file sees it.
        try out.truncate(atOffset: UInt64(layout.size))
    }

    deinit {
        try? input.close()
        try? output.close()
    }

    /// Copies the media in `Layout.ordered` order, telling `progress` of every slice written.
    func run(_ progress: CopyProgress?) throws {
        try progress?.written(0..<Int64(layout.head.count))
        var copied: Int64 = 0
        for piece in layout.ordered() {
            try output.seek(toOffset: UInt64(piece.at))
            if let replacement = piece.replacement {
                try output.write(contentsOf: Data(replacement))
                try progress?.written(piece.at..<piece.at + piece.size)
            } else {
                try ISOEditor.copy(input, piece.source, piece.size, to: output, written: progress.map { $0.written })
                guard try output.offset() == UInt64(piece.at + piece.size) else {
                    throw MediaError("write output", reason: "the source ended before every sample was copied")
                }
            }
            copied += piece.size
        }
        guard Int64(layout.head.count) + copied == layout.size else {
            throw MediaError("write output", reason: "the layout does not add up to the file's size")
        }
    }
}
