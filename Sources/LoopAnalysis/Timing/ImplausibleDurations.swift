/// Matroska video whose blocks say a length no frame has (a muxer's BlockDuration of 1 ms on every VP8 frame: issue
/// 43, item 5): a frame is shown until the next one, so a length under half the step to the next frame's time is
/// the muxer's, not the picture's, and the step is taken; the last frame's, under half the usual step, takes that.
package enum ImplausibleDurations {
    public static func fix(_ samples: [SampleTiming]) -> [SampleTiming] {
        let order = samples.indices.filter { !samples[$0].isDiscarded }.sorted { samples[$0].pts < samples[$1].pts }
        var steps: [Int: Int64] = [:]
        for (a, b) in zip(order, order.dropFirst()) where samples[b].pts > samples[a].pts {
            steps[a] = samples[b].pts - samples[a].pts
        }
        var counts: [Int64: Int] = [:]
        for step in steps.values { counts[step, default: 0] += 1 }
        guard let common = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key })?.key
        else { return samples }
        var out = samples
        for i in order {
            let step = steps[i] ?? common
            if out[i].duration > 0, 2 * out[i].duration < step { out[i].duration = step }
        }
        return out
    }
}
