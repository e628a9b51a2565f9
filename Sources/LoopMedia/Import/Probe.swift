import CFFmpeg
import Foundation
import LoopAnalysis
import LoopIndex

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
        var input: InputFile?
        /// Top-level ISO-BMFF layout, when the file is one.
        var iso: ISOFile?

        /// Whether loopprep's own index reader answered alone (an MP4 that says everything: FFmpeg not opened).
        public var readByIndexAlone: Bool { input == nil }
    }

    /// `locations`: keep every MP4/MOV sample's place in the file (fix writes from them).
    public static func probe(_ path: String, keepInput: Bool = true, locations: Bool = false) throws -> Result {
        let size = try fileSize(path)
        if size < 1024, isLFSPointer(path) { throw MediaError("open", reason: IndexReading.lfsPointer) }
        // Our index reader goes first: FFmpeg's mov demuxer allocates what a table claims before it finds the
        // bytes are not there (a 2 KB box claiming 2^27 entries cost it 1 GB); ours refuses such a file.
        let index = try ISOFile.read(path: path, fileSize: size, locations: locations)
        // An MP4 whose index says everything needs no FFmpeg (it is not even loaded): its streams are read from
        // the sample entries as the mov demuxer would read them, its timelines from the index.
        if !keepInput, let index, let basics = index.streamBasics(),
            let result = try indexOnly(path, size: size, iso: index, basics: basics)
        {
            return result
        }
        let input = try open(path, index: index)
        let format = input.formatName
        try refuseNotMedia(format)
        let iso = format.hasPrefix("mov,") ? index : nil
        if let iso { try IndexReading.refuseTruncated(iso, size: size) }
        let layout = format.hasPrefix("matroska") ? try matroskaLayout(path, size: size) : nil
        if let iso { try IndexReading.refuseEncrypted(iso) }
        // AVI stores decode order only: whether its video reorders is FFmpeg's analysis of the stream to say (the
        // SPS's reorder depth, MPEG-4's low-delay flag, the first frames), read once before the facts.
        if format == "avi" { try? input.findStreamInfo() }
        var basics = (0..<input.streamCount).map { input.basics($0) }
        if iso != nil, basics.contains(where: { $0.codec == "mp3" }) || basics.contains(where: mayBeImplicitSBR) {
            basics = try firstPackets(path, basics)
        }
        guard basics.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("open", reason: "no audio or video track")
        }
        for b in basics where b.kind == .video || b.kind == .audio {
            guard hasDecoder(input, b.index) else {
                throw MediaError("open decoder", reason: "no decoder for codec \(b.codec) (track \(b.index))")
            }
        }

        let imported = try Importers.timelines(ImportSource(input: input, index: iso, basics: basics))
        // The importer found a file FFmpeg reads truly only after the streams' information (Matroska blocks before
        // 0): read all of it again that way, the streams' profiles and delays with the times, so this reading and
        // every later one agree.
        if !input.streamInfoRead, StreamInfoFirst.required(path) {
            return try probe(path, keepInput: keepInput, locations: locations)
        }
        let kept = keepInput ? (imported.readPackets ? try InputFile(path: path) : input) : nil
        var probed = try result(
            streams(path, size: size, format: format, iso: iso, basics: basics, declared: input.declaredDuration),
            imported: imported, input: kept)
        if iso == nil { carried(&probed.facts, input: input, layout: layout) }
        return probed
    }

    /// FFmpeg also opens text (tty), pictures (image2, *_pipe) and filter graphs: none of them is a clip.
    private static func refuseNotMedia(_ format: String) throws {
        guard format == "tty" || format == "image2" || format == "lavfi" || format.hasSuffix("_pipe") else { return }
        throw MediaError("open", reason: "not a video or audio file (FFmpeg reads it as \(format))")
    }

    /// What a file carries beside its tracks: a Matroska file's Cues, attached files and pictures, chapters; another's
    /// cover pictures (an MP3's APIC, a FLAC's PICTURE; an MP4's covr is in the user data its writers copy).
    private static func carried(_ facts: inout ClipFacts, input: InputFile, layout: MatroskaLayout.Scan?) {
        let tags = input.tagNames
        if !tags.isEmpty { facts.tags = tags }
        // Data streams that are no track (an MPEG-TS's or a Matroska file's data tracks with timing are tracks).
        let tracked = Set(facts.tracks.map(\.index))
        let others = input.dataStreams().filter { !tracked.contains($0.index) }.map(\.name)
        if !others.isEmpty { facts.otherStreams = others }
        guard let layout else {
            let pictures = input.attachmentStreams(pictures: true).map(input.attachmentName)
            if !pictures.isEmpty { facts.attachedPictures = pictures }
            return
        }
        facts.cues = layout.cues
        facts.attachedFiles = input.attachmentStreams().map(input.attachmentName)
        facts.attachedPictures = input.attachmentStreams(pictures: true).map(input.attachmentName)
        facts.chapterCount = input.chapterCount
    }

    /// A Matroska file's layout (its Cues), refused where it breaks off inside an element: FFmpeg reads such a cut
    /// as a healthy shorter clip.
    private static func matroskaLayout(_ path: String, size: Int64) throws -> MatroskaLayout.Scan {
        let layout = try MatroskaLayout.scan(try ISOFile.source(path))
        guard let at = layout.brokenOff else { return layout }
        throw MediaError(
            "read",
            reason: """
                truncated: the Matroska element at byte \(at) runs past the file's end (\(size) bytes): a recording \
                or download stopped before it was written whole; copy or download it again
                """)
    }

    /// FFmpeg's demuxer on the file; an MP4/MOV it refuses is said as what it is (a damaged box, no moov at all).
    private static func open(_ path: String, index: ISOFile?) throws -> InputFile {
        do { return try InputFile(path: path) } catch {
            // An MP4/MOV whose movie box loopprep read but FFmpeg's demuxer refuses (a damaged sample description
            // or another box inside moov): said as that, not as a file of no known format.
            if index != nil, startsAsISO(path) {
                throw MediaError(
                    "open",
                    reason: """
                        an MP4/MOV whose movie box (moov) FFmpeg cannot read: a box in it is damaged (a sample \
                        description, a table); export or download it again (FFmpeg: \(Self.raw(error)))
                        """)
            }
            // An Ogg whose header pages fail their checksum: FFmpeg skips them and finds no stream to open.
            if index == nil, case let pages = OggImport.damagedPages(path), pages > 0 {
                throw MediaError("open", reason: OggImport.damaged(pages))
            }
            // An MP4/MOV whose moov was never written (a recording stopped early, a partial download): FFmpeg
            // finds no container; the file's own first box says which it was.
            guard index == nil, startsAsISO(path) else { throw error }
            throw MediaError(
                "open",
                reason: """
                    an MP4/MOV with no index (no moov box): it was cut off before its end was written (a recording \
                    stopped early, or a partial download); copy or export it again
                    """)
        }
    }

    /// Facts from the streams and their timelines, whichever reader made them (IndexReading's one way).
    private static func result(_ streams: StreamsRead, imported: Imported, input: InputFile?) throws -> Result {
        var (facts, timelines) = try IndexReading.facts(
            streams, timelines: imported.timelines, clockOrigin: imported.clockOrigin)
        let (iso, path) = (streams.iso, streams.path)
        for k in facts.tracks.indices where facts.tracks[k].codecTag == "tmcd" {
            facts.tracks[k].timecode = facts.tracks[k].trackID.flatMap { iso?.timecode(trackID: $0, path: path) }
        }
        return Result(facts: facts, timelines: timelines, input: input, iso: iso)
    }

    /// What the reading found before the timelines, the container named from the demuxer's name and the index.
    private static func streams(
        _ path: String, size: Int64, format: String, iso: ISOFile?, basics: [TrackBasics], declared: Rational? = nil
    ) -> StreamsRead {
        StreamsRead(
            path: path, size: size, format: format, container: containerName(format: format, iso: iso, path: path),
            iso: iso, basics: basics, declaredDuration: declared)
    }

    /// The facts of an MP4 from its index alone, or nil when a stream needs FFmpeg after all (one the index does
    /// not time): IndexReading's, the reading an app's ClipLoopRange.measure makes.
    static func indexOnly(_ path: String, size: Int64, iso: ISOFile, basics: [TrackBasics]) throws -> Result? {
        guard let timelines = IndexReading.indexed(iso, basics: basics) else { return nil }
        return try result(
            streams(path, size: size, format: ISOFile.demuxerName, iso: iso, basics: basics),
            imported: Imported(timelines: timelines, clockOrigin: nil, readPackets: false), input: nil)
    }

    /// FFmpeg's own words for an error (its operation and text), for after loopprep's.
    static func raw(_ error: Error) -> String {
        (error as? MediaError).map { "\($0.operation): \($0.reason)" } ?? "\(error)"
    }

    /// AAC-LC at 24 kHz or less may carry SBR with nothing in its configuration saying so (HE-AAC's implicit
    /// signalling): only the decoder finds it, in the first frames, and then plays twice the stated rate.
    static func mayBeImplicitSBR(_ b: TrackBasics) -> Bool {
        guard b.kind == .audio, b.codec == "aac", (b.sampleRate ?? 0) > 0 else { return false }
        // A mono core with SBR plays in stereo (parametric stereo, which FFmpeg's decoder assumes where SBR is):
        // HE-AAC's header names its core's one channel.
        if (b.profile ?? "").hasPrefix("HE-AAC") || b.channels == 1 { return true }
        return (b.profile == nil || b.profile == "LC") && (b.sampleRate ?? 0) <= 24000
    }

    /// What only a track's first packets say, read from a second opening of the file (the first one's packets
    /// are the importer's): an MP4 names MPEG-1/2 audio of every layer with one object type, which FFmpeg reads
    /// as mp3, and the first frame's header says the layer (Layer II, a camcorder's or a DVD's, has no encoder
    /// delay to hide) and the channels; AAC that may carry SBR implicitly is decoded until it shows its output
    /// rate (HE-AAC's is twice the stated rate; with parametric stereo, a mono core plays in stereo).
    static func firstPackets(_ path: String, _ basics: [TrackBasics]) throws -> [TrackBasics] {
        let input = try InputFile(path: path)
        let packet = try Packet()
        let frame = try Frame()
        var basics = basics
        var layers = Set(basics.filter { $0.codec == "mp3" }.map(\.index))
        // A look, not a reading the file depends on: a decoder that will not open, a packet that will not decode
        // or read leaves the track as its header says.
        var aac = Dictionary(
            uniqueKeysWithValues: basics.filter(mayBeImplicitSBR).compactMap { b in
                (try? Decoder(input, stream: b.index)).map { (b.index, (decoder: $0, packets: 0)) }
            })
        while !layers.isEmpty || !aac.isEmpty, (try? input.read(into: packet)) == true {
            let index = packet.streamIndex
            guard let i = basics.firstIndex(where: { $0.index == index }) else { continue }
            if layers.remove(index) != nil {
                let header = packet.withBytes { b in b.count >= 4 && b[0] == 0xFF ? Array(b[1...3]) : nil }
                let layer = header.map { Int($0[0] >> 1) & 3 } ?? 1
                if layer == 2 || layer == 3 { basics[i].codec = layer == 2 ? "mp2" : "mp1" }
                // The frame header's channel mode (3: one channel); MP4's sample entry says 2 for any MP3.
                if let header { basics[i].channels = header[2] >> 6 == 3 ? 1 : 2 }
            }
            guard let (decoder, packets) = aac[index] else { continue }
            // SBR shows in the first frame that carries its extension; an encoder writes it in every frame.
            var played: (rate: Int, channels: Int)?
            try? decoder.decode(packet, into: frame) { played = ($0.sampleRate, $0.channelCount) }
            if let played, played.rate > (basics[i].sampleRate ?? 0) || played.channels > (basics[i].channels ?? 0) {
                basics[i].sampleRate = played.rate
                basics[i].channels = played.channels
                basics[i].profile = decoder.profileName ?? basics[i].profile
                aac[index] = nil
            } else {
                aac[index] = packets + 1 < 3 ? (decoder, packets + 1) : nil
            }
        }
        return basics
    }

    /// A local file's first `count` bytes (fewer where it is shorter); nil for a remote one or one not read.
    static func head(_ path: String, count: Int) -> [UInt8]? {
        // A remote file's: one range request (a moov-less MP4 on a server is named as a local one is).
        if RemoteFile.isRemote(path) { return try? RemoteFile(path).read(at: 0, count: count) }
        if let growing = try? GrowingFiles.source(path) { return try? growing.read(at: 0, count: count) }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: count)).map { [UInt8]($0) }
    }

    /// Whether the file begins with an ISO-BMFF ftyp box (an MP4, MOV, M4A, 3GP).
    static func startsAsISO(_ path: String) -> Bool {
        guard let head = head(path, count: 8), head.count == 8 else { return false }
        return Array(head[4..<8]) == Array("ftyp".utf8)
    }

    /// A Git LFS pointer file (a checkout without LFS): a few lines of text that name the real file's hash.
    static func isLFSPointer(_ path: String) -> Bool {
        head(path, count: 64).map(IndexReading.isLFSPointer) == true
    }

    static func fileSize(_ path: String) throws -> Int64 {
        if RemoteFile.isRemote(path) {
            do { return try RemoteFile(path).size } catch let error as MediaError where error.code == nil {
                // Already loopprep's own sentence (a server without ranges, or without a size).
                throw error
            } catch {
                throw MediaError("open", reason: "cannot fetch it: \(MediaError.describe(error))")
            }
        }
        if let growing = GrowingFiles.progress(path) { return growing.size }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                throw MediaError("open", reason: "a symbolic link to \(target), which does not exist")
            }
            throw MediaError("open", reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw MediaError("open", reason: "is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaError("open", reason: "permission denied")
        }
        // A symbolic link is the file it points to (git-annex, a dataset's folder of links, a Nix store): its size,
        // not the link's own (the length of the target's name).
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw MediaError("open", reason: "empty file (0 bytes)") }
        return size
    }

    static func hasDecoder(_ input: InputFile, _ index: Int) -> Bool {
        avcodec_find_decoder(input.stream(index).pointee.codecpar.pointee.codec_id) != nil
    }

    /// MOV for QuickTime files, MP4 for the rest of ISO-BMFF, WebM or Matroska by the DocType, else by FFmpeg's
    /// first name for its demuxer.
    static func containerName(format: String, iso: ISOFile?, path: String) -> Container {
        if format.hasPrefix("mov,") { return iso?.majorBrand == "qt  " ? .mov : .mp4 }
        if format.hasPrefix("matroska") { return isWebM(path) ? .webm : .matroska }
        return Container(name: String(format.split(separator: ",").first ?? Substring(format)))
    }

    /// The EBML header names the DocType near the start of the file.
    static func isWebM(_ path: String) -> Bool {
        guard let head = try? ISOFile.source(path).read(at: 0, count: 64) else { return false }
        return Data(head).range(of: Data("webm".utf8)) != nil
    }
}
