import LoopAnalysis
import LoopIndex

/// Nero chapters (`chpl` in moov/udta: start times in 100 ns units, titles), which FFmpeg writes beside a
/// QuickTime chapter track and some players read instead of it. A cut moves them with the kept range.
enum NeroChapters {
    struct Chapter: Equatable {
        var start: Int64
        var title: [UInt8]
    }

    /// The user data payload with its chpl (if any) moved to a range that starts at `start` seconds of the
    /// source and lasts `length`: chapters before it start at 0 (the last one of them stays), those after it go.
    static func cut(_ udta: [UInt8], start: Rational, length: Rational) -> [UInt8] {
        var out: [UInt8] = []
        let reader = ByteReader(udta, from: 0, to: udta.count)
        for (type, body) in reader.children(until: udta.count) {
            let content = Array(udta[body.position..<body.end])
            guard type == "chpl", let chapters = parse(content) else {
                out += Box(type, content).bytes
                continue
            }
            let from = (start * 10_000_000).rounded
            let until = ((start + length) * 10_000_000).rounded
            var kept = chapters.filter { $0.start < until }
            if let lead = kept.lastIndex(where: { $0.start <= from }) { kept.removeFirst(lead) }
            kept = kept.map { Chapter(start: max($0.start - from, 0), title: $0.title) }
            out +=
                Box(
                    "chpl",
                    Array(content[0..<8]) + [UInt8(kept.count)]
                        + kept.flatMap { be64(UInt64($0.start)) + [UInt8($0.title.count)] + $0.title }
                ).bytes
        }
        return out
    }

    /// Version 1 as FFmpeg writes it: version and flags, 4 reserved bytes, a count, then (start, title) pairs.
    static func parse(_ content: [UInt8]) -> [Chapter]? {
        guard content.count >= 9, content[0] == 1 else { return nil }
        var r = ByteReader(content, from: 8, to: content.count)
        let count = Int(r.u8())
        var chapters: [Chapter] = []
        for _ in 0..<count {
            guard r.remaining >= 9 else { return nil }
            let start = Int64(clamping: r.u64())
            let length = Int(r.u8())
            guard r.remaining >= length else { return nil }
            chapters.append(Chapter(start: start, title: Array(content[r.position..<r.position + length])))
            r.skip(length)
        }
        return chapters
    }
}
