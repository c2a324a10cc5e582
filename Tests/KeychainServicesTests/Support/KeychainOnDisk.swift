import Foundation
import KeychainEngine
import KeychainStore
import KeychainTestSupport
import KeychainVocabulary

/// An engine over a keychain file of its own (not in memory), for the tests that check what a
/// refused write left on disk: the file's bytes, and the items a second handle on the file reads.
final class KeychainOnDisk {
    let scratch: TemporaryKeychain
    let engine: SecItemEngine
    private let password = Data("device-passcode".utf8)

    /// A new keychain with a password, whose engine uses fprintd as `biometry` says.
    init(biometry: BiometryConfiguration?) throws {
        scratch = try TemporaryKeychain("biometry")
        engine = SecItemEngine(database: try scratch.open(password: password), accessGroups: AccessGroups(["app"]),
                               authenticator: OwnerAuthenticator(pinentry: nil, biometry: biometry))
    }

    deinit {
        scratch.remove()
    }

    /// Every generic password the file holds, decrypted, read through a new handle on the file.
    func storedItems() throws -> [KeychainItem] {
        try scratch.open(password: password).find(ItemQuery(itemClass: .genericPassword, accessGroups: .all), decrypt: true)
    }

    /// The bytes of the keychain's files, by path: the database and its write-ahead log, not
    /// SQLite's shared-memory index (a read may touch that).
    func fileBytes() -> [String: Data] {
        Dictionary(uniqueKeysWithValues: scratch.files().filter { !$0.path.hasSuffix("-shm") }.map { ($0.path, $0.contents) })
    }
}
