import CFFmpeg
import LoopIndex

/// Owns FFmpeg's public Vorbis packet parser (libavcodec/vorbis_parser.h): each packet's length in samples from
/// its block size and the one before it, as the decoder will put them out. Matroska gives Vorbis blocks only
/// whole-millisecond times, and Vorbis's short and long blocks make the steps between them uneven.
final class VorbisParser {
    private var context: OpaquePointer?

    /// nil when the stream's setup headers (the codec's extradata) cannot be parsed.
    init?(extradata: [UInt8]) {
        context = extradata.withUnsafeBufferPointer { b in
            b.baseAddress.flatMap { av_vorbis_parse_init($0, Int32(b.count)) }
        }
        if context == nil { return nil }
    }

    deinit { av_vorbis_parse_free(&context) }

    /// The samples `packet` decodes to (the first packet's is the warm-up's, which puts out nothing; an empty
    /// packet's are none); nil for a packet that is not audio.
    func samples(_ packet: Packet) -> Int64? {
        guard let context else { return nil }
        if packet.size == 0 { return 0 }
        let n = packet.withBytes { b in b.baseAddress.map { av_vorbis_parse_frame(context, $0, Int32(b.count)) } }
        return n.flatMap { $0 > 0 ? Int64($0) : nil }
    }
}
