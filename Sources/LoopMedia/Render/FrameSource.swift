import CFFmpeg
import LoopAnalysis

/// Decoded frames of one video track in presentation order, from a keyframe on, one at a time: a transition
/// holds one frame from each side, whatever its length; a re-encoded segment takes the frames it needs.
final class FrameSource {
    private let reader: PacketReader
    private let decoder: Decoder
    private let stream: Int
    private let scratch: Frame
    private var queue: [Frame] = []
    private var drained = false

    /// Frames decoded from the packets of `window` (a keyframe's decode time on); `timelines`: the probe's,
    /// for containers the reader retimes (see PacketReader).
    init(path: String, window: PacketWindow, timelines: [Int: TrackTimeline]) throws {
        reader = try PacketReader(path: path, windows: [window], timelines: timelines)
        decoder = try Decoder(reader.input, stream: window.stream, threads: 0)
        stream = window.stream
        scratch = try Frame()
    }

    /// The file the frames come from (an encoder is set up like its stream).
    var input: InputFile { reader.input }

    /// The next frame (its pts on the track's timeline), or nil when the window is exhausted.
    func next() throws -> Frame? {
        while queue.isEmpty && !drained {
            if let read = try reader.next() {
                try decoder.decode(read.packet, into: scratch) { try keep($0) }
            } else {
                // The decoder holds frames back: the last ones come only with the flush.
                drained = true
                try decoder.decode(nil, into: scratch) { try keep($0) }
            }
        }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    private func keep(_ f: Frame) throws {
        let copy = try f.clone()
        if let pts = f.pts { copy.pointer.pointee.pts = reader.mediaTime(ofDecoded: pts, stream: stream) }
        queue.append(copy)
    }
}
