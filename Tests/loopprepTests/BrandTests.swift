import Foundation
import TestSupport
import Testing

/// A file's type box says what it is to the players that read its brands first (a phone's 3gp6): fix keeps the
/// source's on every path, the index copy and the muxer's (whose own names isom). brand-3gp6.3gp:
/// fixtures/make-metadata.sh, 12 (FFmpeg's 3gp muxer: major 3gp6, compatible 3gp6 isom iso2 avc1).
@Suite struct BrandTests {
    /// The first box of a file, whole, read from its bytes.
    static func firstBox(_ path: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        return Array(bytes.prefix(size))
    }

    @Test(arguments: [[], ["--seam-fade", "10ms"]])
    func aPhonesBrandsAreKept(_ options: [String]) throws {
        let input = Run.fixture("brand-3gp6.3gp")
        let made = try Self.firstBox(input)
        #expect(Array(made[4..<12]) == Array("ftyp3gp6".utf8))
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.3gp").path
        let run = try Run.loopprep(["fix", input, "-o", out] + options)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try Self.firstBox(out) == made)
    }
}
