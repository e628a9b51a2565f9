import Foundation
import LoopRangeValues

/// What stitch is asked to do: the clips in order (each with optional in and out points), the transition at
/// every join, and where to write (nil: a dry run, the plan only).
public struct StitchRequest: Sendable {
    public struct Clip: Sendable, Equatable {
        public var path: String
        /// Seconds into the clip (after its cut to the shortest track), rounded to frames.
        public var inPoint: Rational?
        public var outPoint: Rational?
        public init(path: String, inPoint: Rational? = nil, outPoint: Rational? = nil) {
            self.path = path
            self.inPoint = inPoint
            self.outPoint = outPoint
        }
    }

    public var clips: [Clip]
    /// `transitions[j]` joins clip j to clip j + 1; with `loop`, the last one joins the last clip to the first.
    public var transitions: [TransitionRequest]
    public var loop: Bool
    /// Re-encode every clip to the first clip's format instead of refusing clips that differ.
    public var normalize = false
    /// With `normalize`: the codec to encode in, where it is not the first clip's.
    public var codec: String?
    public var audioCurve = FadeCurve.qsin
    /// The file to write; nil: a dry run.
    public var output: String?
    /// A dry run's output name: its container decides what the write would refuse, said by the dry run too.
    public var named: String?
    /// Replace an existing output.
    public var force = false
    /// How the output is analyzed (its target: a WebM is meant for browsers).
    public var analysis = AnalysisOptions()
    /// A web player is asked for beside the output: what to do instead where the plan shows it cannot have one, said
    /// before anything is written (nil: none asked).
    public var webPlayerRemedy: String?

    public init(clips: [Clip], transitions: [TransitionRequest], loop: Bool, output: String?) {
        self.clips = clips
        self.transitions = transitions
        self.loop = loop
        self.output = output
    }
}

/// What stitch did: the timeline it planned, the clips it re-encodes whole, and the output's facts and
/// findings, or why it could not be written. The library's working value; reports carry it as the reel's record
/// (`record`), one file in every command's report.
public struct StitchReport: Sendable {
    public var output: String?
    /// What the reel is made of: its timeline, the plan carried out (a dry run: the plan `loopprep apply` carries
    /// out later; nil where none was made, the clips' refusal), the clips re-encoded whole and what it left out.
    public var reel: ReelRecord
    public var facts: ClipFacts?
    public var findings: [Finding] = []
    /// What the description of the written output says of itself, as analyze's does: its seam not measured
    /// (`--no-seam`, or FFmpeg could not decode its ends).
    public var notes: [String]?
    /// The written reel's loop range, as analyze gives it (or why none makes it loop).
    public var loopRange: LoopRange?
    public var loopRangeReason: String?
    /// Why the reel was not written once planned.
    public var refusal: Refusal?
    /// `--web-player`: the page, manifest and media written beside the output.
    public var webPlayer: WebPlayerOutput?
    /// Why `--web-player` wrote no web player beside a written output (the run fails). (A reel refused for its web
    /// player before writing has that refusal as `refusal`.)
    public var webPlayerRefusal: Refusal?
    /// A dry run: the output it would write (nil where none was named).
    public var planned: String?
    /// `loopprep apply`: the output was there already, byte for byte what the plan writes: kept, not written again.
    public var alreadyWritten: Bool?

    /// `planned`: the output named; a dry run's (no `output`) would be written there.
    public init(output: String?, timeline: StitchTimeline, planned: String? = nil) {
        self.output = output
        reel = ReelRecord(timeline: timeline)
        self.planned = output == nil ? planned : nil
    }

    /// What stitch did, in every command's words.
    public var outcome: Outcome {
        // (A dry run refused names the output it would have written, as the write does.)
        if let refusal = refusal ?? webPlayerRefusal {
            return .refused(refusal, output: output ?? planned)
        }
        if alreadyWritten == true { return .unchanged(output: output) }
        return output == nil ? .planned(output: planned) : .written(output: output)
    }

    /// The reel as every command's report gives a file (`files[0]`): named by its output (or the output a dry run
    /// would write), the written reel's facts, findings and loop range, what stitch did with it (`fix`: planned,
    /// written, kept or refused, its web player) and what it is made of (`reel`: the timeline, the plan carried
    /// out, what was re-encoded or left out).
    public var record: FileReport {
        let outcome = self.outcome
        let status: FixStatus =
            switch outcome {
            case .planned: .planned
            case .written: .fixed
            case .unchanged: .unchanged
            case .refused, .unreadable: .failed
            }
        var fix = FixOutcome(status: status, output: outcome.output, refusal: outcome.refusal)
        (fix.webPlayer, fix.alreadyWritten) = (webPlayer, alreadyWritten)
        var file = FileReport(
            path: outcome.output ?? ReelRecord.unnamed, facts: facts, findings: findings, fix: fix)
        file.notes = notes
        (file.loopRange, file.loopRangeReason) = (loopRange, loopRangeReason)
        file.reel = reel
        return file
    }
}

/// What a stitch's reel is made of, on its record in the report (beside the reel's facts and outcome): the timeline,
/// the plan carried out (`files[].plan`, what `loopprep apply` carries out), the clips re-encoded whole and what the
/// reel could not keep, each said.
public struct ReelRecord: Codable, Sendable, Equatable {
    public var timeline: StitchTimeline
    public var plan: StitchPlanValue?
    /// Clips re-encoded whole rather than copied, each with why.
    public var reencoded: [String] = []
    /// Audio tracks not joined because not every clip has them (SharedAudio), each said.
    public var audioLeftOut: [String] = []
    /// The clips' tracks that are neither audio nor video (telemetry, timecode, text), none of which a reel holds,
    /// each said (DataLeftOut).
    public var dataLeftOut: [String] = []
    /// --normalize: clips whose pictures were converted to the first clip's colour, each with from what.
    public var colourConverted: [String] = []
    /// --normalize: clips whose pictures were turned to show as the first clip's are (a landscape clip in a phone's
    /// portrait reel), each with how far.
    public var turned: [String] = []
    /// What of the first clip's metadata the reel's container has no place for (a Matroska or WebM reel of MP4 or
    /// MOV clips: XMP, a camera maker's boxes, the display matrix), said.
    public var metadataLeftOut: [String] = []

    /// The record's name in a dry run that names no output.
    public static let unnamed = "(dry run)"

    enum CodingKeys: String, CodingKey {
        case timeline, plan, reencoded, audioLeftOut, dataLeftOut, colourConverted, turned, metadataLeftOut
    }

    /// On the file's own level (the file's `plan` is this plan); `turned` only where a clip was turned.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timeline, forKey: .timeline)
        try c.encodeIfPresent(plan, forKey: .plan)
        try c.encode(reencoded, forKey: .reencoded)
        try c.encode(audioLeftOut, forKey: .audioLeftOut)
        try c.encode(dataLeftOut, forKey: .dataLeftOut)
        try c.encode(colourConverted, forKey: .colourConverted)
        if !turned.isEmpty { try c.encode(turned, forKey: .turned) }
        try c.encode(metadataLeftOut, forKey: .metadataLeftOut)
    }
}

extension ReelRecord {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timeline = try c.decode(StitchTimeline.self, forKey: .timeline)
        plan = try c.decodeIfPresent(StitchPlanValue.self, forKey: .plan)
        for (key, path) in [
            (CodingKeys.reencoded, \ReelRecord.reencoded), (.audioLeftOut, \.audioLeftOut),
            (.dataLeftOut, \.dataLeftOut),
            (.colourConverted, \.colourConverted), (.turned, \.turned), (.metadataLeftOut, \.metadataLeftOut),
        ] {
            self[keyPath: path] = try c.decodeIfPresent([String].self, forKey: key) ?? []
        }
    }
}

/// Each clip's and transition's place in the output, in seconds and frames (`stitch --manifest`).
public struct StitchManifest: Encodable, Sendable {
    public struct Entry: Encodable, Sendable {
        public var start: Double
        public var end: Double
        public var startFrame: Int
        public var endFrame: Int
    }
    public struct ClipItem: Encodable, Sendable {
        public var path: String
        public var place: Entry
    }
    public struct JoinItem: Encodable, Sendable {
        public var from: String
        public var to: String
        public var kind: TransitionKind
        public var frames: Int
        public var place: Entry
    }
    public var schemaVersion = 1
    public var tool = "loopprep"
    public var version = Report.toolVersion
    public var output: String?
    public var frameRate: Rational
    public var frames: Int
    public var duration: Double
    public var loop: Bool
    public var clips: [ClipItem]
    public var transitions: [JoinItem]

    public init(_ t: StitchTimeline, output: String?) {
        func entry(_ s: Span) -> Entry {
            Entry(start: s.start.doubleValue, end: s.end.doubleValue, startFrame: s.startFrame, endFrame: s.endFrame)
        }
        self.output = output
        frameRate = t.frameRate
        frames = t.frames
        duration = t.duration.doubleValue
        loop = t.loop
        clips = t.clips.map { ClipItem(path: $0.path, place: entry($0.span)) }
        transitions = t.joins.map {
            JoinItem(
                from: t.clips[$0.from].path, to: t.clips[$0.to].path, kind: $0.kind, frames: $0.frames,
                place: entry($0.span))
        }
    }
}

/// A JSON playlist: `{"clips": [{"path": "a.mp4", "in": 1.0, "out": 4.5, "transition": {"type": "crossfade",
/// "duration": 0.5}}], "loop": false}`. Its numbers are read as the decimals written (1.005 s is 1005 ms).
public struct Playlist: Decodable, Sendable {
    /// A time as the command line reads one: a number of seconds as written, or a string of
    /// seconds, milliseconds or frames ("0.5", "0.5s", "500ms", "12f").
    public struct Time: Decodable, Sendable, Equatable {
        public var amount: TimeAmount

        public init(_ amount: TimeAmount) { self.amount = amount }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let number = try? c.decode(Decimal.self) {
                guard let seconds = Rational(decimal: number) else {
                    throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(number) is not a time")
                }
                amount = .seconds(seconds)
            } else if let text = try? c.decode(String.self), let parsed = TimeAmount(text) {
                amount = parsed
            } else {
                throw DecodingError.dataCorruptedError(
                    in: c, debugDescription: "a time is seconds (0.5) or a string: \"0.5s\", \"500ms\", \"12f\"")
            }
        }

        /// Seconds, frames counted at `frameRate` (nil: frames without a rate).
        func seconds(_ frameRate: Rational?) -> Rational? { amount.seconds(frameRate: frameRate) }
    }

    public struct Clip: Decodable, Sendable {
        public struct Transition: Decodable, Sendable {
            public var type: TransitionKind
            public var duration: Time?
        }
        public var path: String
        public var transition: Transition?
        public var `in`: Time?
        public var out: Time?
    }
    public var clips: [Clip]
    public var loop: Bool?

    /// Parses and checks a playlist; every problem is one line (without the playlist's name: the caller adds it).
    public static func parse(_ data: Data) throws -> Playlist {
        let list: Playlist
        do { list = try JSONDecoder().decode(Playlist.self, from: data) } catch {
            throw PlanError("not a playlist (\(describe(error)))")
        }
        guard !list.clips.isEmpty else { throw PlanError("the playlist has no clips") }
        for (i, clip) in list.clips.enumerated() {
            // (Frames are compared once counted at the clip's rate: `request`.)
            if let a = clip.in?.seconds(nil), let b = clip.out?.seconds(nil), a >= b {
                throw PlanError("clip \(i + 1) (\(clip.path)) has its in point at or after its out point")
            }
            if let a = clip.in?.seconds(nil), a < .zero {
                throw PlanError("clip \(i + 1) (\(clip.path)) has a negative in point")
            }
            switch clip.transition?.duration?.amount {
            case .seconds(let d) where !(d > .zero && d <= Rational(60)):
                throw PlanError("clip \(i + 1): transition duration must be between 0 and 60 s")
            case .frames(let n) where n < 1:
                throw PlanError("clip \(i + 1): transition duration must be at least one frame")
            default: break
            }
        }
        return list
    }

    /// The request it makes, its clips' paths relative to `base` (the playlist's folder); a join without a
    /// transition takes `transition`; the command line's `loop` unless the playlist says.
    /// `frameRate`: a clip's frame rate by its full path, for times given in frames (a transition's at the clip
    /// it leaves); a time in frames where it is unknown is refused.
    public func request(
        base: String, transition: TransitionRequest, loop: Bool, frameRate: (String) -> Rational? = { _ in nil }
    ) throws -> StitchRequest {
        let looping = self.loop ?? loop
        let joins = looping ? clips.count : clips.count - 1
        let paths = clips.map { clip in
            clip.path.hasPrefix("/") || base.isEmpty ? clip.path : (base as NSString).appendingPathComponent(clip.path)
        }
        func seconds(_ time: Time?, clip i: Int, what: String) throws -> Rational? {
            guard let time else { return nil }
            // (The clip's rate is asked for only where a time is in frames: finding it reads the clip.)
            guard let s = time.amount.fixedSeconds ?? time.seconds(frameRate(paths[i])) else {
                throw PlanError(
                    """
                    clip \(i + 1) (\(clips[i].path)): its \(what) is in frames and its frame rate is unknown; give \
                    seconds
                    """)
            }
            return s
        }
        let transitions = try (0..<joins).map { j in
            try clips[j].transition.map {
                TransitionRequest(
                    kind: $0.type,
                    duration: try seconds($0.duration, clip: j, what: "transition duration") ?? transition.duration)
            } ?? transition
        }
        let entries = try clips.indices.map { i in
            let (a, b) = (
                try seconds(clips[i].in, clip: i, what: "in point"),
                try seconds(clips[i].out, clip: i, what: "out point")
            )
            if let a, let b, a >= b {
                throw PlanError("clip \(i + 1) (\(clips[i].path)) has its in point at or after its out point")
            }
            return StitchRequest.Clip(path: paths[i], inPoint: a, outPoint: b)
        }
        return StitchRequest(clips: entries, transitions: transitions, loop: looping, output: nil)
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.debugDescription
        case DecodingError.keyNotFound(let k, _): return "missing \"\(k.stringValue)\""
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "wrong value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "\(error)"
        }
    }
}

extension Rational {
    /// A decimal number exactly (Decimal keeps the digits a JSON number was written with).
    public init?(decimal value: Decimal) { self.init(decimal: "\(value)") }
}
