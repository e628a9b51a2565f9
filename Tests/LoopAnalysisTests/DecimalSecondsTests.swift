import Foundation
import LoopAnalysis
import Testing

/// The one decimal-seconds parser: what is typed (a command-line number, a playlist's, a project setting) is
/// the value, exactly.
@Suite struct DecimalSecondsTests {
    @Test func decimalsAreExact() {
        #expect(Rational(decimal: "1.005") == Rational(201, 200))
        #expect(Rational(decimal: "0.5") == Rational(1, 2))
        #expect(Rational(decimal: ".25") == Rational(1, 4))
        #expect(Rational(decimal: "-2.25") == Rational(-9, 4))
        #expect(Rational(decimal: "+3") == Rational(3))
        #expect(Rational(decimal: "1e-3") == Rational(1, 1000))
        #expect(Rational(decimal: "2.5E+2") == Rational(250))
        #expect(Rational(decimal: "0.0333") == Rational(333, 10000))
    }

    @Test func anythingElseIsRefused() {
        for text in ["", "abc", "1.2.3", "--1", "1e", "1e99", ".", "1,5", "1234567890123456789"] {
            #expect(Rational(decimal: text) == nil, "\(text)")
        }
    }

    /// A Double the user typed as 1.005 is not 1.005 in binary (it is 1.00499999999999989...): multiplied by
    /// 1000 and truncated it gave 1004 ms. Its shortest decimal form is what was typed.
    @Test func typedDoublesReadAsTyped() {
        #expect(Int64(1.005 * 1000) == 1004)
        #expect(Rational(decimal: 1.005) == Rational(1005, 1000))
        #expect(Rational(decimal: 0.1) == Rational(1, 10))
        #expect(Rational(decimal: Double.infinity) == nil)
    }

    /// A playlist's numbers keep the digits they were written with.
    @Test func playlistNumbersAreExact() throws {
        let json =
            #"""
            {"clips": [{"path": "a.mp4", "in": 1.005, "out": 2.5, "transition": {"type": "crossfade", \#
            "duration": 0.333}}, {"path": "b.mp4"}]}
            """#
        let list = try Playlist.parse(Data(json.utf8))
        let request = try list.request(
            base: "dir", transition: TransitionRequest(kind: .none, duration: .zero), loop: false)
        #expect(request.clips[0].inPoint == Rational(201, 200) && request.clips[0].outPoint == Rational(5, 2))
        #expect(request.clips[0].path == "dir/a.mp4" && request.clips[1].inPoint == nil)
        #expect(request.transitions == [TransitionRequest(kind: .crossfade, duration: Rational(333, 1000))])
    }
}
