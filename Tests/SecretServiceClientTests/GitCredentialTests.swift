import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// git's own libsecret credential helper (built from Debian's git contrib source) driven by git.
@Suite("git credential-libsecret", .integration, .tags(.external, .dbus, .gnomeKeyring, .git))
struct GitCredentialTests {
    private func git(_ harness: SecretServiceHarness, _ action: String, _ input: String) throws -> ClientRun {
        try harness.run(["/usr/bin/git", "-c", "credential.helper=", "-c", "credential.helper=\(try GitCredentialLibsecret.path())",
                         "credential", action], stdin: input.bytes)
    }

    @Test("approve, fill and reject; the stored item is visible to secret-tool under git's attributes",
          arguments: SecretServiceProvider.underTest)
    func approveFillReject(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let credential = "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=hünter2 ✓\n\n"
            let approve = try git(harness, "approve", credential)
            #expect(approve.status == 0 && approve.stderr.isEmpty, "\(approve)")

            let fill = try git(harness, "fill", "protocol=https\nhost=git.example.com:8443\n\n")
            #expect(fill.status == 0, "\(fill)")
            #expect(fill.stdout == "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=hünter2 ✓\n")

            // The helper's attributes: user, server, protocol, port (Debian's git 2.39 helper uses the
            // schema name org.gnome.keyring.NetworkPassword; git ≥ 2.40 names it org.git.Password).
            let lookup = try harness.secretTool(["lookup", "server", "git.example.com", "protocol", "https", "port", "8443", "user", "bob"])
            #expect(lookup.stdoutBytes == "hünter2 ✓".bytes, "\(lookup)")
            let search = try harness.secretTool(["search", "--all", "server", "git.example.com"])
            #expect(search.stdout.contains("label = Git: https://git.example.com:8443/"), "\(search)")

            // Another host is not filled (git then fails: prompts are disabled).
            let other = try git(harness, "fill", "protocol=https\nhost=other.example.com\n\n")
            #expect(other.status != 0 && !other.stdout.contains("hünter2"))

            let reject = try git(harness, "reject", credential)
            #expect(reject.status == 0, "\(reject)")
            let gone = try git(harness, "fill", "protocol=https\nhost=git.example.com:8443\n\n")
            #expect(gone.status != 0 && !gone.stdout.contains("password="))
            #expect(try harness.secretTool(["lookup", "server", "git.example.com"]).status == 1)
        }
    }
}
