import Foundation
import TestSupport
import Testing

/// Issue 43, item 5: a CENC-encrypted MP4 (fixtures/cenc.mp4: FFmpeg's Common Encryption, encv and enca sample
/// entries) is said to be encrypted, by analyze and by fix, in one sentence with the remedy: not called damaged.
@Suite struct EncryptedTests {
    @Test func anEncryptedMP4IsSaidToBeEncrypted() throws {
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for arguments in [["analyze"], ["fix", "-o", dir.path]] {
            let run = try Run.loopprep(arguments + [Run.fixture("cenc.mp4")])
            #expect(run.status == 2, "\(run.stdout)")
            #expect(run.stdout.contains("encrypted (Common Encryption: its encv samples are scrambled"), "\(run.stdout)")
            #expect(run.stdout.contains("run it on the clip before it is encrypted"))
            #expect(!run.stdout.contains("damaged"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cenc.mp4").path))
    }
}
