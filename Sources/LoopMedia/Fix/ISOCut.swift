import LoopAnalysis
import LoopIndex

/// A fix plan as the MP4 writer lays it out: for each cut, the source's samples to copy with their output
/// timing, read from the index the plan was made from (never from FFmpeg's packets, whose decode times the mov
/// demuxer shifts by negative composition offsets and whose fragment durations it loses).
enum ISOCut {
    /// The layouts of a plan whose writer is `.index` (FixWriter chose it: no repeat, no re-encoded frame or audio,
    /// one sample description a track). A track the index does not place sample for sample is refused in words.
    static func layouts(_ plan: FixPlan, facts: ClipFacts, iso: ISOFile, timelines: [Int: TrackTimeline]) throws
        -> [TrackLayout]
    {
        var layouts: [TrackLayout] = []
        for cut in plan.tracks + plan.others {
            guard let id = facts.tracks.first(where: { $0.index == cut.index })?.trackID, let track = iso.tracks[id],
                let timeline = timelines[cut.index], track.locations.count == timeline.samples.count,
                cut.first >= 0, cut.first <= cut.last, cut.last < track.locations.count
            else {
                throw MediaError(
                    "write output",
                    reason: """
                        \(Figures.trackName(cut))'s index does not place each of its samples in the file, so loopprep \
                        cannot copy it from the index; please report the file
                        """)
            }
            if cut.kind == .video || cut.kind == .audio {
                var l = layout(
                    cut, track: track, timeline: timeline, movieTimescale: plan.movieTimescale,
                    bake: plan.bakeVideo && cut.kind == .video)
                if cut.codec == "hevc", let entry = iso.sampleEntry(of: track), entry.count > 8,
                    Array(entry[4..<8]) == Array("hev1".utf8)
                {
                    try HEVCSampleEntry.moveParameterSets(&l, entry: entry, source: facts.path)
                }
                layouts.append(l)
            } else {
                layouts.append(
                    try retimed(
                        cut, track: track, timeline: timeline, movieTimescale: plan.movieTimescale, iso: iso,
                        source: facts.path))
            }
        }
        return layouts
    }

    /// A chapter, timecode or text track cut to the range with its samples themselves retimed (the first one
    /// starts at 0, each ends where the next starts or at the end), and no edit into a sample: readers that
    /// ignore edit lists on these tracks (FFmpeg reads chapters and timecodes from the samples) agree with
    /// those that apply them. A timecode sample's frame number moves on by the frames trimmed before it.
    static func retimed(
        _ cut: TrackCut, track: ISOFile.Track, timeline: TrackTimeline, movieTimescale: Int64, iso: ISOFile,
        source: String
    ) throws -> TrackLayout {
        let samples = timeline.samples
        let end = Rational(cut.mediaStart) + cut.duration / cut.timeBase
        var entries: [TrackLayout.Entry] = []
        for i in cut.first...cut.last {
            let from = max(samples[i].pts, cut.mediaStart)
            let next = i < cut.last ? Rational(samples[i + 1].pts) : Rational(samples[i].pts + samples[i].duration)
            let to = Rational.min(next, end).rounded
            guard to > from else { continue }
            entries.append(
                .init(
                    location: track.locations[i], duration: to - from, compositionOffset: 0, isSync: samples[i].isSync,
                    sourceIndex: i))
        }
        if track.handler == "tmcd", var first = entries.first, let format = TimecodeFormat(iso.sampleEntry(of: track)) {
            let bytes = try ISOFile.bytes(source, first.location)
            let trimmed = Rational(cut.mediaStart - samples[first.sourceIndex].pts) * cut.timeBase
            first.replacement = format.advance(bytes, by: trimmed)
            entries[0] = first
        }
        return TrackLayout(
            trackID: track.trackID, entries: entries, mediaTime: 0,
            editDuration: (cut.duration * movieTimescale).rounded, pcm: nil)
    }

    /// iTunSMPB for the output, when the source has one: the first audio track's edit in samples.
    static func gapless(_ plan: FixPlan, layouts: [TrackLayout], facts: ClipFacts, iso: ISOFile) -> ITunesGapless? {
        guard iso.gapless != nil, let (n, cut) = plan.tracks.enumerated().first(where: { $0.element.kind == .audio }),
            let rate = cut.sampleRate, n < layouts.count
        else { return nil }
        let samples = { (ticks: Int64) in (Rational(ticks) * cut.timeBase * Int64(rate)).rounded }
        let priming = samples(layouts[n].mediaTime)
        let length = (cut.duration * Int64(rate)).rounded
        return ITunesGapless(
            priming: priming, padding: max(samples(layouts[n].mediaDuration) - priming - length, 0), length: length)
    }

    /// `timeline` is the one the plan was made on: the index's, or its regular form (audio frame durations).
    static func layout(
        _ cut: TrackCut, track: ISOFile.Track, timeline: TrackTimeline, movieTimescale: Int64, bake: Bool
    ) -> TrackLayout {
        let samples = timeline.samples
        let base = samples[cut.first].dts
        var entries: [TrackLayout.Entry] = []
        entries.reserveCapacity(cut.last - cut.first + 1)
        for i in cut.first...cut.last {
            // Decode durations are the steps between decode times, so a jump between fragments stays a jump.
            let duration = i < cut.last ? samples[i + 1].dts - samples[i].dts : samples[i].duration
            var pts = samples[i].pts
            if i == cut.first, let retimed = cut.retimedFirstPts { pts = retimed }
            entries.append(
                .init(
                    location: track.locations[i], duration: duration, compositionOffset: pts - samples[i].dts,
                    isSync: samples[i].isSync, sourceIndex: i))
        }
        // A cut inside the last sample (audio): it ends at the cut.
        if let end = cut.mediaEnd { entries[entries.count - 1].duration = max(end - samples[cut.last].pts, 0) }
        // The edit's media time is a composition time of the output, whose first decode time is 0. It cannot be
        // negative (a negative composition offset before the start), and --target web wants it 0: then every
        // composition offset moves instead.
        var mediaTime = cut.mediaStart - base
        if bake || mediaTime < 0 {
            for i in entries.indices { entries[i].compositionOffset -= mediaTime }
            mediaTime = 0
        }
        return TrackLayout(
            trackID: track.trackID, entries: entries, mediaTime: mediaTime,
            editDuration: (cut.duration * movieTimescale).rounded, pcm: track.pcm)
    }
}
