/// `irregular-audio-durations`: an AAC (MP3, AC-3) track whose stored sample durations are not the codec's
/// frame length. Every frame decodes to the same number of samples, so durations that say otherwise place the
/// audio where the decoder does not put it: players that follow the timestamps drift, insert silence or drop
/// samples, and a cut made on the stored times lands milliseconds off. FLV/RTMP recordings remuxed with
/// `-c copy` (durations 1017-1024 at 44.1 kHz) and FFmpeg's fragmented MP4 (a first packet stretched over the
/// video's delay) write these.
package struct IrregularAudioDurations: Rule {
    public let ids: [RuleID] = [.irregularAudioDurations]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        clip.tracks.compactMap { track in
            guard let odd = track.irregularDurations, odd.count > 0, let frame = odd.frameTicks,
                let rate = track.sampleRate
            else { return nil }
            let worst = Rational(odd.largestDeviation) * track.timeBase
            let frameSamples = (Rational(frame) * track.timeBase * Int64(rate)).rounded
            return Finding(
                rule: ids[0], severity: .warning, track: track.index,
                message:
                    """
                    \(Figures.trackName(track)): \(odd.count) of \(track.packetCount) frames have a stored \
                    duration other than \(frameSamples) samples (the largest differs by \
                    \(Figures.ms(worst.magnitude)) = \(Figures.samples(worst.magnitude, rate: rate))), so the \
                    audio is not where the decoder plays it
                    """,
                hint: "rewrite the durations to the codec's frame length: loopprep fix",
                figures: ["count": Double(odd.count), "ms": Figures.msValue(worst.magnitude)])
        }
    }
}
