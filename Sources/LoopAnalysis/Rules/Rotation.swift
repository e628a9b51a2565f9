/// `rotation`: informational. A display matrix rotates the picture at playback; players honour it, but a
/// pipeline that ignores it shows the clip sideways.
public struct Rotation: Rule {
    public let ids: [RuleID] = [.rotation]
    public init() {}

    public func check(_ clip: ClipFacts, _ options: AnalysisOptions) -> [Finding] {
        clip.videoTracks.compactMap { track in
            guard let degrees = track.rotation, degrees != 0 else { return nil }
            return Finding(
                rule: ids[0], severity: .info, track: track.index,
                message: "\(Figures.trackName(track)) is displayed rotated \(Self.describe(degrees)) (display matrix)",
                hint: "nothing to do unless your player ignores display matrices",
                figures: ["degrees": Double(degrees)])
        }
    }

    /// `degrees` is clockwise; ffprobe prints the counter-clockwise angle, so say both ways where it helps.
    public static func describe(_ degrees: Int) -> String {
        switch degrees {
        case 90: "90° clockwise"
        case 180: "180°"
        case 270: "90° counter-clockwise"
        default: "\(degrees)° clockwise"
        }
    }
}
