import LoopAnalysis

/// A fix plan as the MP4 writer lays it out: for each cut, the source's samples to copy with their output
/// timing, read from the index the plan was made from (never from FFmpeg's packets, whose decode times the mov
/// demuxer shifts by negative composition offsets and whose fragment durations it loses).
enum ISOCut {
    /// The layouts, or nil when the plan needs what only the FFmpeg path does (re-encoded frames or audio,
    /// repeats) or a track the index does not fully describe.
    static func layouts(_ plan: FixPlan, facts: ClipFacts, iso: ISOFile, timelines: [Int: TrackTimeline]) -> [TrackLayout]? {
        guard plan.repeats == 1, !plan.reencodesAudio else { return nil }
        var layouts: [TrackLayout] = []
        for cut in plan.tracks {
            guard cut.head == nil, cut.tail == nil,
                  let id = facts.tracks.first(where: { $0.index == cut.index })?.trackID, let track = iso.tracks[id],
                  let timeline = timelines[cut.index], track.descriptionCount == 1, track.locations.count == timeline.samples.count,
                  cut.first >= 0, cut.first <= cut.last, cut.last < track.locations.count else { return nil }
            layouts.append(layout(cut, track: track, timeline: timeline, movieTimescale: plan.movieTimescale, bake: plan.bakeVideo && cut.kind == .video))
        }
        return layouts
    }

    /// iTunSMPB for the output, when the source has one: the first audio track's edit in samples.
    static func gapless(_ plan: FixPlan, layouts: [TrackLayout], facts: ClipFacts, iso: ISOFile) -> ITunesGapless? {
        guard iso.gapless != nil, let (n, cut) = plan.tracks.enumerated().first(where: { $0.element.kind == .audio }),
              let rate = cut.sampleRate, n < layouts.count else { return nil }
        let samples = { (ticks: Int64) in (Rational(ticks) * cut.timeBase * Int64(rate)).rounded }
        let priming = samples(layouts[n].mediaTime), length = (cut.duration * Int64(rate)).rounded
        return ITunesGapless(priming: priming, padding: max(samples(layouts[n].mediaDuration) - priming - length, 0), length: length)
    }

    /// `timeline` is the one the plan was made on: the index's, or its regular form (audio frame durations).
    static func layout(_ cut: TrackCut, track: ISOFile.Track, timeline: TrackTimeline, movieTimescale: Int64, bake: Bool) -> TrackLayout {
        let samples = timeline.samples
        let base = samples[cut.first].dts
        var entries: [TrackLayout.Entry] = []
        entries.reserveCapacity(cut.last - cut.first + 1)
        for i in cut.first...cut.last {
            // Decode durations are the steps between decode times, so a jump between fragments stays a jump.
            let duration = i < cut.last ? samples[i + 1].dts - samples[i].dts : samples[i].duration
            var pts = samples[i].pts
            if i == cut.first, let retimed = cut.retimedFirstPts { pts = retimed }
            entries.append(.init(location: track.locations[i], duration: duration, compositionOffset: pts - samples[i].dts,
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
        return TrackLayout(trackID: track.trackID, entries: entries, mediaTime: mediaTime,
                           editDuration: (cut.duration * movieTimescale).rounded, pcm: track.pcm)
    }
}
