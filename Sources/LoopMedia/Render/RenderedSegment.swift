import CFFmpeg
import LoopAnalysis
import LoopIndex

/// A re-encoded run of frames, ready to sit before (head) or after (tail) the copied GOPs: samples in the
/// source's NAL format, and the parameter sets they need (with ids the track does not use yet).
struct RenderedSegment {
    struct Sample {
        var data: [UInt8]
        var pts: Int64
        var dts: Int64
        var duration: Int64
        var isKey: Bool

        /// An encoder's packet as a sample of the source's track: NAL units length-prefixed like the source's
        /// (x264 writes Annex B), parameter sets and delimiters dropped (they are in the avcC), and the
        /// source's decode delay, so decode times run on into the copied GOPs.
        /// `lengthSize` nil: the codec has no NAL units (VP8, VP9): the packet as it is.
        init(encoded p: Packet, lengthSize: Int?, decodeDelay: Int64, duration: Int64) {
            let bytes = p.withBytes { Array($0) }
            let pts = p.pts ?? 0
            let data =
                lengthSize.map { size in
                    lengthPrefixed(
                        annexBUnits(bytes).filter { ![7, 8, 9].contains(($0.first ?? 0) & 0x1f) }, size: size)
                } ?? bytes
            self.init(data: data, pts: pts, dts: pts - decodeDelay, duration: duration, isKey: p.isKeyframe)
        }

        init(data: [UInt8], pts: Int64, dts: Int64, duration: Int64, isKey: Bool) {
            self.data = data
            self.pts = pts
            self.dts = dts
            self.duration = duration
            self.isKey = isKey
        }
    }
    var samples: [Sample]
    var sps: [[UInt8]]
    var pps: [[UInt8]]
    /// The encoder's own configuration record (its global header: AV1's av1C, HEVC's hvcC), for a track encoded
    /// again whole; nil where it has none (VP8, VP9).
    var extradata: [UInt8]?

    /// Decoded pictures whose quantizers set a segment's rate factor before its encoder opens.
    static let quantizersWanted = 16

    /// Decodes from `segment.decodeFromDts` (a keyframe) and encodes the frames presented in
    /// [firstPts, untilPts); a head stops reading where the copy starts. Times are the track's timeline's.
    /// `avcc`: an H.264 track's configuration, whose parameter set ids the run's must not reuse; nil for a track
    /// encoded again whole in another codec (VP8, VP9, AV1, HEVC: the encoder's own configuration replaces it).
    static func render(
        _ source: String, cut: TrackCut, segment head: SegmentRender, isHead: Bool, avcc: AVCConfig?,
        timelines: [Int: TrackTimeline], preset: String
    ) throws -> RenderedSegment {
        let window = PacketWindow(cut, from: head.decodeFromDts, through: isHead ? cut.keepFrom - 1 : .max)
        let frames = try FrameSource(path: source, window: window, timelines: timelines)
        let used = Set((avcc?.sps ?? []).compactMap(AVCConfig.spsID) + (avcc?.pps ?? []).compactMap(AVCConfig.ppsID))
        guard let id = (0...31).first(where: { !used.contains($0) }) else { throw MediaError.noFreeParameterSetID }
        var encoder: VideoEncoder?
        var rendered: [Sample] = []
        func emit(_ p: Packet) {
            rendered.append(
                Sample(encoded: p, lengthSize: avcc?.lengthSize, decodeDelay: head.reorderDelay, duration: 0))
        }
        // The encoder opens once the source's quantizers of a few pictures are known: the frames are encoded at the
        // source's own quality (RunQuality, as stitch's joins), not finer (a whole loop re-encoded at crf 17 came out
        // at four times the source's rate). Until then the frames wait, a few at most.
        var waiting: [Frame] = []
        func drain() throws {
            guard let first = waiting.first else { return }
            let like = EncoderSource(frames.input, stream: cut.index, picture: PictureTags(first))
            let open =
                try encoder
                ?? VideoEncoder(
                    like: like, parameterSetID: id, pixelFormat: first.pointer.pointee.format,
                    rateFactor: RunQuality.rateFactor(sourceQuantizers: frames.quantizers), preset: preset)
            for f in waiting {
                // The first frame is a keyframe: the segment decodes on its own.
                f.pointer.pointee.pict_type = encoder == nil ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
                encoder = open
                try open.encode(f, emit)
            }
            waiting = []
        }
        // A frame is shown until the next one starts (a stored duration may overlap it: FLV's 33/34 ms), so each
        // is held until the next arrives; one whose showing spans the start begins at it.
        func take(_ f: Frame, pts: Int64, until end: Int64) throws {
            guard end > head.firstPts, pts < head.untilPts else { return }
            f.pointer.pointee.pts = max(pts, head.firstPts)
            waiting.append(f)
            if encoder != nil || frames.quantizers.count >= Self.quantizersWanted { try drain() }
        }
        var held: (frame: Frame, pts: Int64)?
        while let f = try frames.next() {
            guard let pts = f.pts else { continue }
            if let h = held { try take(h.frame, pts: h.pts, until: pts) }
            held = (try f.clone(), pts)
        }
        if let h = held { try take(h.frame, pts: h.pts, until: h.pts + max(lp_frame_duration(h.frame.pointer), 1)) }
        try drain()
        guard let encoder else { throw MediaError("encode", reason: "no frame to re-encode before the first keyframe") }
        try encoder.encode(nil, emit)
        rendered.sort { $0.pts < $1.pts }
        for i in rendered.indices {
            rendered[i].duration = (i + 1 < rendered.count ? rendered[i + 1].pts : head.untilPts) - rendered[i].pts
        }
        let sets = encoder.parameterSets
        return RenderedSegment(samples: rendered, sps: sets.sps, pps: sets.pps, extradata: encoder.extradata)
    }
}

extension RenderedSegment.Sample {
    /// A packet holding the sample, its times and keyframe flag set.
    func packet() throws -> Packet {
        let packet = try Packet(bytes: data)
        packet.pts = pts
        packet.dts = dts
        packet.duration = duration
        packet.isKeyframe = isKey
        return packet
    }
}

extension X264Settings {
    /// x264's subme where it coded this frame (`bytes`, with the stream's avcC or none: Annex B).
    static func subme(of bytes: [UInt8], _ extradata: [UInt8]?) -> Int? {
        subme(FrameBytes.content(bytes, codec: "h264", extradata: extradata))
    }

    /// x264's subme where it coded the H.264 stream `index` of `path` (its first frame, read on its own).
    static func subme(firstFrameOf path: String, stream index: Int) throws -> Int? {
        try FrameBytes.packet(0, of: index, in: path).flatMap { subme(of: $0.bytes, $0.extradata) }
    }
}

extension MediaError {
    /// Every one of H.264's 32 parameter set ids is the source's already: a run's own cannot be added.
    static var noFreeParameterSetID: MediaError { MediaError("encode", reason: "no free SPS/PPS id") }
}
