/// Matroska SimpleBlocks carry no duration: a missing one is the step to the next packet in presentation
/// order, and the last packet's the commonest step (the smaller one of two as common).
package enum MissingDurations {
    public static func fill(_ samples: [SampleTiming]) -> [SampleTiming] {
        guard samples.contains(where: { $0.duration <= 0 }) else { return samples }
        let order = samples.indices.sorted { samples[$0].pts < samples[$1].pts }
        var steps: [Int: Int64] = [:]
        for (a, b) in zip(order, order.dropFirst()) where samples[b].pts > samples[a].pts {
            steps[a] = samples[b].pts - samples[a].pts
        }
        var counts: [Int64: Int] = [:]
        for step in steps.values { counts[step, default: 0] += 1 }
        let common = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key ?? 0
        var out = samples
        for i in out.indices where out[i].duration <= 0 { out[i].duration = steps[i] ?? common }
        return out
    }
}
