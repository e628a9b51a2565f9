import CFFmpeg
import LoopAnalysis

/// Decoded frames of one video track in presentation order, from a keyframe on, one at a time: a transition
/// holds one frame from each side, whatever its length.
final class FrameSource {
    private let input: InputFile
    private let decoder: Decoder
    private let stream: Int
    private let packet: Packet
    private let scratch: Frame
    private var queue: [Frame] = []
    private var drained = false
    private var clock = IndexClock()
    private let origin: Int64
    private let fromDts: Int64
    private let throughDts: Int64

    /// Frames decoded from the packets with decode time in [fromDts, throughDts] (index media time; `origin`
    /// is the index's first decode time, to undo the demuxer's edit offset as the copier does).
    init(path: String, iso: Bool, stream: Int, origin: Int64, fromDts: Int64, throughDts: Int64) throws {
        input = try InputFile(path: path, options: iso ? ["ignore_editlist": "1"] : [:])
        decoder = try Decoder(input, stream: stream, threads: 0)
        self.stream = stream
        packet = try Packet()
        scratch = try Frame()
        self.origin = origin
        self.fromDts = fromDts
        self.throughDts = throughDts
    }

    /// The next frame (its pts in index media time), or nil when the range is exhausted.
    func next() throws -> Frame? {
        while queue.isEmpty && !drained {
            if try input.read(into: packet) {
                guard packet.streamIndex == stream, let dts = clock.dts(packet, origin: origin) else { continue }
                if dts < fromDts { continue }
                if dts > throughDts {
                    try flush()
                    continue
                }
                try decoder.decode(packet, into: scratch) { try keep($0) }
            } else {
                try flush()
            }
        }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    private func flush() throws {
        guard !drained else { return }
        drained = true
        try decoder.decode(nil, into: scratch) { try keep($0) }
    }

    private func keep(_ f: Frame) throws {
        let copy = try f.clone()
        if let pts = f.pts { copy.pointer.pointee.pts = pts - clock.shift(stream) }
        queue.append(copy)
    }
}
