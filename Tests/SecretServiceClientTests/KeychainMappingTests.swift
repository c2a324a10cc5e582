import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// Our provider serves the keychain itself: what Secret Service clients store, keychainctl finds
/// as the matching keychain item, and the other way round (the provider maps a client's
/// attributes to the keychain item's and back).
@Suite("KeychainKit provider and keychainctl see the same items", .tags(.external, .dbus, .gnomeKeyring, .git, .python))
struct KeychainMappingTests {
    @Test("Python keyring ↔ generic passwords; git's libsecret helper ↔ internet passwords")
    func sameItems() async throws {
        try await withProvider(.keychainKit) { harness in
            let set = try harness.python("import sys, keyring; keyring.set_password('kk-map', 'alice', sys.stdin.read())", stdin: "from keyring ✓".bytes)
            #expect(set.status == 0, "\(set)")
            let found = try harness.keychainctl(["find-generic-password", "-s", "kk-map", "-a", "alice", "-w"])
            #expect(found.stdout == "from keyring ✓\n", "\(found)")

            #expect(try harness.keychainctl(["add-generic-password", "-s", "kk-cli", "-a", "bob", "-w"], stdin: "from keychainctl\n".bytes).status == 0)
            #expect(try harness.secretTool(["lookup", "service", "kk-cli", "username", "bob"]).stdoutBytes == "from keychainctl".bytes)
            let get = try harness.python("import keyring; print(keyring.get_password('kk-cli', 'bob'))")
            #expect(get.stdout == "from keychainctl\n", "\(get)")

            let approve = try harness.run(["/usr/bin/git", "-c", "credential.helper=", "-c", "credential.helper=\(try GitCredentialLibsecret.path())",
                                           "credential", "approve"],
                                          stdin: "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=from git\n\n".bytes)
            #expect(approve.status == 0, "\(approve)")
            let internet = try harness.keychainctl(["find-internet-password", "-s", "git.example.com", "-P", "8443", "-r", "htps", "-a", "bob", "-w"])
            #expect(internet.stdout == "from git\n", "\(internet)")
        }
    }
}
