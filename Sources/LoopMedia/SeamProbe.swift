import CFFmpeg
import LoopAnalysis

/// Measures the loop seam: the last presented video frame against the first, the last presented audio samples
/// against the first. Decodes only what that needs: from the start until the first frame of each track, then
/// from the last keyframe before the end to the end, flushing the decoders (their held-back frames are the seam).
public enum SeamProbe {
    /// `input` must not have been read yet (the probe reopens the file when it had to read packets).
    public static func measure(_ input: InputFile, facts: ClipFacts) throws -> SeamFacts {
        let video = facts.mainVideo, audio = facts.mainAudio
        let videoDecoder = try video.map { try Decoder(input, stream: $0.index, fast: true) }
        let audioDecoder = try audio.map { try Decoder(input, stream: $0.index) }
        let scaler = Scaler()
        let packet = try Packet(), frame = try Frame()

        // The head: first presented frame and first two samples per channel.
        var first: Thumbnail?
        var head: [(Float, Float)]?
        var firstVideoPts: Int64?, firstAudioPts: Int64?
        while (videoDecoder != nil && first == nil) || (audioDecoder != nil && head == nil) {
            guard try input.read(into: packet) else { break }
            if let d = videoDecoder, first == nil, packet.streamIndex == d.streamIndex {
                try d.decode(packet, into: frame) { f in
                    if first == nil { first = try scaler.thumbnail(f); firstVideoPts = f.pts }
                }
            } else if let d = audioDecoder, head == nil, packet.streamIndex == d.streamIndex {
                try d.decode(packet, into: frame) { f in
                    if head == nil, f.sampleCount >= 2 {
                        head = (0..<f.channelCount).map { (f.sample(channel: $0, index: 0), f.sample(channel: $0, index: 1)) }
                        firstAudioPts = f.pts
                    }
                }
            }
        }

        // The tail: seek to the keyframe before the last frame, decode everything to the end, flush.
        let videoEnd = video.flatMap { v in firstVideoPts.map { $0 + (v.durationSeconds / v.timeBase).floor } }
        let audioLast = audio.flatMap { a -> Int64? in
            guard let pts = firstAudioPts, let count = a.sampleCount, let rate = a.sampleRate else { return nil }
            // Last presented sample index on the decoder's sample clock.
            return (Rational(pts) * a.timeBase * Int64(rate)).rounded + count.floor - 1
        }
        if let v = video, let end = videoEnd {
            let frame = v.nominalFrameDuration ?? 1
            try input.seek(stream: v.index, to: end - 2 * frame)
        } else if let a = audio, let pts = firstAudioPts {
            try input.seek(stream: a.index, to: pts + ((a.durationSeconds - Rational(1, 2)) / a.timeBase).floor)
        }
        videoDecoder?.reset(); audioDecoder?.reset()

        var lastTwo: [Thumbnail] = []
        var tail: [Int64: [Float]] = [:]
        func takeVideo(_ f: Frame) throws {
            guard let pts = f.pts, let end = videoEnd, pts < end else { return }
            lastTwo.append(try scaler.thumbnail(f))
            if lastTwo.count > 2 { lastTwo.removeFirst() }
        }
        // Where a tick resolves single samples (MP4: 1/sample rate) the last presented sample is found by its
        // index, since the AAC decoder outputs whole frames past the edit's end. Where ticks are coarser
        // (Matroska's ms), pts cannot place a sample; the decoder's own last output is used, as it applies
        // the container's end trim (discard padding) itself.
        let exact = audio.map { a in a.timeBase <= Rational(1, Int64(max(a.sampleRate ?? 1, 1))) } ?? false
        var rolling: [[Float]] = []
        func takeAudio(_ f: Frame) {
            guard let a = audio, let rate = a.sampleRate else { return }
            let n = f.sampleCount
            for index in max(n - 2, 0)..<n {
                rolling.append((0..<f.channelCount).map { f.sample(channel: $0, index: index) })
            }
            if rolling.count > 2 { rolling.removeFirst(rolling.count - 2) }
            guard exact, let last = audioLast, let pts = f.pts else { return }
            let start = (Rational(pts) * a.timeBase * Int64(rate)).rounded
            for index in [last - 1, last] where index >= start && index < start + Int64(n) {
                tail[index] = (0..<f.channelCount).map { f.sample(channel: $0, index: Int(index - start)) }
            }
        }
        while try input.read(into: packet) {
            if let d = videoDecoder, packet.streamIndex == d.streamIndex { try d.decode(packet, into: frame, takeVideo) }
            if let d = audioDecoder, packet.streamIndex == d.streamIndex { try d.decode(packet, into: frame, takeAudio) }
        }
        try videoDecoder?.decode(nil, into: frame, takeVideo)
        try audioDecoder?.decode(nil, into: frame, takeAudio)

        var seam = SeamFacts()
        if let first, let last = lastTwo.last {
            seam.videoDifference = last.difference(first)
            seam.videoMotion = lastTwo.count == 2 ? lastTwo[0].difference(last) : 0
        }
        let ending: (before: [Float], end: [Float])? = if exact, let last = audioLast, let end = tail[last], let before = tail[last - 1] {
            (before, end)
        } else if !exact, rolling.count == 2 {
            (rolling[0], rolling[1])
        } else { nil }
        if let head, let (before, end) = ending {
            seam.audioJump = zip(head, zip(before, end)).map { h, t in
                let (first, second) = h, (previous, final) = t
                // Where the wave was heading across the seam: the mean of the slopes on both sides.
                let predicted = final + ((final - previous) + (second - first)) / 2
                return Double(abs(first - predicted))
            }
        }
        return seam
    }
}
