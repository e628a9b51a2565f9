import Foundation

/// A box tree for the parts of a movie box loopprep rewrites; everything else stays raw bytes.
package struct Box {
    package var type: FourCC
    /// Leaf payload (after the 8-byte header), or nil for a container.
    package var payload: [UInt8]?
    package var children: [Box]

    package init(type: FourCC, payload: [UInt8]?, children: [Box]) {
        self.type = type
        self.payload = payload
        self.children = children
    }

    package static let containers: Set<FourCC> = ["moov", "trak", "edts", "mdia", "minf", "stbl", "tref"]

    package static func parse(_ bytes: [UInt8], from start: Int, to end: Int) throws -> [Box] {
        var boxes: [Box] = []
        for (type, body) in ByteReader(bytes, from: start, to: end).children(until: end) {
            if containers.contains(type) {
                boxes.append(
                    Box(type: type, payload: nil, children: try parse(bytes, from: body.position, to: body.end)))
            } else {
                boxes.append(Box(type: type, payload: Array(bytes[body.position..<body.end]), children: []))
            }
        }
        return boxes
    }

    package var size: Int { 8 + (payload?.count ?? children.reduce(0) { $0 + $1.size }) }

    package func serialize(into out: inout [UInt8]) {
        out.append(contentsOf: be32(UInt32(size)))
        out.append(contentsOf: type.bytes)
        if let payload { out.append(contentsOf: payload) } else { for c in children { c.serialize(into: &out) } }
    }

    /// The box whole, header included.
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }

    package func first(_ type: FourCC) -> Box? { children.first { $0.type == type } }

    /// An mdia box's sample table (minf/stbl).
    package mutating func withSampleTable(_ body: (inout Box) throws -> Void) rethrows {
        try withChild("minf") { try $0.withChild("stbl", body) }
    }
    package mutating func withChild(_ type: FourCC, _ body: (inout Box) throws -> Void) rethrows {
        if let i = children.firstIndex(where: { $0.type == type }) { try body(&children[i]) }
    }
}

extension Box {
    package init(_ type: FourCC, _ payload: [UInt8]) { self.init(type: type, payload: payload, children: []) }
    package init(_ type: FourCC, children: [Box]) { self.init(type: type, payload: nil, children: children) }

    /// A full box's payload: version, 24-bit flags, then the body.
    package static func full(_ type: FourCC, version: UInt8 = 0, flags: UInt32 = 0, _ body: [UInt8]) -> Box {
        Box(type, [version, UInt8(flags >> 16 & 0xff), UInt8(flags >> 8 & 0xff), UInt8(flags & 0xff)] + body)
    }

    /// Edits the child at a path of container types in place, if it is there.
    package mutating func edit(_ path: [FourCC], _ body: (inout Box) throws -> Void) rethrows {
        guard let head = path.first else { return try body(&self) }
        if let i = children.firstIndex(where: { $0.type == head }) {
            try children[i].edit(Array(path.dropFirst()), body)
        }
    }
}
