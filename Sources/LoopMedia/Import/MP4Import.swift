import LoopAnalysis
import LoopIndex

/// MP4 and MOV: the index loopprep reads itself (sample tables, fragments, edit lists as stored; FFmpeg's mov
/// demuxer applies edit lists, shifts decode times by negative composition offsets and loses trun durations),
/// with iTunSMPB read as the edit it describes. A stream the index does not describe is scanned.
enum MP4Import: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { demuxer.hasPrefix("mov,") }

    static func timelines(_ source: ImportSource) throws -> Imported {
        var timelines: [Int: TrackTimeline] = [:]
        if let iso = source.index { timelines = IndexReading.timelines(iso, basics: source.basics) }
        let missing = source.allStreams.filter { timelines[$0] == nil }
        guard !missing.isEmpty else { return Imported(timelines: timelines, clockOrigin: nil, readPackets: false) }
        let scan = try PacketScan.read(source.input, streams: missing, basics: source.basics)
        timelines.merge(PacketScan.timelines(scan, basics: source.basics)) { a, _ in a }
        return Imported(timelines: timelines, clockOrigin: nil, readPackets: true)
    }
}
