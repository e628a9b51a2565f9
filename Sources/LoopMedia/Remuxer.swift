import CFFmpeg
import LoopAnalysis

/// Copies the planned packets, byte for byte, into a new file: each track's planned start instant becomes time
/// 0, the last packet's duration is shortened where the cut ends inside it. Edit lists are written afterwards
/// (ISOEditor), exactly; the muxer's own are not relied on.
enum Remuxer {
    struct Written {
        /// Output stream index for each input track index.
        var streams: [Int: Int]
        /// The pts written for each track's first packet, in the input's ticks (after rebasing).
        var firstPts: [Int: Int64]
        /// The shortened duration given to a track's last packet (input ticks), where the cut ends inside it.
        var lastDuration: [Int: Int64]
    }

    static func copy(_ source: String, plan: FixPlan, to path: String, format: String, iso: Bool) throws -> Written {
        // Raw media time: FFmpeg's mov demuxer otherwise applies edit lists itself and drops or re-times samples.
        let input = try InputFile(path: source, options: iso ? ["ignore_editlist": "1"] : [:])
        let output = try OutputFile(path: path, format: format)
        var streams: [Int: Int] = [:]
        for cut in plan.tracks { streams[cut.index] = try output.addStream(copying: input, stream: cut.index, keepTag: iso) }
        output.copyMetadata(from: input)
        var options = ["avoid_negative_ts": "disabled"]
        if iso {
            options["movie_timescale"] = String(plan.movieTimescale)
            options["use_editlist"] = "1"
        }
        try output.writeHeader(options: options)

        let cuts = Dictionary(uniqueKeysWithValues: plan.tracks.map { ($0.index, $0) })
        var firstPts: [Int: Int64] = [:]
        var lastDuration: [Int: Int64] = [:]
        var shift: [Int: Int64] = [:]
        var remaining = Set(plan.tracks.map(\.index))
        let packet = try Packet()
        while !remaining.isEmpty, try input.read(into: packet) {
            let index = packet.streamIndex
            guard let cut = cuts[index], let out = streams[index], let rawDts = packet.dts ?? packet.pts else { continue }
            // With ignore_editlist, FFmpeg 5.1's mov demuxer still shifts a track by its first edit
            // (time_offset = media_time - empty edit). Its first packet is the index's first sample: measure
            // the shift there and work in the index's media time, which the plan is made in.
            if shift[index] == nil { shift[index] = rawDts - cut.origin }
            let offset = shift[index]!
            let dts = rawDts - offset
            var rawPts = packet.pts.map { $0 - offset }
            if let retimed = cut.retimedFirstPts, dts == cut.keepFrom { rawPts = retimed }
            let duration = max(packet.duration, 0)
            // Decode-time selection; a packet that straddles the first kept time (a PCM chunk) is kept too.
            guard dts >= cut.keepFrom || dts + duration > cut.keepFrom else { continue }
            guard dts <= cut.keepThrough else { remaining.remove(index); continue }
            let p = packet.pointer
            let pts = (rawPts ?? dts) - cut.mediaStart
            p.pointee.pts = pts
            p.pointee.dts = dts - cut.mediaStart
            if firstPts[index] == nil { firstPts[index] = pts }
            if let end = cut.mediaEnd, (rawPts ?? dts) + duration > end {
                let shortened = end - (rawPts ?? dts)
                if !iso, cut.kind == .audio, let rate = cut.sampleRate {
                    // Matroska has no edit list: tell the player to drop the tail (DiscardPadding).
                    try setSkipEnd(packet, samples: (Rational(duration - shortened) * cut.timeBase * Int64(rate)).rounded)
                }
                p.pointee.duration = shortened
                lastDuration[index] = shortened
            }
            p.pointee.stream_index = Int32(out)
            p.pointee.pos = -1
            av_packet_rescale_ts(p, input.stream(index).pointee.time_base, output.timeBase(out))
            try output.write(packet)
            if dts == cut.keepThrough { remaining.remove(index) }
        }
        try output.finish()
        return Written(streams: streams, firstPts: firstPts, lastDuration: lastDuration)
    }

    static func setSkipEnd(_ packet: Packet, samples: Int64) throws {
        guard samples > 0, let data = av_packet_new_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, 10) else { return }
        let value = UInt32(clamping: samples)
        for i in 0..<10 { data[i] = 0 }
        for i in 0..<4 { data[4 + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
}
