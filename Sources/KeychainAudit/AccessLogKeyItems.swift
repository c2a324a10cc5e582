#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainClient

/// Where an access log keeps its key item: three SecItem-shaped calls on the keychain the log is
/// about. A process logging its own keychain uses KeychainClient's calls on that keychain file
/// (``client(keychainPath:)``); the keychain service, which serves each user's keychain through an
/// engine of its own (never through the process's Apple edge), passes calls on that engine.
///
/// The dictionaries carry Apple's keys as strings and never a keychain reference: each
/// implementation names its keychain itself.
package struct AccessLogKeyItems: Sendable {
    /// `SecItemCopyMatching` returning data: the status and, on success, the data.
    package var copyData: @Sendable (_ query: [String: Any]) -> (status: Int32, data: Data?)
    /// `SecItemAdd`: the status.
    package var add: @Sendable (_ attributes: [String: Any]) -> Int32
    /// `SecItemUpdate`: the status.
    package var update: @Sendable (_ query: [String: Any], _ changes: [String: Any]) -> Int32

    /// The three calls, as given.
    package init(copyData: @escaping @Sendable ([String: Any]) -> (status: Int32, data: Data?),
                 add: @escaping @Sendable ([String: Any]) -> Int32,
                 update: @escaping @Sendable ([String: Any], [String: Any]) -> Int32) {
        self.copyData = copyData
        self.add = add
        self.update = update
    }

    /// This process's SecItem calls (KeychainClient: the keychain service, or the embedded
    /// engine) on the keychain file at `keychainPath` (Apple's `kSecUseKeychain`).
    static func client(keychainPath: String) -> AccessLogKeyItems {
        let keychain = KeychainClient.Keychain.file(path: keychainPath)
        return AccessLogKeyItems(
            copyData: { query in
                let (status, result) = KeychainClient.copyMatching(query, in: keychain)
                return (status, result as? Data)
            },
            add: { attributes in KeychainClient.add(attributes, in: keychain).status },
            update: { query, changes in KeychainClient.update(query, changes, in: keychain) })
    }
}
