import KeychainToolSupport

/// The JSON object of Docker's credential-helper protocol (`store` input, `get` output).
struct DockerCredentials: Codable, Equatable {
    /// The registry, as Docker names it (`https://index.docker.io/v1/`, `ghcr.io`).
    var ServerURL: String
    /// The user name (or `<token>` for identity tokens).
    var Username: String
    /// The password or token.
    var Secret: String
}

/// The messages Docker's own helpers print (on stdout, exit status 1); the Docker client
/// recognises the first to mean "no credentials".
enum DockerHelperMessage {
    static let notFound = "credentials not found in native keychain"
    static let missingServerURL = "no credentials server URL"
    static let missingUsername = "no credentials username"
    static let usage = "Usage: docker-credential-keychainkit <store|get|erase|list|version>"
    static let version = "docker-credential-keychainkit (KeychainKit) v\(ToolVersion.current)"
}
