import Foundation
import Testing

@testable import LoopAnalysis

/// The container as a type: one case and one row each; in a report, its short name as before.
@Suite struct ContainerValueTests {
    /// Every case's name reads back as itself, and any other FFmpeg demuxer name is kept as it is.
    @Test func namesRoundTrip() throws {
        let all: [Container] = [
            .mp4, .mov, .matroska, .webm, .ogg, .mpegts, .mpegps, .flv, .avi, .wav, .flac, .mp3, .aiff, .caf, .adts,
            .other("asf"),
        ]
        #expect(all.allSatisfy { Container(name: $0.name) == $0 })
        #expect(Container(name: "mpeg").name == "mpeg" && Container(name: "aac") == .adts)
        // JSON: the name, as the reports have always written it.
        let json = try JSONEncoder().encode([Container.webm, .other("asf")])
        #expect(String(decoding: json, as: UTF8.self) == #"["webm","asf"]"#)
        let read = try JSONDecoder().decode([Container].self, from: json)
        #expect(read == [.webm, .other("asf")])
    }

    /// The rows: ISO-BMFF has edit lists, Matroska has milliseconds; fix keeps seven in their own kind and turns
    /// four video containers into MP4; a name's extension says its container and the muxer that writes it again.
    @Test func eachRowSaysWhatItsContainerCanDo() {
        #expect(Container.mov.isISO && !Container.webm.isISO && Container.webm.isMatroska)
        #expect([Container.mp4, .mov, .ogg, .avi].allSatisfy { $0.cutsFinerThanItsClock })
        #expect(!Container.matroska.cutsFinerThanItsClock && !Container.mpegts.cutsFinerThanItsClock)
        let kept: [Container] = [.mp4, .mov, .matroska, .webm, .wav, .flac, .ogg]
        #expect(kept.allSatisfy { $0.keptByFix } && !Container.mpegts.keptByFix)
        #expect(
            [Container.mpegts, .mpegps, .flv, .avi].allSatisfy { $0.convertedByFix } && !Container.mp4.convertedByFix)
        #expect(Container(extension: "M4V") == .mp4 && Container(extension: "mka") == .matroska)
        #expect(Container(extension: "m2ts") == .mpegts && Container(extension: "txt") == nil)
        // One table: every media extension names its container (3GP is ISO, a CAF its own; a VOB is MPEG-PS).
        #expect(Container(extension: "3gp") == .mp4 && Container(extension: "CAF") == .caf)
        #expect(Container(extension: "vob") == .mpegps && Container.byExtension.count == 27)
        #expect(Container.mp4.muxer(forExtension: "m4a") == .ipod && Container.mp4.muxer(forExtension: "mp4") == .mp4)
        #expect(Container.webm.muxer(forExtension: "webm") == .webm && Container.flv.muxer(forExtension: "flv") == nil)
        #expect(Container(muxer: .ipod) == .mp4 && Container(muxer: .matroska) == .matroska)
        // Every muxer writes the container its name says, and is the one that container's name is written with.
        for muxer in Muxer.allCases where muxer != .ipod {
            #expect(muxer.container.muxer(forExtension: muxer.container.fileExtension ?? "") == muxer, "\(muxer)")
        }
    }
}

/// The output's name before the input is read, by the planner's rules, and what a command did, in one shape.
@Suite struct OutcomeValueTests {
    /// fix's rules for a name: a container without edit lists becomes an MP4 (or --to's container), ADTS an M4A, --to
    /// renames Matroska and crosses the ISO family; every other name is kept.
    @Test func theOutputNameIsThePlannersBeforeTheInputIsRead() {
        let cases: [(String, Muxer?, String)] = [
            ("out/a.mp4", nil, "out/a.mp4"), ("out/a.mov", nil, "out/a.mov"), ("out/a.webm", nil, "out/a.webm"),
            ("out/a.ts", nil, "out/a.mp4"), ("out/a.M2TS", nil, "out/a.mp4"), ("out/a.flv", .mov, "out/a.mov"),
            ("out/a.avi", nil, "out/a.mp4"), ("out/a.mpg", nil, "out/a.mp4"), ("out/a.aac", nil, "out/a.m4a"),
            ("out/a.mkv", .mp4, "out/a.mp4"), ("out/a.webm", .mov, "out/a.mov"), ("out/a.mov", .mp4, "out/a.mp4"),
            ("out/a.mp4", .mov, "out/a.mov"), ("out/a.m4a", .mov, "out/a.mov"), ("out/a.m4a", .mp4, "out/a.m4a"),
            ("out/a.qt", .mov, "out/a.qt"), ("out/a.ogg", .mp4, "out/a.ogg"), ("out/v1.0/clip", nil, "out/v1.0/clip"),
            ("out/a.wav", nil, "out/a.wav"),
        ]
        for (destination, to, expected) in cases {
            #expect(
                FixConversion.expectedPath(destination, to: to) == expected,
                "\(destination) --to \(to?.rawValue ?? "-")")
        }
    }

    /// A file kept in its own container is named as one: an Ogg, an MP3 or a Matroska file under an MP4's name,
    /// and --to of a container that --to does not convert, are refused in words; a WebM may be named .mkv (it is
    /// Matroska), and a name loopprep does not know is the user's.
    @Test func aFileIsNamedAsTheContainerItIsWrittenIn() throws {
        let file = { (name: String, container: String, codec: String) in
            var facts = Clips.clip([Clips.audio(codec: codec)], container: container, moovFirst: nil)
            facts.path = name
            return facts
        }
        let ogg = file("take.ogg", "ogg", "vorbis")
        let mp3 = file("song.mp3", "mp3", "mp3")
        let webm = file("rec.webm", "webm", "opus")
        let refusal = { (facts: ClipFacts, destination: String, to: Muxer?) -> String? in
            do {
                try FixConversion.refuseMisnamed(facts, destination: destination, to: to)
                return nil
            } catch let error as PlanError { return error.reason } catch { return "\(error)" }
        }
        #expect(
            refusal(ogg, "out/a.mp4", nil)
                == "write output: the output is named .mp4 but this OGG is written as OGG (loopprep does not turn it "
                + "into MP4): name it .ogg; nothing written")
        #expect(
            refusal(mp3, "a.MKV", nil)?.hasSuffix(
                "(loopprep does not turn it into MATROSKA): name it .mp3; nothing written") == true)
        #expect(
            refusal(mp3, "a.mp3", .mp4)
                == "convert: --to mp4: loopprep writes this MP3 in its own container (--to converts video containers); "
                + "fix it without --to; nothing written")
        #expect(refusal(ogg, "a.oga", nil) == nil && refusal(ogg, "a.opus", nil) == nil)
        #expect(refusal(webm, "a.mkv", nil) == nil && refusal(webm, "a.webm", nil) == nil)
        // Chromium's PCM recording: Matroska by its codecs, named .webm as its input is.
        #expect(refusal(file("rec.webm", "matroska", "pcm_f32le"), "out/rec.webm", nil) == nil)
        #expect(refusal(file("take.ogg", "ogg", "vorbis"), "out/take.data", nil) == nil)
        #expect(refusal(ogg, "out/a", nil) == nil && refusal(ogg, "a.data", nil) == nil)
    }

    /// An unreadable file's hint follows its cause, and a one-line format says no hint where the reason gives its
    /// own remedy ("no such file" was followed by "(fix: check that the file is complete ...)").
    @Test func anUnreadableFilesHintFollowsItsCause() {
        let hint = { (reason: String) in FileReport.unreadable(path: "a.mp4", reason: reason).findings[0] }
        #expect(
            hint("open: no such file").messageWithHint
                == "open: no such file (fix: check the path: no file has that name)")
        #expect(hint("open: empty file (0 bytes)").hint.hasSuffix("it is empty"))
        #expect(
            hint("read index: truncated: the index points at 10 bytes but the file has 5").hint.contains("cut short"))
        let remedied = hint("open: the server does not serve byte ranges ...; download it and give the local file")
        #expect(remedied.hint.isEmpty && remedied.messageWithHint == remedied.message)
        #expect(
            hint("open: not a video or audio file").hint
                == "check that the file is complete and is a video or audio file")
    }

    /// fix's statuses in every command's words; an unreadable input is that, whatever else is set.
    @Test func fixStatusesAreOutcomes() {
        #expect(Outcome(fix: FixOutcome(status: .planned, output: "o.mp4")) == .planned(output: "o.mp4"))
        #expect(Outcome(fix: FixOutcome(status: .fixed, output: "o.mp4")) == .written(output: "o.mp4"))
        #expect(Outcome(fix: FixOutcome(status: .unchanged, output: "o.mp4")).status == .unchanged)
        let why = Refusal.outputExists("o.mp4")
        let refused = Outcome(fix: FixOutcome(status: .failed, output: "o.mp4", refusal: why))
        #expect(refused == .refused(why, output: "o.mp4") && refused.failed && refused.refusal?.cause == .outputExists)
        let unreadable = FileReport.unreadable(path: "x.mp4", reason: "not media")
        #expect(unreadable.outcome == .unreadable(.unreadable("not media")))
        #expect(unreadable.outcome?.output == nil && unreadable.outcome?.failed == true)
        #expect(FileReport(path: "x.mp4", facts: nil, findings: []).outcome == nil)
    }

    /// Each outcome is written as `{status, output, reason, cause}` with what its case carries: the reason in the
    /// words its encoder's front end gives (`Refusal.wordsKey`; none without), read back as those words with their
    /// cause; a refusal in a report written before causes were recorded reads as `unrecorded`, its words kept.
    @Test func outcomesRoundTripWithTheirCause() throws {
        let outcomes: [Outcome] = [
            .planned(output: nil), .planned(output: "a.mp4"), .written(output: "a.mp4"), .unchanged(output: "a.mp4"),
            .refused(.check("the copied frames ended early"), output: "a.mp4"),
            .refused(.outputIsInput(output: "a.mp4", input: "a.mp4", .named), output: "a.mp4"),
            .refused(.crossfadedLoop(.plan("the clips differ:", details: ["  rate"])), output: "a.mp4"),
            .unreadable(.unreadable("open: no such file")),
        ]
        let words: Refusal.Words = { "words for \($0.cause.rawValue)" }
        let (encoder, plain) = (JSONEncoder(), JSONEncoder())
        (encoder.outputFormatting, plain.outputFormatting) = (.sortedKeys, .sortedKeys)
        encoder.userInfo[Refusal.wordsKey] = words
        for outcome in outcomes {
            let data = try encoder.encode(outcome)
            let back = try JSONDecoder().decode(Outcome.self, from: data)
            #expect(back.status == outcome.status && back.output == outcome.output)
            #expect(back.refusal == outcome.refusal.map { .worded($0.cause, words($0)) })
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
            #expect(object["status"] == outcome.status.rawValue && object["output"] == outcome.output)
            #expect(
                object["reason"] == outcome.refusal.map(words) && object["cause"] == outcome.refusal?.cause.rawValue)
            // Read back and written again, a refusal keeps its words, whatever the encoder's.
            #expect(try plain.encode(back) == data)
        }
        // Without a front end's words: the words a case carries (a check's), else the cause alone.
        let bare = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(outcomes[4])) as? [String: String]
        #expect(bare?["cause"] == "check" && bare?["reason"] == "the copied frames ended early")
        let unworded =
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(outcomes[5])) as? [String: String]
        #expect(unworded?["cause"] == "outputIsInput" && unworded?["reason"] == nil)
        let old = Data(#"{"status": "refused", "reason": "why"}"#.utf8)
        #expect(try JSONDecoder().decode(Outcome.self, from: old) == .refused(.worded(.unrecorded, "why"), output: nil))
        let fix = try JSONDecoder().decode(FixOutcome.self, from: Data(#"{"status": "failed", "reason": "why"}"#.utf8))
        #expect(fix.refusal == .worded(.unrecorded, "why"))
        let claimed = Refusal.outputClaimed(
            file: "o.mp4", first: .init(input: "a.mov", what: "output"), second: .init(input: "b.mov", what: "output"))
        let keys = try #require(
            try JSONSerialization.jsonObject(with: try encoder.encode(FixOutcome(status: .failed, refusal: claimed)))
                as? [String: Any])
        #expect(keys["cause"] as? String == "outputClaimed" && keys["reason"] as? String == "words for outputClaimed")
    }

    /// A fix report's plan sits at the file's level, and a report written with it inside `fix` still reads.
    @Test func thePlanSitsAtTheFilesLevel() throws {
        // 30 frames of 512 ticks at 15360 Hz (1 s) and 50 AAC frames of 1024 samples at 48 kHz (1.067 s).
        let frames = (0..<30).map { i in
            SampleTiming(dts: Int64(i) * 512, pts: Int64(i) * 512, duration: 512, isSync: i == 0)
        }
        let samples = (0..<50).map { i in
            SampleTiming(dts: Int64(i) * 1024, pts: Int64(i) * 1024, duration: 1024, isSync: true)
        }
        let (clip, timelines) = Clips.pair(
            video: TrackTimeline(timeBase: Rational(1, 15360), samples: frames),
            audio: TrackTimeline(timeBase: Rational(1, 48000), samples: samples))
        let plan = try FixPlanner.plan(clip, timelines: timelines)
        let file = FileReport(
            path: "a.mp4", facts: nil, findings: [], fix: FixOutcome(status: .planned, output: "o.mp4", plan: plan))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(file)) as? [String: Any]
        #expect(json?["plan"] != nil && (json?["fix"] as? [String: Any])?["plan"] == nil)
        #expect((json?["outcome"] as? [String: Any])?["status"] as? String == "planned")
        #expect(try JSONDecoder().decode(FileReport.self, from: JSONEncoder().encode(file)) == file)
        let old =
            #"{"path":"a.mp4","findings":[],"fix":{"status":"planned","plan":"#
            + String(decoding: try JSONEncoder().encode(plan), as: UTF8.self) + "}}"
        #expect(try JSONDecoder().decode(FileReport.self, from: Data(old.utf8)).fix?.plan == plan)
    }
}
