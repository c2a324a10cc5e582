import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainToolSupport

/// Docker's credential-helper protocol: `store` reads the JSON credentials, `get` and `erase` read
/// a server URL, `list` prints a JSON map of server URL to user name; errors are one line on stdout
/// with exit status 1. Credentials are internet passwords labelled "Docker Credentials" (as
/// Docker's macOS helper labels them), the server URL as Docker wrote it kept in the comment.
enum DockerCredentialHelper {
    /// What to print on stdout and the exit status.
    struct Outcome {
        var output: Data
        var exitCode: Int32
    }

    static let label = "Docker Credentials"

    /// The configuration this run works in, made once for the process (main.swift prepares it):
    /// the registry of Apple's C API in it, which the helper's keychain calls use.
    static let environment = ToolEnvironment.ofThisProcess()

    /// Whether `action` reads standard input (Docker writes JSON or a server URL to it); the others
    /// must not wait for input that never comes (`--help` typed at a terminal).
    static func readsInput(_ action: String) -> Bool {
        ["store", "get", "erase"].contains(action)
    }

    /// Runs one action on the helper's whole standard input.
    static func run(action: String, input: Data) -> Outcome {
        do {
            switch action {
            case "store": return try store(input)
            case "get": return try get(serverURL(input))
            case "erase": return try erase(serverURL(input))
            case "list": return try list()
            case "version", "--version", "-v": return line(DockerHelperMessage.version, 0)
            case "help", "--help", "-h": return line(DockerHelperMessage.usage, 0)
            default: return line(DockerHelperMessage.usage, 1)
            }
        } catch let failure as HelperFailure {
            return line(failure.message, 1)
        } catch let error as KeychainCallError {
            return line(error.message, 1)
        } catch let failure as DockerAccessRecording.Failure {
            return line(failure.message, 1)
        } catch {
            return line(SystemErrorText.of(error), 1)
        }
    }

    private struct HelperFailure: Error {
        var message: String
    }

    private static func store(_ input: Data) throws -> Outcome {
        let credentials: DockerCredentials
        do {
            credentials = try JSONDecoder().decode(DockerCredentials.self, from: input)
        } catch {
            throw HelperFailure(message: "invalid credentials JSON on standard input")
        }
        guard !credentials.ServerURL.trimmingWhitespaceAndNewlines().isEmpty else {
            throw HelperFailure(message: DockerHelperMessage.missingServerURL)
        }
        guard !credentials.Username.isEmpty else { throw HelperFailure(message: DockerHelperMessage.missingUsername) }
        let server = credentials.ServerURL.trimmingWhitespaceAndNewlines()
        let address = try parse(server)
        // A keychain that cannot log refuses here, before the old credential is deleted.
        try DockerAccessRecording.prepareToRecord()
        // One credential per registry: a new user name replaces the old one.
        try InternetCredentialStore.delete(query(address), exactLocation: true)
        var credential = query(address)
        credential.account = credentials.Username
        credential.secret = Data(credentials.Secret.utf8)
        credential.comment = server
        try InternetCredentialStore.save(credential)
        try DockerAccessRecording.record(.update, credential)
        return Outcome(output: Data(), exitCode: 0)
    }

    private static func get(_ server: String) throws -> Outcome {
        guard let found = try matching(server).first, let secret = found.secret else {
            throw HelperFailure(message: DockerHelperMessage.notFound)
        }
        guard let secretText = String(data: secret, encoding: .utf8) else {
            throw HelperFailure(message: "the stored secret is not UTF-8 text")
        }
        let credentials = DockerCredentials(ServerURL: server, Username: found.account ?? "", Secret: secretText)
        try DockerAccessRecording.record(.read, found)
        return Outcome(output: try encode(credentials) + Data("\n".utf8), exitCode: 0)
    }

    private static func erase(_ server: String) throws -> Outcome {
        let erased = query(try parse(server))
        guard try InternetCredentialStore.delete(erased, exactLocation: true) > 0 else { throw HelperFailure(message: DockerHelperMessage.notFound) }
        try DockerAccessRecording.record(.delete, erased)
        return Outcome(output: Data(), exitCode: 0)
    }

    private static func list() throws -> Outcome {
        var servers: [String: String] = [:]
        for credential in try InternetCredentialStore.find(InternetCredential(scheme: "", host: "", label: label)) {
            let url = credential.comment ?? "\(credential.scheme)://\(credential.host)\(credential.port.map { ":\($0)" } ?? "")\(credential.path ?? "")"
            servers[url] = credential.account ?? ""
        }
        return Outcome(output: try encode(servers) + Data("\n".utf8), exitCode: 0)
    }

    // MARK: Helpers

    /// The server URL from `get`/`erase` input (the whole input, trimmed).
    private static func serverURL(_ input: Data) throws -> String {
        let server = String(decoding: input, as: UTF8.self).trimmingWhitespaceAndNewlines()
        guard !server.isEmpty else { throw HelperFailure(message: DockerHelperMessage.missingServerURL) }
        return server
    }

    private static func parse(_ server: String) throws -> (scheme: String, host: String, port: Int?, path: String?) {
        guard let address = ServerAddress.parseURL(server) else { throw HelperFailure(message: "invalid server URL") }
        return address
    }

    private static func query(_ address: (scheme: String, host: String, port: Int?, path: String?)) -> InternetCredential {
        InternetCredential(scheme: address.scheme, host: address.host, port: address.port, path: address.path, label: label)
    }

    /// Docker credentials for exactly this registry: same scheme, host, port and path
    /// (`ghcr.io`, `https://ghcr.io` and `https://ghcr.io/` are the same registry).
    private static func matching(_ server: String) throws -> [InternetCredential] {
        try InternetCredentialStore.find(query(try parse(server)), exactLocation: true)
    }

    private static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    private static func line(_ text: String, _ exitCode: Int32) -> Outcome {
        Outcome(output: Data((text + "\n").utf8), exitCode: exitCode)
    }
}
