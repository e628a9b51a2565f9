import Foundation
import LoopAnalysis
import LoopIndex

/// A QuickTime timecode sample description ('tmcd'): its frame rate, as timescale and frame duration, and how its
/// samples' frame numbers read as a time of day.
struct TimecodeFormat {
    var timescale: Int64
    var frameDuration: Int64
    /// The sample holds a 32-bit frame number unless the counter flag says it counts something else.
    var isFrameNumber: Bool
    /// Frames a second as the timecode counts them (30 for 29.97), and whether it drops frame numbers to keep to
    /// the clock (29.97's drop-frame timecode: two numbers a minute, but every tenth minute).
    var framesPerSecond: Int
    var dropFrame: Bool

    init?(_ entry: [UInt8]?) {
        guard let entry, entry.count >= 34, FourCC(bytes: entry[4..<8]) == "tmcd" else { return nil }
        var r = ByteReader(entry, from: 8 + 6 + 2 + 4, to: entry.count)  // header, reserved, data reference, reserved
        let flags = r.u32()
        timescale = Int64(r.u32())
        frameDuration = Int64(r.u32())
        framesPerSecond = Int(r.u8())
        isFrameNumber = flags & 0x8 == 0
        dropFrame = flags & 0x1 != 0
        guard timescale > 0, frameDuration > 0 else { return nil }
    }

    /// The sample's frame number moved on by `seconds` (whole frames).
    func advance(_ sample: [UInt8], by seconds: Rational) -> [UInt8]? {
        guard isFrameNumber, sample.count >= 4 else { return nil }
        var r = ByteReader(sample, from: 0, to: 4)
        let frames = (seconds * Rational(timescale, frameDuration)).floor
        return be32(r.u32() &+ UInt32(truncatingIfNeeded: frames)) + Array(sample[4...])
    }

    /// The sample's frame number as a timecode, HH:MM:SS:FF (HH:MM:SS;FF dropping frames), as FFmpeg writes it.
    func text(_ sample: [UInt8]) -> String? {
        guard isFrameNumber, sample.count >= 4, framesPerSecond > 0 else { return nil }
        var r = ByteReader(sample, from: 0, to: 4)
        let fps = framesPerSecond
        var n = Int(r.u32())
        // Drop-frame: the numbers skipped are put back, so the count reads as the clock's.
        if dropFrame, fps % 30 == 0 {
            let dropped = fps / 15
            let perMinute = fps * 60 - dropped
            let perTen = fps * 600 - 9 * dropped
            let (tens, rest) = n.quotientAndRemainder(dividingBy: perTen)
            n += 9 * dropped * tens + (rest > dropped ? dropped * ((rest - dropped) / perMinute) : 0)
        }
        let (seconds, frames) = n.quotientAndRemainder(dividingBy: fps)
        let clock = [seconds / 3600 % 24, seconds / 60 % 60, seconds % 60].map { String(format: "%02d", $0) }
        return clock.joined(separator: ":") + (dropFrame ? ";" : ":") + String(format: "%02d", frames)
    }
}

extension ISOFile {
    /// A timecode track's start as its first sample says it (the frame number as HH:MM:SS:FF); nil for another
    /// track, or one whose sample cannot be read.
    func timecode(trackID: Int, path: String) -> String? {
        guard let track = tracks.values.first(where: { $0.trackID == trackID && $0.handler == "tmcd" }),
            let location = track.locations.first, let format = TimecodeFormat(track.header?.entry),
            let sample = try? Self.bytes(path, location)
        else { return nil }
        return format.text(sample)
    }
}

extension ISOFile {
    /// The output's start timecode: the source's first timecode track's sample moved on by the frames cut before
    /// the plan's start, as the index writer moves it (ISOCut.retimed) and FFmpeg's muxer is told to (Remuxer); nil
    /// where there is none.
    func startTimecode(_ facts: ClipFacts, plan: FixPlan) -> String? {
        guard let track = facts.tracks.first(where: { $0.timecode != nil }), let id = track.trackID,
            let box = tracks[id], box.handler == "tmcd", let location = box.locations.first,
            let format = TimecodeFormat(sampleEntry(of: box)), let sample = try? Self.bytes(facts.path, location),
            let moved = format.advance(sample, by: Rational.max(.zero, plan.start - track.startSeconds))
        else { return nil }
        return format.text(moved)
    }
}
