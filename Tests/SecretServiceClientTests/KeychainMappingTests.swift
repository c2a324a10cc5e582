import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// Our provider serves the keychain itself: what Secret Service clients store, keychainctl finds
/// as the matching keychain item, and the other way round (the provider maps a client's
/// attributes to the keychain item's and back).
@Suite("KeychainKit provider and keychainctl see the same items", .integration, .tags(.external, .dbus, .gnomeKeyring, .git, .python))
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

extension KeychainMappingTests {
    /// The provider answers searches from an in-memory index of each unlocked collection; the
    /// keychain file is shared, so what keychainctl adds or deletes in its own process must be
    /// seen by the very next lookup, not after a restart.
    @Test("an item keychainctl adds or deletes while the provider runs is seen by the next lookup")
    func otherProcessWritesReachTheIndex() async throws {
        try await withProvider(.keychainKit) { harness in
            // A first search builds the provider's index of the login collection.
            let store = try harness.secretTool(["store", "--label=indexed", "service", "kk-index", "username", "first"], stdin: "first".bytes)
            #expect(store.status == 0, "\(store)")
            #expect(try harness.secretTool(["lookup", "service", "kk-index", "username", "first"]).stdoutBytes == "first".bytes)

            let add = try harness.keychainctl(["add-generic-password", "-s", "kk-index", "-a", "later", "-w"], stdin: "added elsewhere\n".bytes)
            #expect(add.status == 0, "\(add)")
            #expect(try harness.secretTool(["lookup", "service", "kk-index", "username", "later"]).stdoutBytes == "added elsewhere".bytes)
            // secret-tool search prints the attributes on standard error.
            let all = try harness.secretTool(["search", "--all", "service", "kk-index"])
            #expect(all.status == 0 && all.stderr.contains("username = later") && all.stderr.contains("username = first"), "\(all)")

            let delete = try harness.keychainctl(["delete-generic-password", "-s", "kk-index", "-a", "later"])
            #expect(delete.status == 0, "\(delete)")
            let gone = try harness.secretTool(["lookup", "service", "kk-index", "username", "later"])
            #expect(gone.status != 0 && gone.stdoutBytes.isEmpty, "\(gone)")
            #expect(try harness.secretTool(["lookup", "service", "kk-index", "username", "first"]).stdoutBytes == "first".bytes)
        }
    }
}
