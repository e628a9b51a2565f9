import Foundation
import LoopAnalysis

/// An MP4 or MOV read from its index alone, no FFmpeg: the facts and timelines the CLI's analysis starts from
/// wherever the index says everything (the streams from the sample entries, the timelines from the sample tables,
/// fragments and edit lists), and what an app measures a loop range with. One path for both.
package enum IndexReading {
    /// The facts and timelines of `file`, or nil where the index does not say everything (not an ISO-BMFF file
    /// this reader takes, or a stream it does not model: FFmpeg's reading is needed then). `rangeOnly`: see
    /// `ISOFile.streamBasics(rangeOnly:)` (an app's reading; the CLI's is without).
    package static func read(_ file: any ByteSource, path: String, rangeOnly: Bool = false) throws -> (
        facts: ClipFacts, timelines: [Int: TrackTimeline]
    )? {
        let size = file.size
        guard size > 0 else { throw MediaError("open", reason: "empty file (0 bytes)") }
        if size < 1024, isLFSPointer(try file.read(at: 0, count: 64)) {
            throw MediaError("open", reason: lfsPointer)
        }
        guard let iso = try ISOFile.read(file, fileSize: size) else { return nil }
        try refuseEncrypted(iso)
        guard let basics = iso.streamBasics(rangeOnly: rangeOnly) else { return nil }
        guard let timelines = indexed(iso, basics: basics) else { return nil }
        let streams = StreamsRead(
            path: path, size: size, format: ISOFile.demuxerName, container: iso.majorBrand == "qt  " ? .mov : .mp4,
            iso: iso, basics: basics)
        return try facts(streams, timelines: timelines)
    }

    /// An index that points past the file's end: the file was cut short.
    package static func refuseTruncated(_ iso: ISOFile, size: Int64) throws {
        // An index of samples none of which is placed in the file (no chunk offsets: its media data stripped, as
        // the tiny movies metadata tools test with are): nothing to read.
        if let (id, track) = iso.tracks.sorted(by: { $0.key < $1.key })
            .first(where: { !$0.value.timeline.samples.isEmpty && $0.value.dataEnd == 0 })
        {
            let n = track.timeline.samples.count
            throw MediaError(
                "read index",
                reason: """
                    no media data: the index lists \(n) sample\(n == 1 ? "" : "s") of track \(id) but places none of \
                    them in the file (its media was stripped, as in the small movies metadata tools test with)
                    """)
        }
        guard iso.dataEnd > size else { return }
        throw MediaError(
            "read index", reason: "truncated: the index points at \(iso.dataEnd) bytes but the file has \(size)")
    }

    /// Common Encryption: a protected sample entry (encv, enca) holds scrambled samples that
    /// no decoder reads without the key. Said as such, not as damage.
    package static func refuseEncrypted(_ iso: ISOFile) throws {
        let protected = iso.tracks.sorted { $0.key < $1.key }.compactMap { $0.value.header?.entry }
            .filter { $0.count >= 8 }.map { String(decoding: $0[4..<8], as: UTF8.self) }.filter { $0.hasPrefix("enc") }
        guard !protected.isEmpty else { return }
        throw MediaError(
            "open",
            reason: """
                encrypted (Common Encryption: its \(protected.joined(separator: " and ")) samples are scrambled, and \
                no player decodes them without the key): loopprep cannot check or fix encrypted media; run it on the \
                clip before it is encrypted
                """)
    }

    /// A Git LFS pointer file's opening: a checkout without LFS.
    package static func isLFSPointer(_ head: [UInt8]) -> Bool {
        head.starts(with: Array("version https://git-lfs.github.com/spec/".utf8))
    }

    package static let lfsPointer = """
        a Git LFS pointer, not the media: the repository was checked out without LFS (git lfs pull, or \
        lfs: true in actions/checkout)
        """

    /// The timelines from the index alone, or nil when a stream is one the index does not time.
    package static func indexed(_ iso: ISOFile, basics: [TrackBasics]) -> [Int: TrackTimeline]? {
        let timelines = timelines(iso, basics: basics)
        return basics.allSatisfy { timelines[$0.index] != nil } ? timelines : nil
    }

    /// Each track's timeline as the index stores it, with the priming its shapes signal read as edits.
    package static func timelines(_ iso: ISOFile, basics: [TrackBasics]) -> [Int: TrackTimeline] {
        var timelines: [Int: TrackTimeline] = [:]
        for b in basics {
            if let id = b.trackID, let t = iso.tracks[id] { timelines[b.index] = t.timeline }
        }
        // Decode times a muxer bumped a tick after a repeated one are laid a frame apart (BumpedDecodeTimes).
        for b in basics where b.kind == .video {
            if let t = timelines[b.index], let relaid = BumpedDecodeTimes.relaid(t) { timelines[b.index] = relaid }
        }
        // An AAC priming frame stored with no length gets its frame back (ZeroLengthPriming); one presented at
        // the first content frame's time by a composition offset is hidden by the edit that means
        // (CompositionOffsetPriming).
        for b in basics where b.codec == "aac" {
            guard let t = timelines[b.index], let rate = b.sampleRate, rate > 0 else { continue }
            let framed = ZeroLengthPriming.timeline(t, frame: (Rational(1024, Int64(rate)) / t.timeBase).rounded)
            timelines[b.index] = CompositionOffsetPriming.timeline(framed) ?? framed
        }
        // Opus's pre-skip is hidden where no edit list says otherwise (a recorder writes none).
        for b in basics where b.codec == "opus" {
            if let t = timelines[b.index], let preSkip = b.codecDelay,
                let signalled = OpusPreSkipEdit.timeline(t, preSkip: preSkip)
            {
                timelines[b.index] = signalled
            }
        }
        // iTunSMPB says the first audio track's priming and padding where no edit list does.
        if let gapless = iso.gapless, let audio = basics.first(where: { $0.kind == .audio }),
            let t = timelines[audio.index],
            let signalled = ITunesGaplessEdit.timeline(
                t, priming: gapless.priming, length: gapless.length, rate: audio.sampleRate)
        {
            timelines[audio.index] = signalled
        }
        return timelines
    }

    /// Facts from the streams and their timelines, whichever reader made them (the index, or FFmpeg's packets).
    package static func facts(
        _ streams: StreamsRead, timelines imported: [Int: TrackTimeline], clockOrigin: Rational? = nil
    ) throws -> (facts: ClipFacts, timelines: [Int: TrackTimeline]) {
        let (path, size, format, iso, basics) = (
            streams.path, streams.size, streams.format, streams.iso, streams.basics
        )
        if let iso { try refuseTruncated(iso, size: size) }
        var timelines = imported
        var tracks = basics.compactMap { b in timelines[b.index].flatMap { TrackFacts(basics: b, timeline: $0) } }
        if let iso {
            for i in tracks.indices {
                tracks[i].sampleDescriptions = tracks[i].trackID.flatMap { iso.tracks[$0]?.descriptionCount }
            }
        }
        guard tracks.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError("read packets", reason: "no audio or video packets")
        }
        let empty = basics.filter { b in
            (b.kind == .video || b.kind == .audio) && !tracks.contains { $0.index == b.index }
        }
        .map { EmptyTrack(index: $0.index, kind: $0.kind, codec: $0.codec) }
        var facts = ClipFacts(
            path: path, container: streams.container, formatName: format, fileSize: size,
            moovBeforeMdat: iso?.moovBeforeMdat,
            movieTimescale: iso?.movieTimescale, fragmented: iso?.fragmented, tracks: tracks,
            emptyTracks: empty.isEmpty ? nil : empty)
        facts.movieDuration = iso.map { Rational($0.movieDuration, $0.movieTimescale) }
        // Matroska and WebM: the Segment's Duration, what browsers give the file, as the demuxer read it (in
        // milliseconds, the usual TimestampScale, whose tick is the rule's tolerance).
        if facts.isMatroska, let declared = streams.declaredDuration {
            facts.movieDuration = declared
            facts.movieTimescale = 1000
        }
        if basics.contains(where: { $0.kind == .attachment && $0.codec != "ttf" && $0.codec != "otf" }) {
            facts.coverArt = true
        }
        facts.clockOrigin = clockOrigin
        // Plans work on the audio as the decoder plays it: frames of the codec's length, back to back.
        for track in tracks {
            if let frame = track.irregularDurations?.frameTicks, let t = timelines[track.index] {
                timelines[track.index] = AudioFrames.regular(t, frame: frame, fromFirst: iso != nil)
            }
        }
        return (facts, timelines)
    }
}

/// What a reader knows of a file before its timelines: its name and size, the demuxer's name for it, the container,
/// its index (an MP4's or MOV's) and streams, and the duration its header declares (Matroska's Segment Duration).
package struct StreamsRead {
    package var path: String
    package var size: Int64
    package var format: String
    package var container: Container
    package var iso: ISOFile?
    package var basics: [TrackBasics]
    package var declaredDuration: Rational? = nil

    package init(
        path: String, size: Int64, format: String, container: Container, iso: ISOFile?, basics: [TrackBasics],
        declaredDuration: Rational? = nil
    ) {
        self.path = path
        self.size = size
        self.format = format
        self.container = container
        self.iso = iso
        self.basics = basics
        self.declaredDuration = declaredDuration
    }
}
