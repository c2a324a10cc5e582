/// The version the command-line tools report (`keychainctl --version`,
/// `docker-credential-keychainkit version`): KeychainKit's release, one constant for both tools.
package enum ToolVersion {
    /// The release, as `MAJOR.MINOR.PATCH`.
    package static let current = "0.1.0"
}
