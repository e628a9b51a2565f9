/// Compares a written file's facts with the plan it was written from: the presented frames and samples, the
/// first presented frame, and where every track starts and ends. A fix whose output differs from its plan is
/// discarded, however clean the output looks to the rules (a track can be clean and two frames short).
package enum PlanComparison {
    /// The output's tracks, in order, for the plan's cuts: audio and video only, as fix writes them.
    public static func pairs(_ plan: FixPlan, _ output: ClipFacts) -> [(cut: TrackCut, track: TrackFacts)]? {
        let tracks = output.tracks.filter { $0.kind == .video || $0.kind == .audio }
        guard tracks.count == plan.tracks.count, zip(plan.tracks, tracks).allSatisfy({ $0.kind == $1.kind }) else {
            return nil
        }
        return Array(zip(plan.tracks, tracks))
    }

    /// The first difference found, in a sentence; nil when the output is what was planned.
    public static func difference(_ plan: FixPlan, output: ClipFacts) -> String? {
        guard let pairs = pairs(plan, output) else {
            return
                """
                it has \(output.tracks.filter { $0.kind == .video || $0.kind == .audio }.count) audio and video \
                tracks where \(plan.tracks.count) were planned
                """
        }
        // Containers without edit lists (Matroska: milliseconds) place a track only to their tick.
        let slack = output.timestampResolution
        for (cut, track) in pairs {
            let name = Figures.trackName(track)
            let planned = plan.presented(cut)
            if (track.startSeconds - .zero).magnitude > slack {
                return "\(name) starts at \(Figures.ms(track.startSeconds)), not at 0"
            }
            // A video's last frame lasts, in MP4, to where the next decode time would be: a tick of its clock off
            // its own length where the source's clock jitters (GStreamer's 90 kHz MPEG-TS: 2999/3000/3001).
            let lengthSlack = track.kind == .video ? Rational.max(slack, track.timeBase) : slack
            if (track.durationSeconds - planned).magnitude > lengthSlack {
                return "\(name) presents \(Figures.ms(track.durationSeconds)) where \(Figures.ms(planned)) was planned"
            }
            if let frames = cut.presentedFrames, let count = track.frameCount, count != frames * plan.repeats {
                return "\(name) presents \(count) frames where \(frames * plan.repeats) were planned"
            }
            // Counted at the rate the written file states (HE-AAC's MP4 may state its core rate, half the rate
            // of the ADTS stream it came from, with the same seconds).
            if slack.isZero, let rate = track.sampleRate ?? cut.sampleRate, let samples = track.sampleCount,
                samples != planned * Int64(rate)
            {
                return "\(name) presents \(samples) samples where \(planned * Int64(rate)) were planned"
            }
        }
        return nil
    }
}
