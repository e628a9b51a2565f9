import LoopAnalysis

/// MP4 and MOV: the index loopprep reads itself (sample tables, fragments, edit lists as stored; FFmpeg's mov
/// demuxer applies edit lists, shifts decode times by negative composition offsets and loses trun durations),
/// with iTunSMPB read as the edit it describes. A stream the index does not describe is scanned.
enum MP4Import: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer.hasPrefix("mov,") }

    static func timelines(_ source: ImportSource) throws -> Imported {
        var timelines: [Int: TrackTimeline] = [:]
        if let iso = source.index { timelines = indexTimelines(iso, basics: source.basics) }
        let missing = source.allStreams.filter { timelines[$0] == nil }
        guard !missing.isEmpty else { return Imported(timelines: timelines, clockOrigin: nil, readPackets: false) }
        let scan = try PacketScan.read(source.input, streams: missing, basics: source.basics)
        timelines.merge(PacketScan.timelines(scan, basics: source.basics)) { a, _ in a }
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: true)
    }

    /// The timelines from the index alone (no demuxer), or nil when a stream is one the index does not time.
    static func indexed(_ iso: ISOFile, basics: [TrackBasics]) -> Imported? {
        let timelines = indexTimelines(iso, basics: basics)
        guard basics.allSatisfy({ timelines[$0.index] != nil }) else { return nil }
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: false)
    }

    private static func indexTimelines(_ iso: ISOFile, basics: [TrackBasics]) -> [Int: TrackTimeline] {
        var timelines: [Int: TrackTimeline] = [:]
        for b in basics {
            if let id = b.trackID, let t = iso.tracks[id] { timelines[b.index] = t.timeline }
        }
        // An AAC priming frame stored with no length gets its frame back (ZeroLengthPriming); one presented at
        // the first content frame's time by a composition offset is hidden by the edit that means
        // (CompositionOffsetPriming).
        for b in basics where b.codec == "aac" {
            guard let t = timelines[b.index], let rate = b.sampleRate, rate > 0 else { continue }
            let framed = ZeroLengthPriming.timeline(t, frame: (Rational(1024, Int64(rate)) / t.timeBase).rounded)
            timelines[b.index] = CompositionOffsetPriming.timeline(framed) ?? framed
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
}
