import Foundation
import Testing

@testable import LoopIndex
@testable import LoopMedia

/// What x264 says of itself in the stream: its settings as text in an unregistered user data SEI (ITU-T H.264
/// D.1.6: payload type 5, a 16-byte UUID, then the bytes) in its first access unit, which a stitch's joins take
/// their preset from (RunQuality.preset).
@Suite struct X264SettingsTests {
    static let x264UUID: [UInt8] = [
        0xdc, 0x45, 0xe9, 0xbd, 0xe6, 0xd9, 0x48, 0xb7, 0x96, 0x2c, 0xd8, 0x20, 0xd9, 0x23, 0xee, 0xef,
    ]

    /// One SEI message (7.3.2.3.1): its type and size each as 0xFF bytes for every 255 and the rest.
    static func message(type: Int, _ payload: [UInt8]) -> [UInt8] {
        func number(_ n: Int) -> [UInt8] { Array(repeating: 0xff, count: n / 255) + [UInt8(n % 255)] }
        return number(type) + number(payload.count) + payload
    }

    /// An SEI NAL unit holding another writer's message (type 0, whose bytes 00 00 01 are escaped in the unit),
    /// another UUID's user data, then x264's text of more than 255 bytes (its size written 0xFF, then the rest).
    @Test func theTextIsFoundAmongOtherMessages() {
        let text =
            "x264 - core 164 - H.264/MPEG-4 AVC codec - options: cabac=0 ref=1 subme=0 psy=1 "
            + String(repeating: "nr=0 ", count: 40) + "aq=0"
        let other = [UInt8](repeating: 0x11, count: 16) + Array("another encoder".utf8)
        let rbsp =
            Self.message(type: 0, [0, 0, 1]) + Self.message(type: 5, other)
            + Self.message(type: 5, Self.x264UUID + Array(text.utf8) + [0]) + [0x80]
        let unit = [0x06] + NAL.escape(rbsp)
        #expect(unit.count == rbsp.count + 2)
        #expect(text.utf8.count + 17 > 255)
        let slice: [UInt8] = [0x65, 0x88, 0x84]
        #expect(X264Settings.text([slice, unit]) == text)
        #expect(X264Settings.value("subme", in: text) == "0")
        #expect(X264Settings.value("cabac", in: text) == "0")
        #expect(X264Settings.value("aq", in: text) == "0")
        // A name only part of another's, or a text with no options, says nothing.
        #expect(X264Settings.value("me", in: text) == nil)
        #expect(X264Settings.value("subme", in: "x264 - core 164") == nil)
        // Another UUID's user data alone, or no SEI at all, is no x264 text.
        #expect(X264Settings.text([[0x06] + NAL.escape(Self.message(type: 5, other) + [0x80]), slice]) == nil)
        #expect(X264Settings.text([slice]) == nil)
    }

    /// The first frame of clips the recipes made with x264 (fixtures/make-fixtures.sh): ultrafast says subme=0
    /// and CAVLC (cabac=0), veryfast subme=2 (x264's presets: 0 ultrafast, 1 superfast, 2 veryfast).
    @Test func theRecipesPresetsAreRead() throws {
        for (name, subme, cabac) in [("h264-ultrafast.mp4", "0", "0"), ("h264-gop10-a.mp4", "2", "1")] {
            let probe = try Probe.probe(Fixtures.path(name), keepInput: false, locations: true)
            let first = try #require(try FrameBytes.read(probe, track: 0, sample: 0))
            let units = FrameBytes.content(first, codec: "h264", extradata: FrameBytes.extradata(probe, track: 0))
            let text = try #require(X264Settings.text(units), "\(name)")
            #expect(text.hasPrefix("x264 - core "))
            #expect(X264Settings.value("subme", in: text) == subme, "\(name)")
            #expect(X264Settings.value("cabac", in: text) == cabac, "\(name)")
        }
    }
}
