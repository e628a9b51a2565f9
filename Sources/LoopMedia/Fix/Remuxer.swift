import CFFmpeg
import LoopAnalysis

/// Writes a plan: video (and audio, unless re-encoded) copied packet for packet, byte for byte; each track's
/// planned start instant at time 0; the cut repeated `plan.repeats` times end to end. Re-encoded audio is
/// decoded from the cut's pre-roll, trimmed to exactly its presented samples, faded at loop points if asked, and
/// encoded once as one stream. Edit lists are written afterwards (ISOEditor), exactly.
enum Remuxer {
    struct Written {
        /// Output stream index for each input track index.
        var streams: [Int: Int]
        /// The pts written for each track's first packet, in the track's input ticks.
        var firstPts: [Int: Int64]
        /// A track's last packet's duration (input ticks) where it is shorter than the packet it came from.
        var lastDuration: [Int: Int64]
    }

    /// `inputISO`: the source is MP4/MOV (read in raw media time). `iso`: the output is (edit lists follow).
    /// `timelines`: the plan's, for packets the demuxer gives no decode time or duration (Matroska).
    static func write(
        _ source: String, plan: FixPlan, to path: String, format: String, iso: Bool, inputISO: Bool? = nil,
        timelines: [Int: TrackTimeline] = [:]
    ) throws -> Written {
        // Raw media time: FFmpeg's mov demuxer otherwise applies edit lists itself and drops or re-times samples.
        let options = inputISO ?? iso ? ["ignore_editlist": "1"] : [:]
        var input = try InputFile(path: source, options: options)
        let converting = iso && inputISO == false
        let output = try OutputFile(path: path, format: format)
        var state = State(plan: plan, iso: iso)
        state.timelines = timelines
        for cut in plan.tracks {
            // Another container's codec tags mean nothing to the MP4 muxer.
            let out = try output.addStream(
                copying: input, stream: cut.index,
                keepTag: iso && !converting && !(plan.reencodesAudio && cut.kind == .audio))
            // A converted audio track counts in samples (FLV's milliseconds cannot place an AAC frame).
            if converting, cut.kind == .audio, let rate = cut.sampleRate {
                output.setTimeBase(Rational(1, Int64(rate)), stream: out)
                if let samples = AudioFrames.candidates(codec: cut.codec).first, repeatsNothing(plan) {
                    state.regularFrames[cut.index] = samples
                }
            }
            state.streams[cut.index] = out
            // Matroska cannot hide priming: the cut started after it, on a packet; say so for the next reader.
            if !iso, cut.kind == .audio, cut.codec == "aac",
                cut.mediaStart > plan.tracks.first(where: { $0.index == cut.index })!.origin,
                let dropped = droppedPriming(cut, timeline: timelines[cut.index])
            {
                output.setMetadata(InputFile.primingTag, String(dropped), stream: out)
            }
            if !iso, cut.kind == .audio, cut.codec == "opus", !plan.reencodesAudio, let timeline = timelines[cut.index]
            {
                let trim = try OpusTrim(cut: cut, timeline: timeline)
                guard let head = input.extradata(cut.index).flatMap({ Opus.head($0, preSkip: trim.preSkip) }) else {
                    throw MediaError("add stream", reason: "the Opus track has no OpusHead to carry its pre-skip")
                }
                try output.setExtradata(head, stream: out)
                output.setInitialPadding(trim.preSkip, stream: out)
                state.opus[cut.index] = trim
            }
            if plan.reencodesAudio && cut.kind == .audio {
                let encoder = try AudioEncoder(like: input, stream: cut.index, globalHeader: output.needsGlobalHeader)
                try encoder.configure(output, stream: out)
                state.encoders[cut.index] = encoder
            }
        }
        for cut in plan.tracks where cut.head != nil || cut.tail != nil {
            guard cut.codec == "h264", let extradata = input.extradata(cut.index), var avcc = AVCConfig(extradata)
            else {
                throw MediaError("encode", reason: "re-encoding \(cut.codec) video is not supported (H.264 only)")
            }
            // Each re-encoded segment adds its own SPS/PPS pair to the track's avcC, with an unused id.
            for (segment, isHead) in [(cut.head, true), (cut.tail, false)] {
                guard let segment else { continue }
                let rendered = try RenderedSegment.render(
                    source, cut: cut, segment: segment, isHead: isHead, avcc: avcc, iso: inputISO ?? iso)
                avcc.sps += rendered.sps
                avcc.pps += rendered.pps
                if isHead { state.heads[cut.index] = rendered } else { state.tails[cut.index] = rendered }
            }
            try output.setExtradata(avcc.bytes, stream: state.streams[cut.index]!)
        }
        output.copyMetadata(from: input)
        var header = ["avoid_negative_ts": "disabled"]
        if iso {
            header["movie_timescale"] = String(plan.movieTimescale)
            header["use_editlist"] = "1"
        }
        try output.writeHeader(options: header)

        for pass in 0..<plan.repeats {
            if pass > 0 { input = try InputFile(path: source, options: options) }
            try state.copyPass(input, pass: pass, to: output)
        }
        for (index, encoder) in state.encoders.sorted(by: { $0.key < $1.key }) {
            try encoder.finish { try state.writeEncoded($0, track: index, to: output) }
        }
        output.presentedDuration = plan.duration * Int64(plan.repeats)
        try output.finish()
        return Written(streams: state.streams, firstPts: state.firstPts, lastDuration: state.lastDuration)
    }

    /// The samples of priming a Matroska cut leaves out with the packets before its start (nil: none).
    static func droppedPriming(_ cut: TrackCut, timeline: TrackTimeline?) -> Int64? {
        guard let rate = cut.sampleRate else { return nil }
        // Whole frames, counted: a millisecond clock would say 1014 for one 1024-sample frame.
        if let frame = AudioFrames.candidates(codec: cut.codec).first, let timeline {
            let packets = timeline.samples.filter { $0.dts < cut.keepFrom }.count
            return packets > 0 ? Int64(packets) * frame : nil
        }
        let samples = (Rational(cut.keepFrom - cut.origin) * cut.timeBase * Int64(rate)).rounded
        return samples > 0 ? samples : nil
    }

    /// Regular frame times are written for one pass of copied audio only (no re-encoding, no repeats).
    static func repeatsNothing(_ plan: FixPlan) -> Bool { plan.repeats == 1 && !plan.reencodesAudio }

    struct State {
        let plan: FixPlan
        let iso: Bool
        var cuts: [Int: TrackCut]
        var streams: [Int: Int] = [:]
        var encoders: [Int: AudioEncoder] = [:]
        var heads: [Int: RenderedSegment] = [:]
        var tails: [Int: RenderedSegment] = [:]
        var firstPts: [Int: Int64] = [:]
        var lastDuration: [Int: Int64] = [:]
        /// Presented samples taken so far in this pass, per re-encoded track.
        var taken: [Int: Int64] = [:]
        /// Per re-encoded track, where its last decoded frame ended (see PresentedAudio.slice).
        var nextSample: [Int: Int64] = [:]
        /// Converted audio of a fixed frame length: the frame in output ticks, packets written, the first one's time.
        var regularFrames: [Int: Int64] = [:]
        var copiedCount: [Int: Int] = [:]
        var regularStart: [Int: Int64] = [:]
        /// The plan's timelines (packet times FFmpeg does not give, or gives on a coarser clock).
        var timelines: [Int: TrackTimeline] = [:]
        /// Opus tracks cut by their pre-skip and end discard (Matroska).
        var opus: [Int: OpusTrim] = [:]

        init(plan: FixPlan, iso: Bool) {
            self.plan = plan
            self.iso = iso
            cuts = Dictionary(uniqueKeysWithValues: plan.tracks.map { ($0.index, $0) })
        }

        mutating func copyPass(_ input: InputFile, pass: Int, to output: OutputFile) throws {
            var clock = IndexClock()
            var remaining = Set(plan.tracks.map(\.index))
            var decoders: [Int: Decoder] = [:]
            for index in encoders.keys {
                decoders[index] = try Decoder(input, stream: index, timeBase: cuts[index]?.timeBase)
                taken[index] = 0
                nextSample[index] = nil
            }
            for (index, head) in heads.sorted(by: { $0.key < $1.key }) {
                try writeSegment(head, track: index, pass: pass, input: input, to: output)
            }
            let packet = try Packet()
            let frame = try Frame()
            var retimer = PacketRetimer(timelines: timelines)
            while !remaining.isEmpty, try input.read(into: packet) {
                let index = packet.streamIndex
                retimer.retime(packet, in: input)
                guard let cut = cuts[index], let dts = clock.dts(packet, origin: cut.origin) else { continue }
                let offset = clock.shift(index)
                let duration = max(packet.duration, 0)
                // Decode-time selection; a packet that straddles the first kept time (a PCM chunk) is kept too.
                guard dts >= cut.keepFrom || dts + duration > cut.keepFrom else { continue }
                // An Opus cut ends where its samples are complete (counted exactly; the plan's milliseconds are not).
                guard opus[index].map({ !$0.isComplete }) ?? (dts <= cut.keepThrough) else {
                    remaining.remove(index)
                    continue
                }
                if let decoder = decoders[index] {
                    if VorbisInOgg.decodesPastTheEnd(input, stream: index) { packet.clearSkipEnd() }
                    try decoder.decode(packet, into: frame) {
                        try take($0, track: index, shift: offset, pass: pass, to: output)
                    }
                } else {
                    try copy(
                        packet, cut: cut, dts: dts, pts: packet.pts.map { $0 - offset }, pass: pass, input: input,
                        to: output)
                }
                if opus[index]?.isComplete ?? (dts == cut.keepThrough) { remaining.remove(index) }
            }
            for (index, trim) in opus where !trim.isComplete {
                throw MediaError(
                    "write packet",
                    reason:
                        "track \(index)'s Opus packets decode to \(trim.decoded - trim.preSkip) samples after the pre-skip, fewer than the \(trim.count) planned"
                )
            }
            for (index, tail) in tails.sorted(by: { $0.key < $1.key }) {
                try writeSegment(tail, track: index, pass: pass, input: input, to: output)
            }
            for (index, decoder) in decoders {
                try decoder.decode(nil, into: frame) {
                    try take($0, track: index, shift: clock.shift(index), pass: pass, to: output)
                }
                let count = (cuts[index]!.duration * Int64(cuts[index]!.sampleRate ?? 0)).rounded
                guard taken[index] == count else {
                    throw MediaError(
                        "decode", reason: "track \(index) gave \(taken[index] ?? 0) of its \(count) presented samples")
                }
            }
        }

        mutating func copy(
            _ packet: Packet, cut: TrackCut, dts: Int64, pts rawPts: Int64?, pass: Int, input: InputFile,
            to output: OutputFile
        ) throws {
            var sourcePts = rawPts ?? dts
            if let retimed = cut.retimedFirstPts, dts == cut.keepFrom { sourcePts = retimed }
            // Later copies carry only what is presented (the planner checked nothing else is needed).
            if pass > 0 && sourcePts < cut.mediaStart { return }
            let passOffset = (cut.duration / cut.timeBase).rounded * Int64(pass)
            let p = packet.pointer
            let base = opus[cut.index]?.base ?? cut.mediaStart
            p.pointee.pts = sourcePts - base + passOffset
            p.pointee.dts = dts - base + passOffset
            if firstPts[cut.index] == nil { firstPts[cut.index] = p.pointee.pts }
            if var trim = opus[cut.index] {
                guard let n = packet.withBytes(Opus.samples) else {
                    throw MediaError("write packet", reason: "an Opus packet at \(dts) has no valid table of contents")
                }
                trim.decoded += n
                opus[cut.index] = trim
                if trim.isComplete { try Remuxer.setSkipEnd(packet, samples: trim.decoded - trim.preSkip - trim.count) }
            } else if let end = cut.mediaEnd, sourcePts + p.pointee.duration > end {
                let shortened = end - sourcePts
                if let frameBytes = Remuxer.pcmFrameBytes(input, cut), let rate = cut.sampleRate {
                    // Uncompressed audio is cut in the bytes, to the frame: nothing after the cut is stored, and
                    // the muxer's per-frame durations are exact as they are.
                    let frames = (Rational(shortened) * cut.timeBase * Int64(rate)).rounded
                    if frames >= 0, frames * frameBytes < Int64(p.pointee.size) {
                        av_shrink_packet(p, Int32(frames * frameBytes))
                    }
                    p.pointee.duration = shortened
                } else {
                    if !iso, cut.kind == .audio, let rate = cut.sampleRate {
                        // Matroska has no edit list: tell the player to drop the tail (DiscardPadding).
                        try Remuxer.setSkipEnd(
                            packet,
                            samples: (Rational(p.pointee.duration - shortened) * cut.timeBase * Int64(rate)).rounded)
                    }
                    p.pointee.duration = shortened
                    lastDuration[cut.index] = shortened
                }
            }
            let out = streams[cut.index]!
            p.pointee.stream_index = Int32(out)
            p.pointee.pos = -1
            av_packet_rescale_ts(p, cut.timeBase.avRational, output.timeBase(out))
            // A converted fixed-frame audio track (AAC from FLV's milliseconds) is laid back to back, a frame
            // each, from its first packet: what the decoder plays (the irregular-audio-durations rule).
            if let frame = regularFrames[cut.index] {
                let k = copiedCount[cut.index, default: 0]
                if k == 0 { regularStart[cut.index] = p.pointee.dts }
                p.pointee.dts = regularStart[cut.index]! + Int64(k) * frame
                p.pointee.pts = p.pointee.dts
                p.pointee.duration = min(p.pointee.duration, frame)
                copiedCount[cut.index] = k + 1
            }
            try output.write(packet)
        }

        /// Re-encoded frames (before or after the copied ones), rebased like the copied packets.
        mutating func writeSegment(
            _ head: RenderedSegment, track index: Int, pass: Int, input: InputFile, to output: OutputFile
        ) throws {
            guard let cut = cuts[index], let out = streams[index] else { return }
            let passOffset = (cut.duration / cut.timeBase).rounded * Int64(pass)
            for sample in head.samples {
                let packet = try Packet(bytes: sample.data)
                let p = packet.pointer
                p.pointee.pts = sample.pts - cut.mediaStart + passOffset
                p.pointee.dts = sample.dts - cut.mediaStart + passOffset
                p.pointee.duration = sample.duration
                if sample.isKey { p.pointee.flags |= AV_PKT_FLAG_KEY }
                if firstPts[index] == nil { firstPts[index] = p.pointee.pts }
                p.pointee.stream_index = Int32(out)
                av_packet_rescale_ts(p, input.stream(index).pointee.time_base, output.timeBase(out))
                try output.write(packet)
            }
        }

        /// The presented samples of a decoded frame, faded at the loop points, into the track's encoder.
        mutating func take(_ frame: Frame, track index: Int, shift: Int64, pass: Int, to output: OutputFile) throws {
            guard let cut = cuts[index], let rate = cut.sampleRate, let encoder = encoders[index] else { return }
            let count = (cut.duration * Int64(rate)).rounded
            var chunk = PresentedAudio.slice(
                frame, cut: cut, shift: shift, taken: taken[index]!, count: count, next: &nextSample[index])
            if let fadeLength = plan.seamFade.map({ ($0 * Int64(rate)).rounded }), fadeLength > 0 {
                for i in 0..<(chunk.first?.count ?? 0) {
                    let gain = Self.fadeGain(taken[index]! + Int64(i), count, fadeLength)
                    for c in chunk.indices { chunk[c][i] *= gain }
                }
            }
            taken[index]! += Int64(chunk.first?.count ?? 0)
            try encoder.encode(chunk) { try writeEncoded($0, track: index, to: output) }
        }

        /// Half-Hann fade-in over the first `length` samples and fade-out over the last `length`.
        static func fadeGain(_ n: Int64, _ count: Int64, _ length: Int64) -> Float {
            func ramp(_ k: Int64) -> Float {
                k >= length ? 1 : Float(0.5 - 0.5 * cos(Double.pi * Double(k) / Double(length)))
            }
            return ramp(n) * ramp(count - 1 - n)
        }

        mutating func writeEncoded(_ packet: Packet, track index: Int, to output: OutputFile) throws {
            guard let cut = cuts[index], let encoder = encoders[index], let out = streams[index] else { return }
            let p = packet.pointer
            let encoderBase = encoder.context.pointee.time_base
            let inTicks = { (v: Int64) in
                (Rational(v) * Rational(Int64(encoderBase.num), Int64(encoderBase.den)) / cut.timeBase).rounded
            }
            if firstPts[index] == nil { firstPts[index] = inTicks(p.pointee.pts) }
            lastDuration[index] = inTicks(p.pointee.duration)
            p.pointee.stream_index = Int32(out)
            av_packet_rescale_ts(p, encoderBase, output.timeBase(out))
            try output.write(packet)
        }
    }

    /// Bytes per frame (all channels) of uncompressed PCM, or nil for any other codec.
    static func pcmFrameBytes(_ input: InputFile, _ cut: TrackCut) -> Int64? {
        guard cut.kind == .audio, cut.codec.hasPrefix("pcm_") else { return nil }
        let par = input.stream(cut.index).pointee.codecpar.pointee
        let bits = Int64(av_get_bits_per_sample(par.codec_id))
        let channels = Int64(par.ch_layout.nb_channels)
        let bytes = par.block_align > 0 ? Int64(par.block_align) : bits * channels / 8
        return bytes > 0 ? bytes : nil
    }

    static func setSkipEnd(_ packet: Packet, samples: Int64) throws {
        guard samples > 0, let data = av_packet_new_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, 10) else {
            return
        }
        let value = UInt32(clamping: samples)
        for i in 0..<10 { data[i] = 0 }
        for i in 0..<4 { data[4 + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
}
