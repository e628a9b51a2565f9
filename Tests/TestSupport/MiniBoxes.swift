import Foundation

/// A second, deliberately separate ISO-BMFF reader for tests: enough of the box tree to check what a written
/// file says (box order, edit lists, sample counts and durations) without trusting loopprep's own reader.
public struct MiniBox {
    public var type: String
    public var offset: Int
    public var payload: [UInt8]
    public var children: [MiniBox]

    static let containers: Set = ["moov", "trak", "edts", "mdia", "minf", "stbl", "mvex", "moof", "traf", "udta"]

    public static func read(_ path: String) throws -> [MiniBox] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return parse(bytes, 0, bytes.count)
    }

    static func parse(_ b: [UInt8], _ start: Int, _ end: Int) -> [MiniBox] {
        var out: [MiniBox] = []
        var at = start
        while at + 8 <= end {
            var size = Int(u32(b, at))
            var header = 8
            let type = String(decoding: b[at + 4..<at + 8], as: UTF8.self)
            if size == 1 {
                size = Int(u64(b, at + 8))
                header = 16
            } else if size == 0 {
                size = end - at
            }
            guard size >= header, at + size <= end else { break }
            let body = Array(b[at + header..<at + size])
            out.append(
                MiniBox(
                    type: type, offset: at, payload: body,
                    children: containers.contains(type) ? parse(b, at + header, at + size) : []))
            at += size
        }
        return out
    }

    public func child(_ type: String) -> MiniBox? { children.first { $0.type == type } }
    public func all(_ type: String) -> [MiniBox] { children.filter { $0.type == type } }
    public func path(_ types: String...) -> MiniBox? { types.reduce(Optional(self)) { $0?.child($1) } }

    /// Big-endian unsigned integer at a payload offset.
    public func u32(_ at: Int) -> UInt32 { MiniBox.u32(payload, at) }
    public func u64(_ at: Int) -> UInt64 { MiniBox.u64(payload, at) }
    public static func u32(_ b: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 << 8 | UInt32(b[at + $1]) } }
    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(b, at)) << 32 | UInt64(u32(b, at + 4)) }

    /// mvhd or mdhd timescale.
    public var timescale: Int { Int(payload[0] == 1 ? u32(20) : u32(12)) }
    /// elst entries as (segment duration in movie ticks, media time).
    public var edits: [(duration: Int64, mediaTime: Int64)] {
        let v1 = payload[0] == 1
        return (0..<Int(u32(4))).map { i in
            let at = 8 + i * (v1 ? 20 : 12)
            return v1
                ? (Int64(u64(at)), Int64(bitPattern: u64(at + 8)))
                : (Int64(u32(at)), Int64(Int32(bitPattern: u32(at + 4))))
        }
    }
    /// stts as (count, delta) runs.
    public var runs: [(count: Int, delta: Int64)] {
        (0..<Int(u32(4))).map { i in (Int(u32(8 + i * 8)), Int64(u32(12 + i * 8))) }
    }
    /// hdlr's handler type.
    public var handler: String { String(decoding: payload[8..<12], as: UTF8.self) }
}
