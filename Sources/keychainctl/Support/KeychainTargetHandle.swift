import InternetCredentials
import KeychainServices

extension KeychainTarget {
    /// Apple's handle on the keychain (`kSecUseKeychain`), for the calls keychainctl still makes
    /// through Apple's CF-typed API: keys, certificates and identities as objects, and the item
    /// searches. Naming a keychain succeeds whether or not the file exists (`SecKeychainOpen`).
    var keychain: SecKeychain {
        get throws(KeychainCallError) {
            var handle: SecKeychain?
            try require(SecKeychainOpen(path, &handle), "SecKeychainOpen")
            guard let handle else { throw KeychainCallError(errSecInvalidKeychain, in: "SecKeychainOpen") }
            return handle
        }
    }
}
