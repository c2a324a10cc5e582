import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// The provider killed without warning: clients get an error at once (nothing is D-Bus-activated in
/// its place), and what it had acknowledged is there when it starts again on the same files.
@Suite("provider killed and restarted", .integration, .tags(.external, .dbus, .gnomeKeyring))
struct ProviderRestartTests {
    @Test("SIGKILL: clients fail instead of reaching another provider; after a restart every acknowledged item is back",
          arguments: SecretServiceProvider.underTest)
    func killAndRestart(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            for index in 0..<3 {
                #expect(try harness.secretTool(["store", "--label=kept \(index)", "kk", "restart", "n", "\(index)"],
                                               stdin: "kept \(index) ✓".bytes).status == 0)
            }
            #expect(try harness.python("import sys, keyring; keyring.set_password('kk-restart', 'alice', sys.stdin.read())",
                                       stdin: "keyring ✓".bytes).status == 0)

            try harness.killProvider()  // returns once the bus has seen the provider go
            let orphan = try harness.secretTool(["lookup", "kk", "restart", "n", "0"])
            #expect(orphan.status != 0 && orphan.stdoutBytes.isEmpty && !orphan.timedOut, "\(orphan)")
            #expect(try !harness.nameHasOwner(SecretServiceHarness.serviceName), "nothing was activated in its place")

            try harness.restartProvider()
            for index in 0..<3 {
                #expect(try harness.secretTool(["lookup", "kk", "restart", "n", "\(index)"]).stdoutBytes == "kept \(index) ✓".bytes)
            }
            let keyring = try harness.python("import keyring; print(keyring.get_password('kk-restart', 'alice'))")
            #expect(keyring.stdout == "keyring ✓\n", "\(keyring)")
        }
    }
}
