/// How one clip passes into the next.
public enum TransitionKind: String, Codable, Sendable, CaseIterable {
    case none, crossfade
    case fadeBlack = "fade-black"
    case slideLeft = "slide-left", slideRight = "slide-right", slideUp = "slide-up", slideDown = "slide-down"
}

public struct TransitionRequest: Codable, Sendable, Equatable {
    public var kind: TransitionKind
    /// Seconds, as asked; the plan rounds it to whole frames.
    public var duration: Rational
    public init(kind: TransitionKind, duration: Rational) { self.kind = kind; self.duration = duration }
}

/// What the timeline needs to know of a clip (after it was cut to its shortest track, as fix does).
public struct StitchClip: Codable, Sendable, Equatable {
    public var path: String
    /// Presented video frames (after in and out points), on the output's frame grid.
    public var frames: Int
    public init(path: String, frames: Int) { self.path = path; self.frames = frames }
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
}

public enum StitchPlanner {
    /// `transitions[j]` joins clip j to clip j+1; with `loop`, the last one joins the last clip to the first.
    public static func timeline(_ clips: [StitchClip], transitions: [TransitionRequest], frameRate: Rational, sampleRate: Int?,
                                loop: Bool) throws -> StitchTimeline {
        guard !clips.isEmpty else { throw PlanError("nothing to stitch") }
        let joinCount = loop ? clips.count : clips.count - 1
        guard transitions.count == joinCount else { throw PlanError("\(joinCount) joins need \(joinCount) transitions, got \(transitions.count)") }
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
            Span(startFrame: a, endFrame: b, start: seconds(a), end: seconds(b), startSample: sample(a), endSample: sample(b))
        }
        // Clip i starts where clip i-1 ends minus their transition; with a loop, the first clip's opening is
        // consumed by the wrap-around at the end, so output frame 0 is its frame `lengths.last`.
        var entries: [StitchTimeline.ClipEntry] = []
        var joins: [StitchTimeline.JoinEntry] = []
        var at = loop ? -lengths[joinCount - 1] : 0
        for (i, clip) in clips.enumerated() {
            let start = at, end = at + clip.frames
            entries.append(.init(path: clip.path, span: span(max(start, 0), end)))
            if i < clips.count - 1 {
                joins.append(.init(from: i, to: i + 1, kind: transitions[i].kind, frames: lengths[i], span: span(end - lengths[i], end)))
            }
            at = end - (i < clips.count - 1 ? lengths[i] : 0)
        }
        // The file ends where the last clip does. With a loop, the wrap-around transition is the last clip's
        // last frames blended with the first clip's opening frames (which the file therefore never shows first).
        let total = at
        if loop {
            let t = lengths[joinCount - 1]
            joins.append(.init(from: clips.count - 1, to: 0, kind: transitions[joinCount - 1].kind, frames: t, span: span(total - t, total)))
        }
        let frames = total
        return StitchTimeline(frameRate: frameRate, sampleRate: sampleRate, loop: loop, clips: entries, joins: joins, frames: frames,
                              duration: seconds(frames), samples: sample(frames))
    }
}
