import LoopAnalysis
import LoopIndex

/// What an importer reads from: the demuxer (opened, not yet read), loopprep's own ISO index when the file is
/// MP4/MOV, and every stream's basics.
struct ImportSource {
    let input: InputFile
    let index: ISOFile?
    let basics: [TrackBasics]

    /// The audio and video streams (the ones a timeline is made for).
    var mediaStreams: Set<Int> { Set(basics.filter { $0.kind == .video || $0.kind == .audio }.map(\.index)) }
    var allStreams: Set<Int> { Set(basics.map(\.index)) }
}

/// One normalized timeline per track: decode order, the track's own ticks, edits and skips as the container
/// signals them, every container quirk already read.
struct Imported {
    var timelines: [Int: TrackTimeline]
    /// Where the file's 0 lies on a clock that starts anywhere (MPEG-TS, -PS, FLV); nil: at 0.
    var clockOrigin: Rational?
    /// Packets were read to make them (the demuxer is no longer at the start).
    var readPackets: Bool
}

/// One importer per container family (L-SMASH's importer-per-format layout), behind one interface: each turns
/// what its container stores into one normalized timeline per track.
protocol TimelineImporter {
    /// Whether it reads files FFmpeg opens with this demuxer ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"...).
    static func reads(_ demuxer: String) -> Bool
    static func timelines(_ source: ImportSource) throws -> Imported
}

enum Importers {
    /// In order; the last reads anything.
    static var all: [any TimelineImporter.Type] {
        [
            MP4Import.self, MatroskaImport.self, OggImport.self, ClockedStreamImport.self, MP3Import.self,
            PacketImport.self,
        ]
    }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let demuxer = source.input.formatName
        let importer = all.first { $0.reads(demuxer) } ?? PacketImport.self
        return try importer.timelines(source)
    }
}

/// Any container FFmpeg reads (WAV, FLAC, AVI, ADTS AAC...): the packet headers as they are.
enum PacketImport: TimelineImporter {
    static func reads(_ demuxer: String) -> Bool { true }

    static func timelines(_ source: ImportSource) throws -> Imported {
        let scan = try PacketScan.read(source.input, streams: source.allStreams, basics: source.basics)
        return Imported(
            timelines: PacketScan.timelines(scan, basics: source.basics), clockOrigin: nil, readPackets: true)
    }
}
