import LoopAnalysis
import LoopIndex

/// Writes a plan: video (and audio, unless re-encoded) copied packet for packet, byte for byte; each track's
/// planned start instant at time 0; the cut repeated `plan.repeats` times end to end. Re-encoded audio is
/// decoded from the cut's pre-roll, trimmed to exactly its presented samples, faded at loop points if asked, and
/// encoded once as one stream. Edit lists are written afterwards (ISOEditor), exactly.
enum Remuxer {
    /// What the writer knows of its source beside the plan: the probe's timelines as the packet reader retimes by
    /// (PacketReader.timelines), every track's, whose index gives the frame lengths FFmpeg's demuxer may not
    /// (Apple's B-frames on a 600 clock: 1 tick a packet), and the output's start timecode (the source's moved on by
    /// the frames cut before the start), which FFmpeg's MP4 and MOV muxers write as their own timecode track.
    struct Known {
        var reader: [Int: TrackTimeline] = [:]
        var index: [Int: TrackTimeline] = [:]
        var timecode: String?
        init() {}
        init(_ facts: ClipFacts, _ all: [Int: TrackTimeline]) {
            (reader, index) = (PacketReader.timelines(facts, all), all)
        }
        /// Every track retimed by its timeline (a container whose packets lack times).
        init(all: [Int: TrackTimeline]) { (reader, index) = (all, all) }
    }

    struct Written {
        /// Output stream index for each input track index.
        var streams: [Int: Int]
        /// The pts written for each track's first packet, in the track's input ticks.
        var firstPts: [Int: Int64]
        /// A track's last packet's duration (input ticks) where it is shorter than the packet it came from.
        var lastDuration: [Int: Int64]
    }

    /// `inputISO`: the source is MP4/MOV. `iso`: the output is (edit lists follow).
    /// `timelines`: the probe's, as `PacketReader.timelines` picks them (packets the demuxer gives no decode time
    /// or duration, as Matroska's; an MP4/MOV's only where laid anew as the decoder plays them).
    static func write(
        _ source: String, plan: FixPlan, to path: String, format: Muxer, iso: Bool, inputISO: Bool? = nil,
        known: Known = Known()
    ) throws -> Written {
        let writer = try RemuxWriter(
            source, plan: plan, to: path, format: format, iso: iso, converting: iso && inputISO == false, known: known)
        for pass in 0..<plan.repeats { try writer.copyPass(pass) }
        try writer.finish()
        return Written(streams: writer.streams, firstPts: writer.firstPts, lastDuration: writer.lastDuration)
    }

    /// Samples in one coded frame of a fixed-frame audio track: what its packets last (HE-AAC's 2048 at its
    /// output rate, twice the 1024 of its core), else the codec's own frame.
    static func frameSamples(_ cut: TrackCut, timeline: TrackTimeline?) -> Int64? {
        guard let rate = cut.sampleRate, rate > 0 else { return nil }
        if let t = timeline, let ticks = AudioFrames.frameTicks(codec: cut.codec, sampleRate: rate, timeline: t) {
            let samples = Rational(ticks) * t.timeBase * Int64(rate)
            if samples.denominator == 1 { return samples.numerator }
        }
        return AudioFrames.samplesPerFrame(codec: cut.codec, sampleRate: rate)
    }

    /// The samples of priming a Matroska cut leaves out with the packets before its start (nil: none).
    static func droppedPriming(_ cut: TrackCut, timeline: TrackTimeline?) -> Int64? {
        guard let rate = cut.sampleRate else { return nil }
        // Whole frames, counted: a millisecond clock would say 1014 for one 1024-sample frame.
        if let frame = frameSamples(cut, timeline: timeline), let timeline {
            let packets = timeline.samples.filter { $0.dts < cut.keepFrom }.count
            return packets > 0 ? Int64(packets) * frame : nil
        }
        let samples = (Rational(cut.keepFrom - cut.origin) * cut.timeBase * Int64(rate)).rounded
        return samples > 0 ? samples : nil
    }
}

/// One remux: the output with its streams, encoders and re-encoded video segments, written pass by pass.
private final class RemuxWriter {
    let source: String
    let plan: FixPlan
    let iso: Bool
    let timelines: [Int: TrackTimeline]
    /// The probe's timelines of every track (an MP4's too, which the reader does not retime by): the index's frame
    /// lengths, which FFmpeg's demuxer may not give (Apple's B-frames on a 600 clock: 1 tick a packet).
    let index: [Int: TrackTimeline]
    /// The output's start timecode (see Remuxer.Known).
    let timecode: String?
    /// Each video track's last stored packet (decode time) and its length in the index.
    var lastStored: [Int: (dts: Int64, length: Int64)] = [:]
    /// Each video track's decode times moved this much earlier (ticks), where its index shows frames before they
    /// are decoded (negative composition offsets: FFmpeg's muxer refuses a packet whose pts is under its dts).
    var dtsShift: [Int: Int64] = [:]
    let output: OutputFile
    let cuts: [Int: TrackCut]
    var streams: [Int: Int] = [:]
    var encoders: [Int: AudioEncoder] = [:]
    /// Each encoder's input: an MP4's or MOV's loop is coded as a circle, its edit list hiding the rolls.
    var circles: [Int: AudioCircle] = [:]
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
    /// Opus tracks cut by their pre-skip and end discard (Matroska).
    var opus: [Int: OpusTrim] = [:]
    /// Uncompressed audio: bytes per frame (all channels), per track.
    var pcmFrameBytes: [Int: Int64] = [:]
    /// Per copied video track read from packet headers: its last presented frame's time and the length the plan
    /// gives it (to the cut's end: Matroska's blocks carry a rounded default, 33 ms where the next frame is 34 ms
    /// on), which a muxer that writes the last frame's length (MP4's stts) needs to end the track where the plan does.
    var lastShown: [Int: (pts: Int64, length: Int64)] = [:]

    init(
        _ source: String, plan: FixPlan, to path: String, format: Muxer, iso: Bool, converting: Bool,
        known: Remuxer.Known
    ) throws {
        self.source = source
        (index, timecode) = (known.index, known.timecode)
        self.plan = plan
        self.iso = iso
        timelines = known.reader
        // Subtitles the plan keeps (Matroska's) are copied beside the tracks, cut as they are.
        let copied = plan.tracks + plan.others.filter { $0.kind == .subtitle }
        cuts = Dictionary(copied.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        let input = try InputFile.rawMedia(source)
        output = try OutputFile(path: path, format: format)
        // VP9's MP4 sample entry (vpcC) is written from the pixel format, which only its decoded frames say.
        if iso, copied.contains(where: { $0.kind == .video && $0.codec == "vp9" }) { try input.findStreamInfo() }
        for cut in copied { try addStream(cut, input: input, converting: converting) }
        lastFrames()
        for cut in plan.tracks where cut.head != nil || cut.tail != nil { try renderSegments(cut, input: input) }
        if format == .matroska { try keepAttachments(input) }
        // The chapters, cut as the picture is (an MP4's or MOV's muxer writes its own chapter track and Nero list,
        // Matroska's and WebM's their Chapters).
        if output.isISO || output.isMatroska {
            try output.setChapters(plan.chapters(input.chapters()), timeBase: Rational(1, 1000))
        }
        // An MP3's or FLAC's cover, written back as it was; another container's, as an MP4's covr.
        let pictures =
            OutputFile.keepsPictures.contains(format) || converting ? input.attachmentStreams(pictures: true) : []
        let pictureStreams = try pictures.map { try output.addPicture(from: input, stream: $0) }
        output.copyMetadata(from: input)
        var header = ["avoid_negative_ts": "disabled"]
        if iso {
            header["movie_timescale"] = String(plan.movieTimescale)
            header["use_editlist"] = "1"
        }
        if format == .ogg, let page = Self.oggPageDuration(plan) { header["page_duration"] = page }
        try output.writeHeader(options: header)
        for (index, out) in zip(pictures, pictureStreams) {
            try output.writePicture(from: input, stream: index, to: out)
        }
    }

    /// Matroska keeps the files attached to the input (fonts, scripts) and its pictures: FFmpeg's muxer writes each
    /// attachment stream at the header (WebM's passes over them: the plan names them left out).
    private func keepAttachments(_ input: InputFile) throws {
        for index in input.attachmentStreams() + input.attachmentStreams(pictures: true) {
            try output.addAttachment(from: input, stream: index)
        }
    }

    /// Ogg: an audio track's first page must close before its last. A reader times the first page's packets back
    /// from its granule (Vorbis's warm-up before 0, Opus's pre-skip), but a page that is also the last (EOS) has
    /// its granule trimmed to the end, so FFmpeg times its first packet at 0 and a Vorbis track starts a warm-up
    /// late (128 samples in a 0.12 s clip). Pages of at most half the shortest audio track (the
    /// muxer's default is a second) make at least two.
    static func oggPageDuration(_ plan: FixPlan) -> String? {
        let audio = plan.tracks.filter { $0.kind == .audio }.map(\.duration)
        guard let shortest = audio.min(), shortest < Rational(2) else { return nil }
        return String(max((shortest * Int64(500_000)).floor, 1000))
    }

    /// A copied video stream's tag and rate.
    private func setVideo(_ cut: TrackCut, stream out: Int, converting: Bool) {
        // HEVC converted into an MP4 or MOV (from a transport stream, Matroska) is tagged hvc1, which Apple's
        // players want (the muxer's default is hev1), as `ffmpeg -c copy -tag:v hvc1` does: a second fix would
        // retag it (fix is idempotent).
        if iso, converting, cut.codec == "hevc" { output.setCodecTag("hvc1", stream: out) }
        // The muxer writes the timecode track from this tag: the output's start, not the source's.
        if iso, let timecode { output.setMetadata("timecode", timecode, stream: out) }
        // A frame rate the source claims that its frames do not have (a 1 ms DefaultDuration: 1000 fps) is not
        // carried over: a muxer that writes it (FFmpeg 7.1's and later Matroska) would give every frame 1 ms again.
        if let planned = cut.frameRate, let declared = output.frameRate(out),
            declared > planned * Rational(3, 2) || declared * Rational(3, 2) < planned
        {
            output.setFrameRate(planned, stream: out)
        }
        // Matroska: a block has no length but the track's DefaultDuration (FFmpeg's muxer writes no BlockDuration
        // for video), so the last frame's is written there: every reader (FFmpeg, browsers) ends the picture where
        // the plan does, not at a guess of its own (FFmpeg takes the step before, Chromium the longest step seen).
        // A default that reads as the same ticks is kept (33.333 ms for a 33 ms last frame on milliseconds; not
        // for a 34 ms one).
        if output.isMatroska, let timeline = timelines[cut.index], let length = cut.lastFrameLength(in: timeline),
            length > .zero,
            output.frameRate(out).map({ ($0.reciprocal / cut.timeBase).rounded != (length / cut.timeBase).rounded })
                ?? true
        {
            output.setFrameRate(length.reciprocal, stream: out)
        }
    }

    private func addStream(_ cut: TrackCut, input: InputFile, converting: Bool) throws {
        let reencoded = plan.reencodesAudio && cut.kind == .audio
        // Another container's codec tags mean nothing to the MP4 muxer.
        let out = try output.addStream(copying: input, stream: cut.index, keepTag: iso && !converting && !reencoded)
        streams[cut.index] = out
        if cut.kind == .video { setVideo(cut, stream: out, converting: converting) }
        // HE-AAC in MP4 is clocked at its core rate (TrackCut.coreRate, docs/verification.md).
        var clockRate = cut.sampleRate ?? 0
        if iso, !reencoded, let core = cut.coreRate {
            clockRate = core
            output.setSampleRate(clockRate, stream: out)
            output.setTimeBase(Rational(1, Int64(clockRate)), stream: out)
        }
        // A converted audio track counts in samples (FLV's milliseconds cannot place an AAC frame).
        if converting, cut.kind == .audio, let rate = cut.sampleRate {
            output.setTimeBase(Rational(1, Int64(clockRate)), stream: out)
            // Regular frame times are written for one pass of copied audio only (no re-encoding, no repeats).
            if let samples = Remuxer.frameSamples(cut, timeline: timelines[cut.index]), plan.repeats == 1,
                !plan.reencodesAudio
            {
                regularFrames[cut.index] = samples * Int64(clockRate) / Int64(rate)
            }
        }
        // Matroska cannot hide priming: the cut started after it, on a packet; say so for the next reader.
        if !iso, cut.kind == .audio, cut.codec == "aac", cut.mediaStart > cut.origin,
            let dropped = Remuxer.droppedPriming(cut, timeline: timelines[cut.index])
        {
            output.setMetadata(InputFile.primingTag, String(dropped), stream: out)
        }
        if !iso, cut.kind == .audio, cut.codec == "opus", !plan.reencodesAudio, let timeline = timelines[cut.index] {
            let trim = try OpusTrim(cut: cut, timeline: timeline)
            guard let head = input.extradata(cut.index).flatMap({ Opus.head($0, preSkip: trim.preSkip) }) else {
                throw MediaError("add stream", reason: "the Opus track has no OpusHead to carry its pre-skip")
            }
            try output.setExtradata(head, stream: out)
            output.setInitialPadding(trim.preSkip, stream: out)
            opus[cut.index] = trim
        }
        if reencoded { try addEncoder(cut, input: input, stream: out) }
        if cut.kind == .audio, let bytes = input.pcmFrameBytes(cut.index) { pcmFrameBytes[cut.index] = bytes }
    }

    /// The encoder of an audio track encoded again: at the rate and channels it plays at (HE-AAC's header names its
    /// core's), coded as a circle (a loop's: an MP4's edit list presents the loop alone, Opus's pre-skip in Matroska
    /// hides the pre-roll).
    private func addEncoder(_ cut: TrackCut, input: InputFile, stream out: Int) throws {
        let encoder = try AudioEncoder(
            like: input, stream: cut.index, globalHeader: output.needsGlobalHeader,
            settings: .init(sampleRate: cut.sampleRate, channels: cut.channels, sbr: cut.coreRate != nil))
        try encoder.configure(output, stream: out)
        encoders[cut.index] = encoder
        let circle = AudioCircle(encoder, circular: iso || output.isMatroska, hidden: output.isMatroska)
        try circle.sayPreSkip(output, stream: out)
        circles[cut.index] = circle
    }

    /// Each re-encoded segment adds its own SPS/PPS pair to the track's avcC, with an unused id.
    private func renderSegments(_ cut: TrackCut, input: InputFile) throws {
        // A track encoded again whole (its one keyframe before the start) is the encoder's stream: its
        // configuration record replaces the source's, whatever the codec.
        if cut.reencodesWhole, cut.codec != "h264", let head = cut.head, let out = streams[cut.index] {
            let rendered = try RenderedSegment.render(
                source, cut: cut, segment: head, isHead: true, avcc: nil, timelines: timelines,
                preset: RunQuality.preset(x264Subme: []))
            heads[cut.index] = rendered
            if let extradata = rendered.extradata { try output.setExtradata(extradata, stream: out) }
            return
        }
        guard cut.codec == "h264", let extradata = input.extradata(cut.index), var avcc = AVCConfig(extradata),
            let out = streams[cut.index]
        else {
            throw MediaError("encode", reason: "re-encoding \(cut.codec) video is not supported (H.264 only)")
        }
        // Coded with the source's own tools where x264 made it with ultrafast's (RunQuality.preset); a first frame
        // that cannot be read says nothing (superfast), and the render itself meets the cause.
        let subme = (try? X264Settings.subme(firstFrameOf: source, stream: cut.index)) ?? nil
        let preset = RunQuality.preset(x264Subme: [subme])
        for (segment, isHead) in [(cut.head, true), (cut.tail, false)] {
            guard let segment else { continue }
            let rendered = try RenderedSegment.render(
                source, cut: cut, segment: segment, isHead: isHead, avcc: avcc, timelines: timelines, preset: preset)
            avcc.sps += rendered.sps
            avcc.pps += rendered.pps
            if isHead { heads[cut.index] = rendered } else { tails[cut.index] = rendered }
        }
        try output.setExtradata(avcc.bytes, stream: out)
    }

    /// Each video track's last stored packet's length (the index's) and its last shown frame's (the plan's): the
    /// muxer ends the track's decode timeline with the last packet it is given. And how far its decode times move
    /// earlier so none is after its frame's presentation.
    private func lastFrames() {
        for cut in plan.tracks where cut.kind == .video {
            guard let timeline = index[cut.index] else { continue }
            let lead = timeline.samples.filter { !$0.isDiscarded }.map { $0.pts - $0.dts }.min() ?? 0
            if lead < 0 { dtsShift[cut.index] = lead }
            if let last = timeline.samples.last(where: { $0.dts <= cut.keepThrough && !$0.isDiscarded }),
                last.duration > 0
            {
                lastStored[cut.index] = (last.dts, last.duration)
            }
            guard let length = cut.lastFrameLength(in: timeline) else { continue }
            let end = Rational(cut.mediaStart) + cut.duration / cut.timeBase
            let ticks = (length / cut.timeBase).rounded
            if ticks > 0 { lastShown[cut.index] = ((end - length / cut.timeBase).rounded, ticks) }
        }
    }

    /// The cut once more, `pass` cuts after the start: copied packets rebased, audio decoded into its encoder.
    func copyPass(_ pass: Int) throws {
        // (A fragmented MP4's packets come without their lengths: the index gives them, the muxer ends tracks so.)
        let reader = try PacketReader(path: source, windows: windows(), timelines: timelines, lengths: index)
        var decoders: [Int: Decoder] = [:]
        for index in encoders.keys {
            decoders[index] = try Decoder(reader.input, stream: index, timeBase: reader.timeBase(index))
            taken[index] = 0
            nextSample[index] = nil
        }
        for (index, head) in heads.sorted(by: { $0.key < $1.key }) { try writeSegment(head, track: index, pass: pass) }
        let frame = try Frame()
        while let read = try reader.next() {
            guard let cut = cuts[read.stream] else { continue }
            if let decoder = decoders[read.stream] {
                // The plan's counts end the track (take slices them), not FFmpeg's end trim.
                if PacketReader.decodesPastTheEnd(reader.input, stream: read.stream) { read.packet.clearSkipEnd() }
                try decoder.decode(read.packet, into: frame) { try take($0, cut: cut, reader: reader, pass: pass) }
            } else {
                try copy(read, cut: cut, pass: pass)
                if opus[read.stream]?.isComplete == true { reader.finish(read.stream) }
            }
        }
        for (index, trim) in opus where !trim.isComplete {
            throw MediaError(
                "write packet",
                reason: "track \(index)'s Opus packets decode to \(trim.decoded - trim.preSkip) samples after the "
                    + "pre-skip, fewer than the \(trim.count) planned")
        }
        for (index, tail) in tails.sorted(by: { $0.key < $1.key }) { try writeSegment(tail, track: index, pass: pass) }
        for (index, decoder) in decoders {
            guard let cut = cuts[index] else { continue }
            try decoder.decode(nil, into: frame) { try take($0, cut: cut, reader: reader, pass: pass) }
            let count = plan.passSamples(cut, pass: pass)
            // --keep video: audio that ends before the video is followed by silence to its end.
            if plan.padsAudio, let encoder = encoders[index], let have = taken[index], have < count {
                let silence = [[Float]](
                    repeating: [Float](repeating: 0, count: Int(count - have)), count: encoder.channelCount)
                try circles[index]?.encode(silence) { try writeEncoded($0, track: index) }
                taken[index] = count
            }
            guard taken[index] == count else {
                throw MediaError(
                    "decode", reason: "track \(index) gave \(taken[index] ?? 0) of its \(count) presented samples")
            }
        }
    }

    /// Each cut's packets to read in a pass.
    private func windows() -> [PacketWindow] {
        cuts.values.sorted(by: { $0.index < $1.index }).map { cut in
            var window = PacketWindow(cut)
            // An Opus cut ends where its samples are complete (counted exactly; the plan's milliseconds are not).
            if opus[cut.index] != nil { window.through = .max }
            // A repeat may take one sample past the cut (the loop's fraction of a sample, spread): the packet after
            // it is read too, and the slice takes what it needs.
            if encoders[cut.index] != nil, plan.repeats > 1 { window.through = .max }
            return window
        }
    }

    /// Drains the audio encoders and closes the file.
    func finish() throws {
        for (index, circle) in circles.sorted(by: { $0.key < $1.key }) {
            try circle.finish { try writeEncoded($0, track: index) }
        }
        try output.finish(presenting: plan.duration * Int64(plan.repeats))
    }

    private func copy(_ read: TimedPacket, cut: TrackCut, pass: Int) throws {
        let packet = read.packet
        let sourcePts = Self.shownFrom(read, cut: cut)
        // Later copies carry only what is presented (the planner checked nothing else is needed).
        if pass > 0 && sourcePts < cut.mediaStart { return }
        guard let out = streams[cut.index] else { return }
        let passOffset = (cut.duration / cut.timeBase).rounded * Int64(pass)
        let base = opus[cut.index]?.base ?? cut.mediaStart
        packet.pts = sourcePts - base + passOffset
        packet.dts = (cut.kind == .subtitle ? sourcePts : read.dts) - base + passOffset + (dtsShift[cut.index] ?? 0)
        if firstPts[cut.index] == nil { firstPts[cut.index] = packet.pts }
        if var trim = opus[cut.index] {
            guard let n = packet.withBytes(Opus.samples) else {
                throw MediaError("write packet", reason: "an Opus packet at \(read.dts) has no valid table of contents")
            }
            trim.decoded += n
            opus[cut.index] = trim
            if trim.isComplete { packet.setSkipEnd(samples: trim.decoded - trim.preSkip - trim.count) }
        } else if let end = cut.mediaEnd, sourcePts + packet.duration > end, regularFrames[cut.index] == nil {
            // (Audio laid a frame apart keeps its whole last frame: its clock may be a frame a tick, as MP3 in AVI
            // is, too coarse to say where inside it the cut falls; the edit list ends it to the sample.)
            let shortened = end - sourcePts
            if let frameBytes = pcmFrameBytes[cut.index], let rate = cut.sampleRate {
                // Uncompressed audio is cut in the bytes, to the frame: nothing after the cut is stored, and
                // the muxer's per-frame durations are exact as they are.
                let frames = (Rational(shortened) * cut.timeBase * Int64(rate)).rounded
                if frames >= 0 { packet.shrink(to: Int(frames * frameBytes)) }
                packet.duration = shortened
            } else {
                if !iso, cut.kind == .audio, let rate = cut.sampleRate {
                    // Matroska has no edit list: tell the player to drop the tail (DiscardPadding).
                    packet.setSkipEnd(
                        samples: (Rational(packet.duration - shortened) * cut.timeBase * Int64(rate)).rounded)
                }
                packet.duration = shortened
                lastDuration[cut.index] = shortened
            }
        }
        // The muxer ends the track's decode timeline with its last packet's length: the index's, and the planned
        // one where that packet is also the last shown.
        if let last = lastStored[cut.index], read.dts == last.dts { packet.duration = last.length }
        if let last = lastShown[cut.index], sourcePts == last.pts { packet.duration = last.length }
        guard let frame = regularFrames[cut.index] else {
            try output.write(packet, stream: out, timeBase: cut.timeBase)
            return
        }
        try writeRegular(packet, cut: cut, stream: out, frame: frame)
    }

    /// A converted fixed-frame audio track (AAC from FLV's milliseconds) is laid back to back, a frame each, from
    /// its first packet: what the decoder plays (the irregular-audio-durations rule). On the output's clock
    /// (samples).
    private func writeRegular(_ packet: Packet, cut: TrackCut, stream out: Int, frame: Int64) throws {
        let clock = output.timeBase(out)
        packet.rescale(from: cut.timeBase, to: clock)
        let k = copiedCount[cut.index, default: 0]
        let start = regularStart[cut.index] ?? packet.dts ?? 0
        regularStart[cut.index] = start
        packet.dts = start + Int64(k) * frame
        packet.pts = packet.dts
        packet.duration = min(packet.duration, frame)
        copiedCount[cut.index] = k + 1
        try output.write(packet, stream: out, timeBase: clock)
    }

    /// Where a packet is shown from: its own time, or a subtitle cue shown when the cut starts from the cut's start
    /// (its duration shortened by as much).
    private static func shownFrom(_ read: TimedPacket, cut: TrackCut) -> Int64 {
        guard cut.kind == .subtitle, read.pts < cut.mediaStart else { return read.pts }
        read.packet.duration -= cut.mediaStart - read.pts
        return cut.mediaStart
    }

    /// Re-encoded frames (before or after the copied ones), rebased like the copied packets.
    private func writeSegment(_ segment: RenderedSegment, track index: Int, pass: Int) throws {
        guard let cut = cuts[index], let out = streams[index] else { return }
        let passOffset = (cut.duration / cut.timeBase).rounded * Int64(pass)
        for sample in segment.samples {
            let packet = try sample.packet()
            packet.pts = sample.pts - cut.mediaStart + passOffset
            packet.dts = sample.dts - cut.mediaStart + passOffset + (dtsShift[index] ?? 0)
            if firstPts[index] == nil { firstPts[index] = packet.pts }
            try output.write(packet, stream: out, timeBase: cut.timeBase)
        }
    }

    /// The presented samples of a decoded frame, faded at the loop points, into the track's encoder.
    private func take(_ frame: Frame, cut: TrackCut, reader: PacketReader, pass: Int) throws {
        let index = cut.index
        guard let rate = cut.sampleRate, let circle = circles[index], let pts = frame.pts else { return }
        let count = plan.passSamples(cut, pass: pass)
        let already = taken[index] ?? 0
        var chunk = PresentedAudio.slice(
            frame, at: reader.mediaTime(ofDecoded: pts, stream: index), cut: cut, taken: already, count: count,
            next: &nextSample[index])
        if let fadeLength = plan.seamFade.map({ ($0 * Int64(rate)).rounded }), fadeLength > 0 {
            for i in 0..<(chunk.first?.count ?? 0) {
                let gain = SeamFade.gain(already + Int64(i), count, fadeLength)
                for c in chunk.indices { chunk[c][i] *= gain }
            }
        }
        taken[index] = already + Int64(chunk.first?.count ?? 0)
        try circle.encode(chunk) { try writeEncoded($0, track: index) }
    }

    private func writeEncoded(_ packet: Packet, track index: Int) throws {
        guard let cut = cuts[index], let encoder = encoders[index], let out = streams[index] else { return }
        let clock = encoder.timeBase
        let inTicks = { (v: Int64) in (Rational(v) * clock / cut.timeBase).rounded }
        // (A circle's presented start is its pre-roll later than the first sample coded.)
        if firstPts[index] == nil, let pts = packet.pts {
            firstPts[index] = inTicks(pts - (circles[index]?.preRoll ?? 0))
        }
        lastDuration[index] = inTicks(packet.duration)
        try output.write(encoded: packet, stream: out, by: encoder)
    }
}
