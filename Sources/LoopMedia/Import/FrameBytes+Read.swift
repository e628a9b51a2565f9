import LoopAnalysis

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
        let input = try InputFile(path: result.facts.path)
        let packet = try Packet()
        var seen = 0
        while try input.read(into: packet) {
            guard packet.streamIndex == index else { continue }
            if seen == n { return packet.withBytes { Array($0) } }
            seen += 1
        }
        return nil
    }

    static func extradata(_ path: String, track index: Int) -> [UInt8]? {
        (try? InputFile(path: path))?.extradata(index)
    }
}
