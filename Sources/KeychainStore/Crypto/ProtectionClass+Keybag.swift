import KeychainVocabulary

// How the keybag wraps a class key: a detail of the keychain file, so it stays in the store.
extension ProtectionClass {
    /// Whether the class key is protected by the keychain password (when it has one).
    var isPasswordProtected: Bool { availability != .always }
}
