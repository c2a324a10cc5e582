import EtcdClusterSupport
import Foundation
import SecretServiceHarness
import Testing

/// Issue 24: the provider's D-Bus error reply carries the keychain's precise cause and its fix,
/// as a real client (secret-tool, libsecret) shows it, not only a bare status.
@Suite("Secret Service provider: the keychain's reason in D-Bus errors", .timeLimit(.minutes(3)))
struct FailureReasonTests {
    @Test("a keychain in a directory others can write: secret-tool store fails and shows the cause and the fix")
    func unsafeDirectoryReason() async throws {
        try await onDedicatedThread {
            // The keychain's directory is made writable by everyone before the provider starts.
            let harness = try SecretServiceHarness(.keychainKit) { harness in
                let keychains = harness.directory + "/keychains"
                try FileManager.default.createDirectory(atPath: keychains, withIntermediateDirectories: false)
                #expect(chmod(keychains, 0o777) == 0)  // whatever the umask
            }
            defer { harness.stop() }
            let store = try harness.secretTool(["store", "--label=refused", "kk", "refused"], stdin: "item-secret".bytes)
            #expect(store.status != 0, "a store into an unsafe directory must not succeed: \(store)")
            #expect(store.stderr.contains("is writable by group or others"), "\(store.stderr)")
            #expect(store.stderr.contains("chmod go-w"), "the fix: \(store.stderr)")
            #expect(!store.stderr.contains("item-secret"), "no secret in the error")
            #expect(!FileManager.default.fileExists(atPath: harness.keychainPath), "nothing was created")
            #expect(harness.providerIsRunning, "the provider keeps serving: \(harness.providerLog)")
        }
    }
}
