import ArgumentParser
import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `git-credential get|store|erase`: git's credential-helper protocol, credentials kept as
/// internet passwords (protocol, host, port, path, user name) in the default keychain.
///
/// Set up with `git config --global credential.helper '!keychainctl git-credential'`.
struct GitCredential: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "A git credential helper: git config --global credential.helper '!keychainctl git-credential'",
        discussion: """
            git writes protocol, host, path, username and password lines on standard input; get \
            answers username= and password= lines. Credentials are internet passwords in the \
            default keychain (KEYCHAINKIT_KEYCHAIN). A locked keychain is not unlocked here (git \
            owns standard input): run keychainctl unlock-keychain first. Other actions are ignored.
            """
    )

    @Argument(help: "get, store or erase (as git calls it).")
    var action: String

    func execute() throws { try Self.answer(action) }

    /// Answers git's `action` (`get`, `store`, `erase`; others are ignored) from standard input.
    /// Static so that the hot path (``HotCommand``) answers `get` without ArgumentParser.
    static func answer(_ action: String) throws {
        do {
            try perform(action)
        } catch let error as KeychainCallError where error.status == StatusCode.interactionNotAllowed {
            throw UsageFailure(message: "the keychain is locked: run keychainctl unlock-keychain first (\(error.appleMessage))",
                               exitCode: error.exitCode)
        }
    }

    /// Which of the two values ("username" or "password") holds a character that would break git's
    /// line protocol (LF, CR or NUL), if any.
    static func fieldBreakingTheProtocol(username: String, password: String) -> String? {
        let breaking: (Unicode.Scalar) -> Bool = { $0 == "\n" || $0 == "\r" || $0 == "\0" }
        if username.unicodeScalars.contains(where: breaking) { return "username" }
        if password.unicodeScalars.contains(where: breaking) { return "password" }
        return nil
    }

    private static func perform(_ action: String) throws {
        guard ["get", "store", "erase"].contains(action) else { return }  // git's rule: ignore unknown actions
        let message = GitCredentialMessage.readStandardInput()
        guard let scheme = message["protocol"], let hostAndPort = message["host"] else { return }
        let (host, port) = ServerAddress.splitHostPort(hostAndPort)
        var query = InternetCredential(scheme: scheme, host: host, port: port, path: message["path"],
                                       account: message["username"])
        switch action {
        case "get":
            guard let found = try InternetCredentialStore.find(query, exactLocation: true).first, let secret = found.secret,
                  let password = String(data: secret, encoding: .utf8)
            else { return }
            try Self.record(.read, found)
            // A value with a line break would add lines of its own to the answer (`host=`,
            // `protocol=`…), which git would adopt: such a credential is never printed.
            if let field = Self.fieldBreakingTheProtocol(username: found.account ?? "", password: password) {
                throw UsageFailure(message: "the stored \(field) for \(hostAndPort) contains a line break or NUL, which git's "
                                   + "credential protocol cannot carry; it is not given to git. Replace it with keychainctl "
                                   + "add-internet-password -U")
            }
            Console.outVerbatim("username=\(found.account ?? "")\npassword=\(password)\n")
        case "store":
            guard query.account != nil, let password = message["password"] else { return }
            if let field = Self.fieldBreakingTheProtocol(username: query.account ?? "", password: password) {
                throw UsageFailure(message: "the \(field) contains a carriage return or NUL, which git's credential protocol "
                                   + "cannot carry back; it was not stored")
            }
            query.secret = Data(password.utf8)
            query.label = hostAndPort
            var existing = query
            existing.label = nil
            let existed = try !InternetCredentialStore.find(existing, exactLocation: true).isEmpty
            try AccessRecording.prepareToRecord(in: try KeychainTarget.open(nil))
            try InternetCredentialStore.save(query)
            try Self.record(existed ? .update : .create, query)
        default:
            let deleted = try InternetCredentialStore.delete(query, exactLocation: true,
                                                             onlyWithSecret: message["password"].map { Data($0.utf8) })
            if deleted > 0 { try Self.record(.delete, query) }
        }
    }

    /// Records the access in the default keychain's access log, as git's helper.
    private static func record(_ operation: AccessRecording.Operation, _ credential: InternetCredential) throws {
        try AccessRecording.record(operation, [.init(label: credential.label, service: credential.host, account: credential.account)],
                                   in: try KeychainTarget.open(nil), channel: .gitCredentialHelper)
    }
}
