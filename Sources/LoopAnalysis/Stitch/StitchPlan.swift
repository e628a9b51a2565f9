import Foundation

/// How one clip passes into the next.
/// A join's picture transition: `none` (a butt join), or any transition FFmpeg 5.1's xfade filter draws, by its
/// name, with loopprep's earlier names kept (crossfade = fade, fade-black = fadeblack, slide-left = slideleft...).
public struct TransitionKind: RawRepresentable, Codable, Sendable, Hashable, CaseIterable {
    public let rawValue: String

    public init?(rawValue: String) {
        guard rawValue == "none" || Self.aliases[rawValue] != nil || Self.xfadeNames.contains(rawValue) else {
            return nil
        }
        self.rawValue = rawValue
    }

    private init(_ name: String) { rawValue = name }

    public static let none = TransitionKind("none")
    public static let crossfade = TransitionKind("crossfade")
    public static let fadeBlack = TransitionKind("fade-black")
    public static let slideLeft = TransitionKind("slide-left"), slideRight = TransitionKind("slide-right")
    public static let slideUp = TransitionKind("slide-up"), slideDown = TransitionKind("slide-down")

    /// loopprep's first names for xfade's transitions (and `slide` alone, a slide to the left).
    static let aliases = [
        "crossfade": "fade", "fade-black": "fadeblack", "slide-left": "slideleft", "slide-right": "slideright",
        "slide-up": "slideup", "slide-down": "slidedown", "slide": "slideleft",
    ]

    /// Every transition FFmpeg 5.1's xfade draws (`ffmpeg -h filter=xfade`; `custom` needs an expression).
    public static let xfadeNames = [
        "fade", "wipeleft", "wiperight", "wipeup", "wipedown", "slideleft", "slideright", "slideup", "slidedown",
        "circlecrop", "rectcrop", "distance", "fadeblack", "fadewhite", "radial", "smoothleft", "smoothright",
        "smoothup",
        "smoothdown", "circleopen", "circleclose", "vertopen", "vertclose", "horzopen", "horzclose", "dissolve",
        "pixelize",
        "diagtl", "diagtr", "diagbl", "diagbr", "hlslice", "hrslice", "vuslice", "vdslice", "hblur", "fadegrays",
        "wipetl",
        "wipetr", "wipebl", "wipebr", "squeezeh", "squeezev", "zoomin", "fadefast", "fadeslow",
    ]

    public static var allCases: [TransitionKind] {
        [.none]
            + ["crossfade", "fade-black", "slide", "slide-left", "slide-right", "slide-up", "slide-down"].map(
                TransitionKind.init)
            + xfadeNames.map(TransitionKind.init)
    }

    /// xfade's name for it (nil: none).
    public var xfade: String? { self == .none ? nil : Self.aliases[rawValue] ?? rawValue }

    /// Who draws a join's window: loopprep itself (a crossfade, blended on the clips' own planes where they are
    /// 8-bit planar YUV) or libavfilter's xfade under its name. A transition loopprep draws is a case here, so the
    /// compiler lists the drawer to write.
    public enum Drawing: Equatable, Sendable {
        case crossfade
        case xfade(String)
    }

    /// How this transition is drawn (none: as a crossfade of no frames).
    public var drawing: Drawing {
        switch xfade {
        case nil, "fade": .crossfade
        case let name?: .xfade(name)
        }
    }

    /// Through black or white: the audio dips through silence rather than crossfading.
    public var dipsAudio: Bool { xfade == "fadeblack" || xfade == "fadewhite" }
}

/// The gain curves of FFmpeg's afade and acrossfade (by their names), for the audio under a transition: the
/// outgoing clip fades out on the curve, the incoming one in. qsin (a quarter sine) keeps the power constant.
public enum FadeCurve: String, Codable, Sendable, CaseIterable {
    case tri, qsin, esin, hsin, log, ipar, qua, cub, squ, cbr, par, exp, iqsin, ihsin, dese, desi, losi, sinc, isinc,
        nofade

    /// The gain at `x` in [0, 1] of a fade in (a fade out is the gain at 1 - x).
    public func gain(_ x: Double) -> Double {
        let g = Swift.min(Swift.max(x, 0), 1)
        switch self {
        case .tri: return g
        case .qsin: return sin(g * .pi / 2)
        case .iqsin: return 2 / Double.pi * asin(g)
        case .esin: return 1 - cos(.pi / 4 * (Foundation.pow(2 * g - 1, 3) + 1))
        case .hsin: return (1 - cos(g * .pi)) / 2
        case .ihsin: return 1 / Double.pi * acos(1 - 2 * g)
        case .exp: return Foundation.exp(5 * Foundation.log(0.1) * (1 - g))
        case .log: return Swift.min(Swift.max(1 + 0.2 * log10(g), 0), 1)
        case .par: return 1 - (1 - g).squareRoot()
        case .ipar: return 1 - (1 - g) * (1 - g)
        case .qua: return g * g
        case .cub: return g * g * g
        case .squ: return g.squareRoot()
        case .cbr: return cbrt(g)
        case .dese: return g <= 0.5 ? cbrt(2 * g) / 2 : 1 - cbrt(2 * (1 - g)) / 2
        case .desi: return g <= 0.5 ? Foundation.pow(2 * g, 3) / 2 : 1 - Foundation.pow(2 * (1 - g), 3) / 2
        case .losi:
            let a = 1 / (1 - 0.787) - 1
            let value = 1 / (1 + Foundation.exp(-(g - 0.5) * a * 2))
            let low = 1 / (1 + Foundation.exp(a))
            let high = 1 / (1 + Foundation.exp(-a))
            return (value - low) / (high - low)
        case .sinc: return g >= 1 ? 1 : sin(.pi * (1 - g)) / (.pi * (1 - g))
        case .isinc: return g <= 0 ? 0 : 1 - sin(.pi * g) / (.pi * g)
        case .nofade: return 1
        }
    }
}

public struct TransitionRequest: Codable, Sendable, Equatable {
    public var kind: TransitionKind
    /// Seconds, as asked; the plan rounds it to whole frames.
    public var duration: Rational
    public init(kind: TransitionKind, duration: Rational) {
        self.kind = kind
        self.duration = duration
    }
}

/// What the timeline needs to know of a clip (after it was cut to its shortest track, as fix does).
package struct StitchClip: Codable, Sendable, Equatable {
    public var path: String
    /// Presented video frames (after in and out points), on the output's frame grid.
    public var frames: Int
    public init(path: String, frames: Int) {
        self.path = path
        self.frames = frames
    }
}

/// A span of the output, in frames and seconds.
public struct Span: Codable, Sendable, Equatable {
    public var startFrame: Int
    public var endFrame: Int
    public var start: Rational
    public var end: Rational
    /// Audio samples [start, end) at the output's sample rate.
    public var startSample: Int64?
    public var endSample: Int64?
}

/// The output's timeline, exact: every clip's and every transition's place, known before anything is rendered.
public struct StitchTimeline: Codable, Sendable, Equatable {
    public struct ClipEntry: Codable, Sendable, Equatable {
        public var path: String
        /// Where the clip is presented (including the transitions it takes part in).
        public var span: Span
    }
    public struct JoinEntry: Codable, Sendable, Equatable {
        public var from: Int
        public var to: Int
        public var kind: TransitionKind
        public var frames: Int
        public var span: Span
    }
    public var frameRate: Rational
    public var sampleRate: Int?
    public var loop: Bool
    public var clips: [ClipEntry]
    public var joins: [JoinEntry]
    public var frames: Int
    public var duration: Rational
    public var samples: Int64?

    /// With --loop, the join from the last clip back into the first (at the end of the file).
    public func isLoopJoin(_ join: JoinEntry) -> Bool { loop && join.to == 0 && join.from == clips.count - 1 }
}

package enum StitchPlanner {
    /// `transitions[j]` joins clip j to clip j+1; with `loop`, the last one joins the last clip to the first.
    public static func timeline(
        _ clips: [StitchClip], transitions: [TransitionRequest], frameRate: Rational, sampleRate: Int?,
        loop: Bool
    ) throws -> StitchTimeline {
        guard !clips.isEmpty else { throw PlanError("nothing to stitch") }
        let joinCount = loop ? clips.count : clips.count - 1
        guard transitions.count == joinCount else {
            throw PlanError("\(joinCount) joins need \(joinCount) transitions, got \(transitions.count)")
        }
        guard frameRate.numerator > 0 else { throw PlanError("no frame rate") }
        // Transition lengths in whole frames (the audio follows the video's exact time).
        let lengths = try transitions.enumerated().map { j, t -> Int in
            guard t.kind != .none else { return 0 }
            let n = Int((t.duration * frameRate).rounded)
            guard n >= 1 else { throw PlanError("transition \(j + 1) (\(t.kind.rawValue)) is shorter than one frame") }
            return n
        }
        // A clip must outlast what its transitions take from it.
        for (i, clip) in clips.enumerated() {
            let incoming = i > 0 ? lengths[i - 1] : (loop ? lengths[joinCount - 1] : 0)
            let outgoing = i < joinCount ? lengths[i] : 0
            guard clip.frames > incoming + outgoing else {
                throw PlanError("\(clip.path) has \(clip.frames) frames; its transitions take \(incoming + outgoing)")
            }
        }
        func seconds(_ frame: Int) -> Rational { Rational(Int64(frame)) / frameRate }
        func sample(_ frame: Int) -> Int64? { sampleRate.map { (seconds(frame) * Int64($0)).rounded } }
        func span(_ a: Int, _ b: Int) -> Span {
            Span(
                startFrame: a, endFrame: b, start: seconds(a), end: seconds(b), startSample: sample(a),
                endSample: sample(b))
        }
        // Clip i starts where clip i-1 ends minus their transition; with a loop, the first clip's opening is
        // consumed by the wrap-around at the end, so output frame 0 is its frame `lengths.last`.
        var entries: [StitchTimeline.ClipEntry] = []
        var joins: [StitchTimeline.JoinEntry] = []
        var at = loop ? -lengths[joinCount - 1] : 0
        for (i, clip) in clips.enumerated() {
            let start = at
            let end = at + clip.frames
            entries.append(.init(path: clip.path, span: span(max(start, 0), end)))
            if i < clips.count - 1 {
                joins.append(
                    .init(
                        from: i, to: i + 1, kind: transitions[i].kind, frames: lengths[i],
                        span: span(end - lengths[i], end)))
            }
            at = end - (i < clips.count - 1 ? lengths[i] : 0)
        }
        // The file ends where the last clip does. With a loop, the wrap-around transition is the last clip's
        // last frames blended with the first clip's opening frames (which the file therefore never shows first).
        let total = at
        if loop {
            let t = lengths[joinCount - 1]
            joins.append(
                .init(
                    from: clips.count - 1, to: 0, kind: transitions[joinCount - 1].kind, frames: t,
                    span: span(total - t, total)))
        }
        let frames = total
        return StitchTimeline(
            frameRate: frameRate, sampleRate: sampleRate, loop: loop, clips: entries, joins: joins, frames: frames,
            duration: seconds(frames), samples: sample(frames))
    }
}
