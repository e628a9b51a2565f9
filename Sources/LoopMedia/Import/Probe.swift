import CFFmpeg
import Foundation
import LoopAnalysis

/// File -> facts. Timing comes from the container index (MP4/MOV sample tables and edit lists, read directly)
/// or, for other containers, from packet headers; nothing here decodes.
public enum Probe {
    public static func facts(path: String) throws -> ClipFacts {
        try probe(path).facts
    }

    /// What a probe learns: the facts, the raw timelines they were computed from (plans need them), and an
    /// input positioned at the start for the seam check. The input is the probe's own when the index sufficed
    /// (no packet was read); after a packet scan the file is reopened, because rewinding a demuxer that has hit
    /// EOF is not reliable for every format (Matroska loses its first packets).
    public struct Result {
        public var facts: ClipFacts
        public var timelines: [Int: TrackTimeline]
        /// nil when the caller asked for none (fix: FFmpeg's own index of a long file is not kept while writing).
        public var input: InputFile?
        /// Top-level ISO-BMFF layout, when the file is one.
        var iso: ISOFile?
    }

    /// `locations`: keep every MP4/MOV sample's place in the file (fix writes from them).
    public static func probe(_ path: String, keepInput: Bool = true, locations: Bool = false) throws -> Result {
        let size = try fileSize(path)
        // Our index reader goes first: FFmpeg's mov demuxer allocates what a table claims before it finds the
        // bytes are not there (a 2 KB box claiming 2^27 entries cost it 1 GB); ours refuses such a file.
        let index = try ISOFile.read(path: path, fileSize: size, locations: locations)
        let input = try InputFile(path: path)
        let format = input.formatName
        // FFmpeg also opens text (tty), pictures (image2, *_pipe) and filter graphs: none of them is a clip.
        if format == "tty" || format == "image2" || format == "lavfi" || format.hasSuffix("_pipe") {
            throw MediaError("open", reason: "not a video or audio file (FFmpeg reads it as \(format))")
        }
        let iso = format.hasPrefix("mov,") ? index : nil
        if let iso, iso.dataEnd > size {
            throw MediaError(
                "read index", reason: "truncated: the index points at \(iso.dataEnd) bytes but the file has \(size)")
        }
        var basics = (0..<input.streamCount).map { input.basics($0) }
        if iso != nil, basics.contains(where: { $0.codec == "mp3" }) { basics = try mpegAudioLayers(path, basics) }
        guard basics.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("open", reason: "no audio or video track")
        }
        for b in basics where b.kind == .video || b.kind == .audio {
            guard hasDecoder(input, b.index) else {
                throw MediaError("open decoder", reason: "no decoder for codec \(b.codec) (track \(b.index))")
            }
        }

        let imported = try Importers.timelines(ImportSource(input: input, index: iso, basics: basics))
        var timelines = imported.timelines
        let tracks = basics.compactMap { b in timelines[b.index].flatMap { TrackFacts(basics: b, timeline: $0) } }
        guard tracks.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("read packets", reason: "no audio or video packets")
        }
        let empty = basics.filter { b in
            (b.kind == .video || b.kind == .audio) && !tracks.contains { $0.index == b.index }
        }
        .map { EmptyTrack(index: $0.index, kind: $0.kind, codec: $0.codec) }
        var facts = ClipFacts(
            path: path, container: containerName(format: format, iso: iso, path: path), formatName: format,
            fileSize: size, moovBeforeMdat: iso?.moovBeforeMdat, movieTimescale: iso?.movieTimescale,
            fragmented: iso?.fragmented, tracks: tracks, emptyTracks: empty)
        facts.movieDuration = iso.map { Rational($0.movieDuration, $0.movieTimescale) }
        // Matroska and WebM: the Segment's Duration, what browsers give the file, as the demuxer read it (in
        // milliseconds, the usual TimestampScale, whose tick is the rule's tolerance).
        if facts.isMatroska, let declared = input.declaredDuration {
            facts.movieDuration = declared
            facts.movieTimescale = 1000
        }
        if basics.contains(where: { $0.kind == .attachment && $0.codec != "ttf" && $0.codec != "otf" }) {
            facts.coverArt = true
        }
        facts.clockOrigin = imported.clockOrigin
        // Plans work on the audio as the decoder plays it: frames of the codec's length, back to back.
        for track in tracks {
            if let frame = track.irregularDurations?.frameTicks, let t = timelines[track.index] {
                timelines[track.index] = AudioFrames.regular(t, frame: frame)
            }
        }
        let kept = keepInput ? (imported.readPackets ? try InputFile(path: path) : input) : nil
        return Result(facts: facts, timelines: timelines, input: kept, iso: iso)
    }

    /// An MP4 names MPEG-1/2 audio of every layer with one object type, which FFmpeg reads as mp3: the first
    /// frame's header says the layer. Layer II (a camcorder's, a DVD's) has no encoder delay to hide.
    static func mpegAudioLayers(_ path: String, _ basics: [TrackBasics]) throws -> [TrackBasics] {
        let input = try InputFile(path: path)
        let packet = try Packet()
        var basics = basics
        var pending = Set(basics.filter { $0.codec == "mp3" }.map(\.index))
        while !pending.isEmpty, try input.read(into: packet) {
            guard pending.remove(packet.streamIndex) != nil else { continue }
            let layer = packet.withBytes { b in b.count >= 2 && b[0] == 0xFF ? Int(b[1] >> 1) & 3 : 1 }
            if layer == 2 || layer == 3, let i = basics.firstIndex(where: { $0.index == packet.streamIndex }) {
                basics[i].codec = layer == 2 ? "mp2" : "mp1"
            }
        }
        return basics
    }

    static func fileSize(_ path: String) throws -> Int64 {
        if RemoteFile.isRemote(path) {
            do { return try RemoteFile(path).size } catch {
                throw MediaError("open", reason: "cannot fetch it: \(MediaError.describe(error))")
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaError("open", reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw MediaError("open", reason: "is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaError("open", reason: "permission denied")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw MediaError("open", reason: "empty file (0 bytes)") }
        return size
    }

    static func hasDecoder(_ input: InputFile, _ index: Int) -> Bool {
        avcodec_find_decoder(input.stream(index).pointee.codecpar.pointee.codec_id) != nil
    }

    /// "mov" for QuickTime files, "mp4" for the rest of ISO-BMFF, "webm" or "matroska", else FFmpeg's first name.
    static func containerName(format: String, iso: ISOFile?, path: String) -> String {
        if format.hasPrefix("mov,") { return iso?.majorBrand == "qt  " ? "mov" : "mp4" }
        if format.hasPrefix("matroska") { return isWebM(path) ? "webm" : "matroska" }
        return String(format.split(separator: ",").first ?? Substring(format))
    }

    /// The EBML header names the DocType near the start of the file.
    static func isWebM(_ path: String) -> Bool {
        guard let head = try? ISOFile.source(path).read(at: 0, count: 64) else { return false }
        return Data(head).range(of: Data("webm".utf8)) != nil
    }
}
