import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Decoded frames of one video track in presentation order, from a keyframe on, one at a time: a transition
/// holds one frame from each side, whatever its length; a re-encoded segment takes the frames it needs.
final class FrameSource {
    private let reader: PacketReader
    private let decoder: Decoder
    private let stream: Int
    private let scratch: Frame
    private var queue: [(frame: Frame, quantizer: Int32)] = []
    private var drained = false
    /// The mean quantizer of each picture `next` gave, in order (H.264; none for other codecs). Counted as taken,
    /// not as decoded: how far a threaded decoder runs ahead depends on the machine's cores.
    private(set) var quantizers: [Int] = []

    /// H.264: pictures no other picture refers to can be left undecoded (NAL lengths read with its avcC; none:
    /// Annex B).
    private let isH264: Bool
    private let configuration: [UInt8]?
    /// Presentation times before which unreferenced pictures are not wanted (see `skipUnreferenced`).
    private var unwantedBefore: Int64?

    /// Frames decoded from the packets of `window` (a keyframe's decode time on); `timelines`: the probe's,
    /// for containers the reader retimes (see PacketReader).
    init(path: String, window: PacketWindow, timelines: [Int: TrackTimeline]) throws {
        reader = try PacketReader(path: path, windows: [window], timelines: timelines)
        isH264 = reader.input.stream(window.stream).pointee.codecpar.pointee.codec_id == AV_CODEC_ID_H264
        configuration = isH264 ? reader.input.extradata(window.stream) : nil
        // One thread: a frame-threaded H.264 decoder exports a picture's quantizers before another thread has
        // filled them (now and then a run's mean came out 28 for a source coded at 30). The cores go to runs
        // rendered side by side.
        decoder = try Decoder(reader.input, stream: window.stream, threads: 1, quantizers: true)
        stream = window.stream
        scratch = try Frame()
    }

    /// The file the frames come from (an encoder is set up like its stream).
    var input: InputFile { reader.input }

    /// The next frame (its pts on the track's timeline), or nil when the window is exhausted.
    func next() throws -> Frame? {
        while queue.isEmpty && !drained {
            if let read = try reader.next() {
                if let before = unwantedBefore, read.pts < before, isUnreferenced(read.packet) { continue }
                // A re-timed first frame (a muxer held it for the priming) is decoded at the time the cut gives it.
                if let pts = read.packet.pts, case let at = reader.mediaTime(ofDecoded: pts, stream: stream),
                    at != read.pts
                {
                    read.packet.pts = pts + read.pts - at
                }
                try decoder.decode(read.packet, into: scratch) { try keep($0) }
            } else {
                // The decoder holds frames back: the last ones come only with the flush.
                drained = true
                try decoder.decode(nil, into: scratch) { try keep($0) }
            }
        }
        guard !queue.isEmpty else { return nil }
        let (frame, quantizer) = queue.removeFirst()
        if quantizer >= 0 { quantizers.append(Int(quantizer)) }
        return frame
    }

    /// The caller wants no frame shown before `pts`: an H.264 picture shown earlier that no other picture refers
    /// to (every slice's nal_ref_idc 0: a B-frame outside the pyramid) is dropped unread. A run that starts late
    /// in a GOP decodes about half the frames before it instead of all.
    func skipUnreferenced(before pts: Int64) {
        unwantedBefore = pts
    }

    private func isUnreferenced(_ packet: Packet) -> Bool {
        guard isH264 else { return false }
        let slices = packet.withBytes { FrameBytes.content(Array($0), codec: "h264", extradata: configuration) }
            .filter { (1...5).contains(($0.first ?? 0) & 0x1f) }
        return !slices.isEmpty && slices.allSatisfy { ($0[0] >> 5) & 3 == 0 }
    }

    private func keep(_ f: Frame) throws {
        let copy = try f.clone()
        if let pts = f.pts { copy.pointer.pointee.pts = reader.mediaTime(ofDecoded: pts, stream: stream) }
        queue.append((copy, lp_frame_mean_qp(f.pointer)))
    }
}
