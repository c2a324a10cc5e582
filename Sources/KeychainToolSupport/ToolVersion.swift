/// The version the command-line tools report (`keychainctl --version`,
/// `docker-credential-keychainkit version`): KeychainKit's release, one constant for both tools.
public enum ToolVersion {
    /// The release, as `MAJOR.MINOR.PATCH`.
    public static let current = "0.1.0"
}
