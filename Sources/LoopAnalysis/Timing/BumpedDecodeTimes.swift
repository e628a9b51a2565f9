/// Video whose decode times a muxer bumped: the ffmpeg CLI, given a decode time equal to the one before (a stream
/// copy from a source that repeats them), writes it one tick later ("Non-monotonous DTS ... changing to 6007"). The
/// presentation times are the frames' own (3003 ticks apart at 30000/1001 on a 90 kHz clock), but the decode steps
/// alternate 1 and 6005: read as frame lengths they make "90000 fps", and a reader that ends a frame at its decode
/// step (FFmpeg's) ends the track a frame early. Laid anew, each decode time is the presentation time of the same
/// rank less the reorder delay, as an encoder would have stamped them; the presentation times do not move.
package enum BumpedDecodeTimes {
    /// The timeline with its decode times laid a presentation step apart, where the commonest decode step is shorter
    /// than half the commonest step between presentation times; nil where it is not, or where two frames share a
    /// presentation time (no order to lay them in).
    public static func relaid(_ t: TrackTimeline) -> TrackTimeline? {
        let samples = t.samples
        guard samples.count >= 3 else { return nil }
        let shown = samples.map(\.pts).sorted()
        let steps = zip(shown, shown.dropFirst()).map { $1 - $0 }
        guard steps.allSatisfy({ $0 > 0 }) else { return nil }
        let commonest = { (a: (key: Int64, value: Int), b: (key: Int64, value: Int)) in
            a.value != b.value ? a.value < b.value : a.key > b.key
        }
        var counts: [Int64: Int] = [:]
        for step in steps { counts[step, default: 0] += 1 }
        guard let common = counts.max(by: commonest)?.key else { return nil }
        // Bumped throughout: the commonest decode step is no frame's length. (A writer squeezes a few decode steps
        // where a re-encoded run of another reorder delay joins copied frames, as stitch's does: those read right.)
        var decodeCounts: [Int64: Int] = [:]
        for (a, b) in zip(samples, samples.dropFirst()) { decodeCounts[b.dts - a.dts, default: 0] += 1 }
        guard let commonDecode = decodeCounts.max(by: commonest)?.key, 2 * commonDecode < common else { return nil }
        // The reorder delay: as far back as the first decode time was, and no frame decoded after it is shown.
        let delay = samples.indices.reduce(shown[0] - samples[0].dts) { Swift.max($0, shown[$1] - samples[$1].pts) }
        var out = t
        for i in samples.indices {
            out.samples[i].dts = shown[i] - delay
            out.samples[i].duration = i + 1 < samples.count ? shown[i + 1] - shown[i] : common
        }
        // Only a short step the laying moves was bumped (a variable rate's short step without reordering is laid
        // where it was).
        let bumped = samples.indices.dropFirst().filter { i in
            2 * (samples[i].dts - samples[i - 1].dts) < common && out.samples[i].dts != samples[i].dts
        }.count
        guard bumped > 0 else { return nil }
        out.laidAnew = true
        out.relaidDecodeTimes = bumped
        return out
    }
}
