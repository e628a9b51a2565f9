/// An Opus pre-skip no encoder writes (over 80 ms) whose two bytes read the other way round give one every
/// encoder writes (312 from libopus): the MP4 dOps box written little-endian, which its spec says is big-endian
/// (GStreamer 1.22's mp4mux). Players honour the wrong value and skip a third of a second.
package enum OpusHeaderByteOrder {
    /// The pre-skip the bytes say when swapped, where the stored one is implausible and the swapped one is not.
    public static func swappedPreSkip(_ track: TrackFacts) -> Int64? {
        guard track.codec == "opus", let stored = track.priming?.samples, stored > 3840, stored <= 0xFFFF else {
            return nil
        }
        let swapped = (stored & 0xFF) << 8 | stored >> 8
        return swapped <= 3840 ? swapped : nil
    }
}
