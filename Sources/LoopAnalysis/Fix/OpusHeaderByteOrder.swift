/// An Opus pre-skip no encoder writes (over 80 ms) whose two bytes read the other way round give one every
/// encoder writes (312 from libopus): the MP4 dOps box written little-endian, which its spec says is big-endian
/// (GStreamer 1.22's mp4mux). Players honour the wrong value and skip a third of a second.
package enum OpusHeaderByteOrder {
    /// The pre-skip the bytes say when swapped, where the stored one is implausible and the swapped one is not. Only
    /// an MP4's or MOV's dOps is big-endian: Matroska's and Ogg's OpusHead is little-endian by its own spec, and a
    /// cut's pre-skip there may hide a packet or two before its start (fix writes 6144 for a cut 128 ms in).
    public static func swappedPreSkip(_ track: TrackFacts, in container: Container) -> Int64? {
        guard container.isISO, track.codec == "opus", let stored = track.priming?.samples, stored > 3840,
            stored <= 0xFFFF
        else {
            return nil
        }
        let swapped = (stored & 0xFF) << 8 | stored >> 8
        return swapped <= 3840 ? swapped : nil
    }
}
