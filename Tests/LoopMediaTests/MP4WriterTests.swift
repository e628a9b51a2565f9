import Foundation
import LoopAnalysis
import Testing

@testable import LoopIndex
@testable import LoopMedia

/// The writer's layout on values: a well interleaved source keeps its order (the media copies in one range);
/// one whose tracks sit in blocks is re-interleaved in half-second chunks.
@Suite struct MP4WriterTests {
    /// `count` samples of `size` bytes and `duration` ticks each, at the given offsets.
    static func track(_ id: Int, offsets: [Int64], size: Int64, duration: Int64) -> TrackLayout {
        TrackLayout(
            trackID: id,
            entries: offsets.enumerated().map { i, offset in
                .init(
                    location: SampleLocation(offset: offset, size: size), duration: duration, compositionOffset: 0,
                    isSync: true, sourceIndex: i)
            }, mediaTime: 0, editDuration: 0, pcm: nil)
    }

    @Test func aWellInterleavedSourceKeepsItsOrder() throws {
        // 2 s of 30 fps video (100-byte frames) and 48 kHz audio (10-byte packets of 1024), alternating a frame
        // and a packet in the file, back to back.
        var v: [Int64] = []
        var a: [Int64] = []
        var at: Int64 = 0
        for _ in 0..<60 {
            v.append(at)
            at += 100
            a.append(at)
            at += 10
        }
        let tracks = [
            Self.track(1, offsets: v, size: 100, duration: 512), Self.track(2, offsets: a, size: 10, duration: 1024),
        ]
        let chunks = try #require(MP4Writer.sourceOrder(tracks, timescales: [15360, 48000]))
        #expect(chunks.count == 120 && chunks.allSatisfy { $0.entries.count == 1 })
        #expect(chunks.reduce(0) { $0 + $1.bytes } == 60 * 110)
    }

    @Test func tracksInBlocksAreReinterleaved() {
        // All 2 s of video first, then all the audio: in file order the video leads by 2 s.
        let v = (0..<60).map { Int64($0) * 100 }
        let a = (0..<94).map { 6000 + Int64($0) * 10 }
        let tracks = [
            Self.track(1, offsets: v, size: 100, duration: 512), Self.track(2, offsets: a, size: 10, duration: 1024),
        ]
        #expect(MP4Writer.sourceOrder(tracks, timescales: [15360, 48000]) == nil)
        let chunks = MP4Writer.interleave(tracks, timescales: [15360, 48000])
        // Half-second chunks: 4 of video (15 frames), 4 of audio (24, 24, 24, 22 packets), alternating by time.
        #expect(chunks.map(\.track) == [0, 1, 0, 1, 0, 1, 0, 1])
        #expect(chunks.filter { $0.track == 0 }.map(\.entries.count) == [15, 15, 15, 15])
        #expect(chunks.filter { $0.track == 1 }.map(\.entries.count) == [24, 24, 24, 22])
    }

    // The output is read back while its media is copied. The copy goes head, tail, middle so the
    // readings of its first frames and its last GOP need not wait for the middle.

    @Test func theTailStartsASecondBeforeTheLastKeyframe() {
        // 10 s at 30 fps (a keyframe every 60 frames: the last is frame 240, at 8 s) and 48 kHz audio in packets of
        // 1600 samples (a frame's time each), a frame and a packet alternating in the file, 110 bytes a pair.
        var v: [Int64] = []
        var a: [Int64] = []
        for k in 0..<300 {
            v.append(Int64(k) * 110)
            a.append(Int64(k) * 110 + 100)
        }
        var video = Self.track(1, offsets: v, size: 100, duration: 512)
        for i in video.entries.indices { video.entries[i].isSync = i % 60 == 0 }
        let tracks = [video, Self.track(2, offsets: a, size: 10, duration: 1600)]
        let timescales: [Int64] = [15360, 48000]
        guard let chunks = MP4Writer.sourceOrder(tracks, timescales: timescales) else {
            Issue.record("the alternating source was not kept in its order")
            return
        }
        let offsets = chunks.map { tracks[$0.track].entries[$0.entries.lowerBound].location.offset + 1000 }
        // From 7 s: the first chunk that ends after it is frame 210's (it ends at 211/30 s), 210 pairs in.
        let tail = MP4Writer.tailStart(tracks, timescales: timescales, chunks: chunks, offsets: offsets)
        #expect(tail == Int64(1000 + 210 * 110))
    }

    @Test func theCopyGoesHeadTailMiddleCoveringEveryByteOnce() {
        let mib: Int64 = 1 << 20
        // A 100-byte head, a 10 MiB range, a 200-byte replaced sample, 2 MiB more; the tail from 9 MiB.
        let layout = MP4Writer.Layout(
            head: [UInt8](repeating: 7, count: 100),
            pieces: [
                .init(at: 100, source: 5000, size: 10 * mib),
                .init(at: 100 + 10 * mib, source: 0, size: 200, replacement: [UInt8](repeating: 1, count: 200)),
                .init(at: 300 + 10 * mib, source: 6000 + 10 * mib, size: 2 * mib),
            ],
            size: 300 + 12 * mib, tailStart: 9 * mib)
        let ordered = layout.ordered()
        // The first 4 MiB of media, then everything from 9 MiB, then the middle.
        #expect(ordered.map(\.at) == [100, 9 * mib, 100 + 10 * mib, 300 + 10 * mib, 100 + 4 * mib])
        #expect(ordered.map(\.size) == [4 * mib, mib + 100, 200, 2 * mib, 5 * mib - 100])
        // Split pieces keep their place in the source; together they cover the media once.
        for piece in ordered where piece.replacement == nil {
            #expect(piece.source - piece.at == (piece.at < 100 + 10 * mib ? 4900 : 5700))
        }
        let covered = ordered.map { $0.at..<$0.at + $0.size }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(covered.first?.lowerBound == 100 && covered.last?.upperBound == layout.size)
        #expect(zip(covered, covered.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    }

    @Test func aReaderOfTheGrowingFileWaitsForItsBytesAndSeesTheFileAsWritten() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 12 MiB source of varied bytes; the output takes its head, two ranges swapped, and a replaced sample.
        let mib = 1 << 20
        var bytes = [UInt8](repeating: 0, count: 12 * mib)
        var x: UInt32 = 2_463_534_242
        for i in bytes.indices {
            x ^= x << 13
            x ^= x >> 17
            x ^= x << 5
            bytes[i] = UInt8(truncatingIfNeeded: x)
        }
        let source = dir.appendingPathComponent("source.bin").path
        #expect(FileManager.default.createFile(atPath: source, contents: Data(bytes)))
        let head = [UInt8](repeating: 9, count: 64)
        let replaced = [UInt8](repeating: 3, count: 16)
        let pieces: [MP4Writer.Layout.Piece] = [
            .init(at: 64, source: Int64(6 * mib), size: Int64(6 * mib)),
            .init(at: Int64(64 + 6 * mib), source: 0, size: 16, replacement: replaced),
            .init(at: Int64(80 + 6 * mib), source: 0, size: Int64(6 * mib)),
        ]
        let expected = head + bytes[(6 * mib)...] + replaced + bytes[..<(6 * mib)]
        let layout = MP4Writer.Layout(
            head: head, pieces: pieces, size: Int64(expected.count), tailStart: Int64(10 * mib))
        // Written with nobody waiting, and with readers while it is copied.
        let plain = dir.appendingPathComponent("plain.mp4").path
        try MediaCopy(layout, from: source, to: plain).run(nil)
        #expect(FileManager.default.contents(atPath: plain) == Data(expected))
        let growing = dir.appendingPathComponent("growing.mp4").path
        let copy = try MediaCopy(layout, from: source, to: growing)
        let progress = CopyProgress(size: layout.size)
        GrowingFiles.register(growing, progress)
        defer { GrowingFiles.unregister(growing) }
        // The reader opens the file before a byte of media is there: its size is the final one, its reads wait.
        let reader = try #require(try GrowingFiles.source(growing))
        #expect(reader.size == Int64(expected.count))
        Thread.detachNewThread {
            do {
                try copy.run(progress)
                progress.finish(nil)
            } catch {
                progress.finish(error)
            }
        }
        let end = expected.count
        #expect(try reader.read(at: Int64(end - 100), count: 500) == Array(expected[(end - 100)...]))
        #expect(try reader.read(at: 0, count: 200) == Array(expected[..<200]))
        #expect(try reader.read(at: Int64(5 * mib), count: 3 * mib) == Array(expected[(5 * mib)..<(8 * mib)]))
        #expect(try reader.readable(at: Int64(end), upTo: 10) == 0)
        try progress.wait()
        #expect(FileManager.default.contents(atPath: growing) == Data(expected))
    }

    @Test func aFailedCopyIsWhatItsReadersThrow() throws {
        let progress = CopyProgress(size: 1000)
        try progress.written(0..<100)
        try progress.written(200..<300)
        try progress.written(100..<200)
        // Ranges that meet are one: 300 bytes readable from 0, 150 from 150.
        #expect(try progress.readable(at: 0, upTo: 1000) == 300)
        #expect(try progress.readable(at: 150, upTo: 1000) == 150)
        progress.finish(MediaError("write output", reason: "the disk is full"))
        #expect(throws: MediaError.self) { try progress.readable(at: 300, upTo: 10) }
        #expect(throws: MediaError.self) { try progress.wait() }
        #expect(progress.failure?.reason == "the disk is full")
        // Called off: the copier's next slice stops it, on no error of its own (a refusal stays the refusal).
        let calledOff = CopyProgress(size: 10)
        calledOff.cancel()
        #expect(throws: CopyProgress.CalledOff.self) { try calledOff.written(0..<5) }
        calledOff.finish(CopyProgress.CalledOff())
        #expect(calledOff.failure == nil)
        #expect(throws: Never.self) { try calledOff.wait() }
    }

    @Test func ffmpegsReadingOfAFileStillBeingCopiedWaitsForItsBytesAndAgrees() throws {
        let dir = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A moov-first fixture written again as it is: its head (ftyp, moov, free, mdat's header), then its media.
        let source = Fixtures.path("h264-gop10-a.mp4")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        var at = 0
        while at + 8 <= bytes.count, String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) != "mdat" {
            at += bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        let mediaStart = Int64(at + 8)
        let size = Int64(bytes.count)
        let layout = MP4Writer.Layout(
            head: Array(bytes[..<Int(mediaStart)]),
            pieces: [.init(at: mediaStart, source: mediaStart, size: size - mediaStart)], size: size,
            tailStart: mediaStart + (size - mediaStart) / 2)
        let whole = try FFmpegReading.read(source)
        let growing = dir.appendingPathComponent("growing.mp4").path
        let copy = try MediaCopy(layout, from: source, to: growing)
        let progress = CopyProgress(size: size)
        GrowingFiles.register(growing, progress)
        defer { GrowingFiles.unregister(growing) }
        // Only the head is there: FFmpeg's reading (its demuxer through the growing file, its decoders on the
        // head and the tail) opens the file and then waits for the media.
        try progress.written(0..<mediaStart)
        let result = Locked<(done: Bool, reading: IndependentReading?)>((false, nil))
        Thread.detachNewThread {
            let reading = try? FFmpegReading.read(growing)
            result.withLock { $0 = (true, reading) }
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!result.withLock { $0.done }, "the reading did not wait for the media")
        try copy.run(progress)
        progress.finish(nil)
        let reading = result.withLock(when: \.done) { $0.reading }
        #expect(reading == whole)
        #expect(FileManager.default.contents(atPath: growing) == Data(bytes))
    }
}
