import LoopAnalysis

/// MP4 and MOV: the index loopprep reads itself (sample tables, fragments, edit lists as stored; FFmpeg's mov
/// demuxer applies edit lists, shifts decode times by negative composition offsets and loses trun durations),
/// with iTunSMPB read as the edit it describes. A stream the index does not describe is scanned.
enum MP4Import: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer.hasPrefix("mov,") }

    static func timelines(_ source: ImportSource) throws -> Imported {
        var timelines: [Int: TrackTimeline] = [:]
        if let iso = source.index {
            for b in source.basics {
                if let id = b.trackID, let t = iso.tracks[id] { timelines[b.index] = t.timeline }
            }
            // An AAC priming frame stored with no length gets its frame back (ZeroLengthPriming).
            for b in source.basics where b.codec == "aac" {
                guard let t = timelines[b.index], let rate = b.sampleRate, rate > 0 else { continue }
                timelines[b.index] = ZeroLengthPriming.timeline(
                    t, frame: (Rational(1024, Int64(rate)) / t.timeBase).rounded)
            }
            // iTunSMPB says the first audio track's priming and padding where no edit list does.
            if let gapless = iso.gapless, let audio = source.basics.first(where: { $0.kind == .audio }),
                let t = timelines[audio.index],
                let signalled = ITunesGaplessEdit.timeline(
                    t, priming: gapless.priming, length: gapless.length, rate: audio.sampleRate)
            {
                timelines[audio.index] = signalled
            }
        }
        let missing = source.allStreams.filter { timelines[$0] == nil }
        guard !missing.isEmpty else { return Imported(timelines: timelines, clockOrigin: nil, readPackets: false) }
        let scan = try PacketScan.read(source.input, streams: missing, basics: source.basics)
        timelines.merge(PacketScan.timelines(scan, basics: source.basics)) { a, _ in a }
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: true)
    }
}
