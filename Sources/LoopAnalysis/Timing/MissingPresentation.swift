/// Presentation times MPEG-PS leaves out (it writes a PTS only every few packets, often not on I and P frames).
package enum MissingPresentation {
    /// Where every packet that has a PTS shows the same reorder delay (no B-frames, audio), the others are
    /// presented that long after their decode time too. Otherwise (B-frames), every frame has a place on the
    /// frame grid from the earliest known PTS; the known ones take theirs, and the others (I and P frames, which
    /// are shown in the order they are decoded) take the free places in decode order. nil when the packets do
    /// not fit one grid that way.
    public static func fill(_ samples: [SampleTiming], missing: [Int]) -> [SampleTiming]? {
        let lacking = Set(missing)
        let known = samples.indices.filter { !lacking.contains($0) }
        var out = samples
        let delays = Set(known.map { samples[$0].pts - samples[$0].dts })
        if delays.count == 1, let delay = delays.first {
            for n in missing { out[n].pts = samples[n].dts + delay }
            return out
        }
        var steps: [Int64: Int] = [:]
        for (a, b) in zip(samples, samples.dropFirst()) where b.dts > a.dts { steps[b.dts - a.dts, default: 0] += 1 }
        guard let step = steps.max(by: { $0.value < $1.value })?.key, step > 0,
            let first = known.map({ samples[$0].pts }).min()
        else { return nil }
        var free = Set((0..<Int64(samples.count)).map { first + $0 * step })
        for n in known {
            guard free.remove(samples[n].pts) != nil else { return nil }
        }
        let places = free.sorted()
        guard places.count == missing.count else { return nil }
        for (n, pts) in zip(missing.sorted(), places) {
            guard pts >= samples[n].dts else { return nil }
            out[n].pts = pts
        }
        return out
    }
}
