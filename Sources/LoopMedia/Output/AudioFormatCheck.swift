import LoopAnalysis

/// Audio encoded again is the format the input plays as: the rate and channels FFmpeg's decoder puts out of the
/// input (HE-AAC's twice its core's rate, in stereo) and, for a lossless codec, the bits its samples hold (a 16-bit
/// ALAC stays 16-bit, a 24-bit FLAC 24-bit), each read by decoding the first frames of input and output: an encoder
/// that took another format is caught before the file is kept.
enum AudioFormatCheck {
    /// The refusal of `output`, whose audio `plan` encoded again from `source`, in a sentence; nil where each
    /// audio track plays as its input's did (or nothing was encoded again).
    static func refusal(_ plan: FixPlan, source: String, output: String) throws -> String? {
        guard plan.reencodesAudio, !plan.isNoop else { return nil }
        let cuts = plan.tracks.filter { $0.kind == .audio }
        let written = try InputFile(path: output)
        let outputAudio = (0..<written.streamCount).filter { written.basics($0).kind == .audio }
        for (cut, out) in zip(cuts, outputAudio) {
            guard
                let before = try FFmpegReading.played(try InputFile(path: source), stream: cut.index, codec: cut.codec),
                let after = try FFmpegReading.played(try InputFile(path: output), stream: out, codec: cut.codec)
            else { continue }
            if before != after {
                let described = { (p: FFmpegReading.Played) in
                    "\(p.rate) Hz, \(p.channels) channel\(p.channels == 1 ? "" : "s")"
                        + (p.bits.map { ", \($0)-bit" } ?? "")
                }
                return """
                    the output's \(Figures.trackName(cut)) plays as \(described(after)) where the input's plays as \
                    \(described(before)): the encoder took another format; nothing was written: please report the input
                    """
            }
        }
        return nil
    }
}
