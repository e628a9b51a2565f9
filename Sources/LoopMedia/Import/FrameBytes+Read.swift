import LoopAnalysis
import LoopIndex

/// One stored frame's bytes, from wherever the file keeps them: an MP4/MOV sample's place in the index, or
/// the n-th packet FFmpeg reads of the stream (the probe's packet timelines are in that order).
extension FrameBytes {
    static func read(_ result: Probe.Result, track index: Int, sample n: Int) throws -> [UInt8]? {
        if let iso = result.iso {
            guard let id = result.facts.tracks.first(where: { $0.index == index })?.trackID, let track = iso.tracks[id],
                n < track.locations.count
            else { return nil }
            return try ISOFile.bytes(result.facts.path, track.locations[n])
        }
        return try packet(n, of: index, in: result.facts.path)?.bytes
    }

    /// The n-th packet FFmpeg reads of stream `index`, with the stream's codec configuration (its NAL lengths).
    static func packet(_ n: Int, of index: Int, in path: String) throws -> (bytes: [UInt8], extradata: [UInt8]?)? {
        let input = try InputFile(path: path)
        let packet = try Packet()
        var seen = 0
        while try input.read(into: packet) {
            guard packet.streamIndex == index else { continue }
            if seen == n { return (packet.withBytes { Array($0) }, input.extradata(index)) }
            seen += 1
        }
        return nil
    }

    /// The codec configuration a frame's NAL lengths are read with (H.264 and HEVC; nil for the others, which
    /// need none): from the sample entry's avcC or hvcC where the index was read (FFmpeg is not opened for it),
    /// else from FFmpeg's reading of the stream.
    static func extradata(_ result: Probe.Result, track index: Int) -> [UInt8]? {
        guard let track = result.facts.tracks.first(where: { $0.index == index }),
            track.codec == "h264" || track.codec == "hevc"
        else { return nil }
        if let iso = result.iso {
            guard let id = track.trackID, let isoTrack = iso.tracks[id], let entry = iso.sampleEntry(of: isoTrack)
            else { return nil }
            return ISOFile.codecConfiguration(entry, type: track.codec == "h264" ? "avcC" : "hvcC")
        }
        return (try? InputFile(path: result.facts.path))?.extradata(index)
    }
}
