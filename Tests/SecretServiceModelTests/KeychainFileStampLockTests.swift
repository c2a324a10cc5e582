import Foundation
import KeychainServices
import KeychainTestSupport
@testable import SecretService
import Testing

/// Taking a stamp of a keychain file must leave SQLite's locks alone. A POSIX lock belongs to
/// the process and the file, and closing any descriptor of the file drops it: a stamp that opened
/// and closed `-shm` dropped the locks this process's connection holds on it, after which another
/// process opening the keychain believed it was alone and started `-shm` afresh under the
/// connection's mapping of it (a SIGBUS in the provider, seen in a combined test run).
@Suite("Secret Service store: stamps keep SQLite's locks")
struct KeychainFileStampLockTests {
    /// The POSIX locks this process holds on `path`.
    private static func locksHeld(on path: String) throws -> Int {
        try #require(ProcessLocks.held(on: path), "\(path) exists and /proc/locks can be read")
    }

    @Test("a stamp leaves every lock SQLite holds on -shm in place, and another process's write after it harms nothing")
    func stampKeepsLocks() throws {
        try IsolatedKeychains.withStore { store, directory in
            let path = directory + "/login.keychain-db"
            #expect(IsolatedKeychains.addGeneric(service: "stamp", account: "a", secret: "one") == errSecSuccess)
            let shm = path + "-shm"
            let before = try Self.locksHeld(on: shm)
            try #require(before > 0, "this process's connection holds locks on \(shm)")
            let first = KeychainFileStamp(path: path)
            _ = KeychainFileStamp(path: path)
            #expect(try Self.locksHeld(on: shm) == before, "a stamp dropped SQLite's locks on -shm")

            // Another process writes; this process's connection then reads and writes as before,
            // and the stamp moves.
            let run = try KeychainctlRunner.run(["add-generic-password", "-s", "stamp", "-a", "b", "-w"], stdin: "two\n", directory: directory)
            try #require(run.status == 0, "keychainctl add-generic-password: \(run)")
            #expect(KeychainFileStamp(path: path) != first)
            #expect(IsolatedKeychains.lookup([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "stamp",
                                              kSecAttrAccount as String: "b"]).1 == "two")
            #expect(IsolatedKeychains.addGeneric(service: "stamp", account: "c", secret: "three") == errSecSuccess)
            _ = store
        }
    }
}
