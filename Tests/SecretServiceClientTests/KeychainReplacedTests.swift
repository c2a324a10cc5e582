import Foundation
import RequiredToolSupport
import SecretServiceHarness
import Testing

/// The keychain file deleted under a running provider: `secret-tool store`
/// must fail, the provider must say so on its standard error, and nothing may be reported stored
/// that is not there after a restart.
@Suite("Secret Service provider: keychain file deleted under it", .integration, .tags(.external, .dbus), .timeLimit(.minutes(3)))
struct KeychainReplacedTests {
    @Test("after the keychain file is deleted, secret-tool store fails and the provider says why on stderr; nothing appears after a restart")
    func deletedFile() async throws {
        try await withProvider(.keychainKit) { harness in
            #expect(try harness.secretTool(["store", "--label=before", "kk", "before"], stdin: "kept".bytes).status == 0)
            try FileManager.default.removeItem(atPath: harness.keychainPath)

            let store = try harness.secretTool(["store", "--label=after", "kk", "after"], stdin: "lost?".bytes)
            #expect(store.status != 0, "a store into a deleted file must not succeed: \(store)")
            #expect(harness.providerLog.contains("was deleted or replaced"), "\(harness.providerLog)")
            #expect(harness.providerLog.contains(harness.keychainPath))

            // The rest of the removed keychain too (SQLite's -wal and -shm of the deleted file stay
            // behind; a new keychain at the same path must not start from them; its access log,
            // whose key went with the file, would refuse every access until moved aside).
            for suffix in ["-wal", "-shm", ".access-log", ".access-log.lock"] where FileManager.default.fileExists(atPath: harness.keychainPath + suffix) {
                try FileManager.default.removeItem(atPath: harness.keychainPath + suffix)
            }
            try harness.restartProvider()
            #expect(try harness.secretTool(["lookup", "kk", "after"]).stdoutBytes.isEmpty, "nothing reported stored that is not")
            #expect(try harness.secretTool(["store", "--label=again", "kk", "again"], stdin: "stored".bytes).status == 0)
            #expect(try harness.secretTool(["lookup", "kk", "again"]).stdoutBytes == "stored".bytes)
        }
    }
}
