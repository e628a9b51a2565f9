import CFFmpeg
import LoopAnalysis
import LoopIndex

/// Which packets of one track a pipeline reads: decode times [from, through] on the track's timeline (the
/// index's media ticks for MP4/MOV, the probe's timeline for the rest), for a cut or a stretch of one.
struct PacketWindow {
    var stream: Int
    /// Decode time of the track's first sample on its timeline: where the demuxer's own clock is measured.
    var origin: Int64
    /// What FFmpeg's mov demuxer moved the decode times (not the presentation times) earlier by: the track's
    /// largest negative composition offset.
    var compositionLead: Int64 = 0
    var from: Int64
    var through: Int64
    /// A packet that starts before `from` but ends after it is read too (a PCM chunk holding the first sample).
    var keepsStraddling = false
    /// The cut's re-timed first frame: the packet decoded at `dts` is presented at `pts` (a start inside it).
    var retimedFirst: (dts: Int64, pts: Int64)?

    /// A whole cut: its kept decode times, the straddling packet included.
    init(_ cut: TrackCut) {
        self.init(cut, from: cut.keepFrom, through: cut.keepThrough)
        // Audio only: a video packet decoded before the window is never part of it, whatever duration the
        // demuxer gives it (FFmpeg's mov demuxer gives FLV-made video its average, 533 for 528 or 544).
        keepsStraddling = cut.kind == .audio
    }

    /// Part of a cut: decode times [from, through].
    init(_ cut: TrackCut, from: Int64, through: Int64) {
        stream = cut.index
        origin = cut.origin
        compositionLead = cut.compositionLead
        self.from = from
        self.through = through
        retimedFirst = cut.retimedFirstPts.map { (cut.keepFrom, $0) }
    }
}

/// One packet on its track's timeline: `dts` and `pts` in the track's ticks (`PacketReader.timeBase`).
struct TimedPacket {
    let packet: Packet
    let stream: Int
    let dts: Int64
    let pts: Int64
    var duration: Int64 { max(packet.duration, 0) }
}

/// The one packet path of every pipeline (fix's remuxer, stitch's copies and audio, the frame sources of
/// re-encoded runs). It owns the opening (MP4/MOV in raw media time: `ignore_editlist`, so FFmpeg neither
/// applies edit lists nor drops samples), the container retiming (packets take the probe's timeline where the
/// demuxer gives no decode time, no presentation time, no duration, or a coarser clock), and the index clock
/// (the demuxer's constant offset from the index's times, measured at each track's first packet). Each packet
/// comes with its exact times on the track's timeline, and only inside its window; reading stops once every
/// window is passed.
final class PacketReader {
    /// Whether FFmpeg's end trim must be taken off a stream's packets before decoding: where loopprep's timeline
    /// ends the track itself, the decoder must put out the last packet whole. Vorbis in Ogg (see VorbisInOgg), and
    /// an MP4 or MOV, whose last packet FFmpeg 9.0's demuxer trims at the edit's end (5.1 trims none): fix's repeat
    /// takes the loop's fraction of a sample past it, and the seam check finds the last samples by their index.
    static func decodesPastTheEnd(_ input: InputFile, stream: Int) -> Bool {
        input.readsISO
            || input.formatName == "ogg"
                && input.stream(stream).pointee.codecpar.pointee.codec_id == AV_CODEC_ID_VORBIS
    }

    let input: InputFile
    private var windows: [Int: PacketWindow]
    private var clock = IndexClock()
    private let leads: [Int: Int64]
    private var retimer: PacketRetimer
    private let packet: Packet

    /// `timelines`: the probe's, for containers without an index loopprep reads itself (empty for MP4/MOV,
    /// whose packets carry every time). `lengths`: an MP4's or MOV's index, for the length of a packet the demuxer
    /// gives none (a muxer ends each track with its last packet's length).
    init(
        path: String, windows: [PacketWindow], timelines: [Int: TrackTimeline] = [:],
        lengths: [Int: TrackTimeline] = [:]
    ) throws {
        input = try InputFile.rawMedia(path)
        let byStream = Dictionary(windows.map { ($0.stream, $0) }, uniquingKeysWith: { a, _ in a })
        self.windows = byStream
        leads = byStream.mapValues(\.compositionLead).filter { $0.value != 0 }
        retimer = PacketRetimer(
            timelines: timelines.filter { byStream[$0.key] != nil }, lengths: lengths.filter { byStream[$0.key] != nil }
        )
        packet = try Packet()
    }

    /// The clock the packets' (and their decoded frames') times are on: the timeline's where the packets were
    /// retimed onto a finer one (Opus in Matroska), else the stream's.
    func timeBase(_ stream: Int) -> Rational { retimer.timelines[stream]?.timeBase ?? input.timeBase(stream) }

    /// A decoded frame's time on the track's timeline.
    func mediaTime(ofDecoded pts: Int64, stream: Int) -> Int64 { pts - ptsShift(stream) }

    /// What to subtract from a stream's presentation times: the decode-time shift, less what the demuxer moved
    /// the decode times alone by.
    private func ptsShift(_ stream: Int) -> Int64 { clock.shift(stream) + (leads[stream] ?? 0) }

    /// No more packets of `stream` are wanted (a cut that ends on its content: Opus samples counted).
    func finish(_ stream: Int) { windows[stream] = nil }

    /// The next packet inside its window, or nil when every window is done or the file ends.
    func next() throws -> TimedPacket? {
        while !windows.isEmpty, try input.read(into: packet) {
            let stream = packet.streamIndex
            guard let window = windows[stream] else { continue }
            retimer.retime(packet, in: input)
            guard let dts = clock.dts(packet, origin: window.origin) else { continue }
            guard dts >= window.from || window.keepsStraddling && dts + max(packet.duration, 0) > window.from else {
                continue
            }
            guard dts <= window.through else {
                windows[stream] = nil
                continue
            }
            var pts = packet.pts.map { $0 - ptsShift(stream) } ?? dts
            if let first = window.retimedFirst, dts == first.dts { pts = first.pts }
            if dts == window.through { windows[stream] = nil }
            return TimedPacket(packet: packet, stream: stream, dts: dts, pts: pts)
        }
        return nil
    }
}

extension PacketReader {
    /// The probe's timelines a reader of this file retimes packets by: every track's where the container's packets
    /// lack times (no index loopprep reads itself), else (MP4/MOV) only those laid anew as the decoder plays them.
    static func timelines(_ facts: ClipFacts, _ timelines: [Int: TrackTimeline]) -> [Int: TrackTimeline] {
        facts.moovBeforeMdat == nil ? timelines : timelines.filter(\.value.laidAnew)
    }
}

extension InputFile {
    /// A file opened as every pipeline reads it: MP4/MOV in raw media time (the mov demuxer's `ignore_editlist`;
    /// any other demuxer leaves it unused), so its streams and packets are the index's.
    static func rawMedia(_ path: String) throws -> InputFile {
        try InputFile(path: path, options: ["ignore_editlist": "1"])
    }
}

/// Packet times on the clock of the index loopprep reads itself (ISOBMFF), where every plan is made.
///
/// Opened with `ignore_editlist`, FFmpeg 5.1's mov demuxer still shifts each track by its first edit
/// (time_offset = media_time - empty edit). A track's first packet is the index's first sample, whose decode
/// time is `origin`: the shift is measured there, once per stream. Other containers have no shift (it measures
/// as zero).
private struct IndexClock {
    private var shifts: [Int: Int64] = [:]

    /// The packet's decode time on the index's clock; nil for a packet with no timestamp.
    mutating func dts(_ packet: Packet, origin: Int64) -> Int64? {
        guard let raw = packet.dts ?? packet.pts else { return nil }
        let shift = shifts[packet.streamIndex] ?? raw - origin
        shifts[packet.streamIndex] = shift
        return raw - shift
    }

    /// What to subtract from a stream's raw times (packet pts, decoded frame pts).
    func shift(_ stream: Int) -> Int64 { shifts[stream] ?? 0 }
}

/// Packets on their timeline's clock. FFmpeg gives Matroska video no DTS and SimpleBlocks no duration, MPEG-PS
/// packets often no PTS, an Opus timeline in Matroska is on the sample clock, finer than the stream's
/// milliseconds, and fixed-frame audio stored with rounded durations (AAC remuxed from a millisecond clock) is
/// laid back to back as the decoder plays it: the probe's timeline has every packet, in the same order, so the
/// n-th packet of a stream takes the n-th sample's times.
private struct PacketRetimer {
    let timelines: [Int: TrackTimeline]
    /// Tracks whose packets keep their own times but take a length the demuxer leaves out from their timeline (an
    /// MP4's or MOV's index: a fragmented file read in raw media time gives its packets none).
    let lengths: [Int: TrackTimeline]
    private var read: [Int: Int] = [:]

    init(timelines: [Int: TrackTimeline], lengths: [Int: TrackTimeline]) {
        self.timelines = timelines
        self.lengths = lengths.filter { timelines[$0.key] == nil }
    }

    mutating func retime(_ packet: Packet, in input: InputFile) {
        let index = packet.streamIndex
        let n = read[index, default: 0]
        read[index] = n + 1
        if let stored = lengths[index], packet.duration <= 0, n < stored.samples.count,
            stored.timeBase == input.timeBase(index)
        {
            packet.duration = stored.samples[n].duration
        }
        guard let timeline = timelines[index], n < timeline.samples.count else { return }
        let known = timeline.samples[n]
        if timeline.timeBase != input.timeBase(index) || timeline.laidAnew {
            packet.pts = known.pts
            packet.dts = known.dts
            packet.duration = known.duration
            return
        }
        // Relative to the time the packet has, so a timeline rebased to the file's 0 (MPEG-PS) still fits; a decode
        // time the probe made anew (none, or one repeated) replaces the packet's.
        if let pts = packet.pts { packet.dts = pts - (known.pts - known.dts) }
        // MPEG-PS writes a PTS only every few packets; the probe filled the others in.
        if packet.pts == nil, let dts = packet.dts { packet.pts = dts + (known.pts - known.dts) }
        // (And a length no frame has, under half the one the probe took: ImplausibleDurations, which a muxer
        // that writes block durations, FFmpeg 9.0's Matroska, would carry into the output.)
        if packet.duration <= 0 || 2 * packet.duration < known.duration { packet.duration = known.duration }
    }
}
