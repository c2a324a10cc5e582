import Foundation
import KeychainServices

/// Where an access log keeps its key item: three SecItem-shaped calls on the keychain the log is
/// about. A process logging its own keychain uses the Apple edge on that keychain file
/// (``appleEdge(keychain:)``); the keychain service, which serves each user's keychain through an
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

    /// The calls of this process's Apple edge on `keychain` (`kSecUseKeychain`).
    static func appleEdge(keychain: SecKeychain) -> AccessLogKeyItems {
        // A SecKeychain is an immutable handle (a path and a registry): safe to use from any thread.
        nonisolated(unsafe) let keychain = keychain
        return AccessLogKeyItems(
            copyData: { query in
                var query = query
                query[kSecUseKeychain as String] = keychain
                var result: CFTypeRef?
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                return (status, result as? Data)
            },
            add: { attributes in
                var attributes = attributes
                attributes[kSecUseKeychain as String] = keychain
                return SecItemAdd(attributes as CFDictionary, nil)
            },
            update: { query, changes in
                var query = query
                query[kSecUseKeychain as String] = keychain
                return SecItemUpdate(query as CFDictionary, changes as CFDictionary)
            })
    }
}
