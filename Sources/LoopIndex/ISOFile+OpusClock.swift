import LoopAnalysis

extension ISOFile {
    /// Opus tracks whose stored durations are not what their packets decode to (a recorder's capture clock: a
    /// browser's MediaRecorder writes each 20-60 ms packet's capture step, and guesses each fragment's last), laid
    /// end to end by the lengths their TOC bytes give (SampleClock), as every decoder plays them. A track whose
    /// durations before the last are all one length is left as stored (a muxer's shorter last packet is its own to
    /// say): no packet is read for it.
    mutating func layOpusOnSampleClock(_ file: any ByteSource, fileSize: Int64) throws {
        let candidates = tracks.filter { _, track in
            track.header?.entry.map { $0.count >= 8 && FourCC(bytes: $0[4..<8]) == "Opus" } == true
                && Set(track.timeline.samples.dropLast().map(\.duration)).count > 1
        }
        guard !candidates.isEmpty else { return }
        // The samples' places, where this reading did not keep them.
        let placed = candidates.allSatisfy { $0.value.locations.count == $0.value.timeline.samples.count }
        let located = placed ? self : try ISOFile.tables(file, fileSize: fileSize, locations: true)
        for (id, track) in candidates {
            guard let places = located?.tracks[id]?.locations, places.count == track.timeline.samples.count else {
                continue
            }
            let lengths = try places.map { place in
                let toc = try file.read(at: place.offset, count: Int(min(place.size, 2)))
                return toc.withUnsafeBufferPointer(Opus.samples)
            }
            if let laid = SampleClock.laid(track.timeline, lengths: lengths, rate: Opus.rate) {
                tracks[id]?.timeline = laid
            }
        }
    }
}
