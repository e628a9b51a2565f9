import Foundation
import LoopAnalysis
import LoopIndex

/// Whether a browser can loop an output through Media Source Extensions, decided from its plan before anything is
/// written (fix's plan, loop's cut, stitch's reel and loop's blend alike): browsers append only ISO files (MP4, MOV)
/// and WebM, each with the codecs they take in it. What only the written file can show (frames stored after the
/// loop's last) is said after the write.
public enum WebPlayerEligibility {
    /// nil: go; else the refusal, its sentence ending with what to do (`remedy`: "fix it with --to mp4").
    public static func refusal(_ plan: FixPlan, remedy: String) -> Refusal? {
        guard let path = plan.outputPath else { return nil }
        if let refused = containerRefusal(path, remedy: remedy) { return refused }
        return codecRefusal(path, tracks: plan.tracks.map { ($0.kind, $0.index, $0.codec) })
    }

    /// A stitch's reel (loop's blend is one): its container by name, its tracks (kind, index, codec) from its plan.
    public static func refusal(
        reel path: String, tracks: [(kind: TrackKind, index: Int, codec: String)], remedy: String
    ) -> Refusal? {
        containerRefusal(path, remedy: remedy) ?? codecRefusal(path, tracks: tracks)
    }

    /// The first track (kind, index, codec) browsers do not take in the output's container, in words.
    public static func codecRefusal(_ path: String, tracks: [(kind: TrackKind, index: Int, codec: String)]) -> Refusal?
    {
        guard let container = Container(extension: (path as NSString).pathExtension) else { return nil }
        let webm = container == .webm
        guard let refused = tracks.first(where: { !CodecStrings.takes($0.codec, webm: webm) }) else { return nil }
        return .webPlayer(
            .codec(
                kind: refused.kind, index: refused.index, codec: refused.codec, container: container,
                takes: CodecStrings.webPlayerTakes))
    }

    /// The container half, from the output's name alone (checked before any work): nil for an MP4, a MOV or a
    /// WebM.
    public static func containerRefusal(_ path: String, remedy: String) -> Refusal? {
        let container = Container(extension: (path as NSString).pathExtension)
        guard container != .webm, container?.isISO != true else { return nil }
        return .webPlayer(.container(file: (path as NSString).lastPathComponent, remedy: remedy))
    }
}
