#if os(Linux)  // the keychain service is Linux's
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import InternetCredentials
import KeychainClient  // ServiceGrantRoute: the user's grants, kept by the keychain service

/// `app grant|revoke|list`: the user's own grants in the keychain service — which program may use
/// which access group or application identifier in their keychain (docs/SERVICE.md, "How to share").
struct AppGrantCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Grant a program access groups in your keychain in the keychain service, revoke them, list them.",
        discussion: """
            The keychain service keeps these grants where your programs cannot write them, and makes and \
            removes them only with your keychain password, which it checks itself. A grant applies to a \
            program you cannot change (its executable, or the script an interpreter runs, and what it \
            maps), at that path, with that SHA-256 when --sha256 is given; the access group * cannot be \
            granted. The machine owner's grants (/etc/keychainkit/grants.d) are not listed here.
            """,
        subcommands: [AppGrant.self, AppRevoke.self, AppGrantList.self])
}

/// `app grant PROGRAM --access-group G… [--application-identifier ID] [--sha256 HEX] [-p]`.
struct AppGrant: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Let a program use access groups (or an application identifier) in your keychain.")

    @Argument(help: "The program: its executable's absolute path, or the script's for a script run by an interpreter.")
    var program: String

    @Option(name: .customLong("access-group"), help: "An access group to grant (repeat for more).")
    var accessGroups: [String] = []

    @Option(name: .customLong("application-identifier"), help: "An application identifier to grant.")
    var applicationIdentifier: String?

    @Option(help: "Only this build: the SHA-256 of the program's content, in hex.")
    var sha256: String?

    @Option(name: .customShort("p"), help: ArgumentHelp("The keychain password. Give -p last, without a value, to type it or read it from standard input.", valueName: "password"))
    var password: String?

    @Flag(name: .customLong(SecretArguments.readFlag), help: .hidden)
    var readPassword = false

    func execute() throws {
        guard program.hasPrefix("/") else { throw UsageFailure(message: "name the program by its absolute path, not \(program)") }
        var secret = try AppGrantPassword.resolve(password, read: readPassword)
        defer { secret.wipe() }
        do {
            try ServiceGrantRoute.grant(.init(executablePath: program, sha256: sha256, applicationIdentifier: applicationIdentifier,
                                              accessGroups: accessGroups), password: secret)
        } catch {
            throw KeychainCallError(KeychainFileCalls.reportedStatus(error), in: "app grant")
        }
    }
}

/// `app revoke PROGRAM [-p]`.
struct AppRevoke: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Remove every grant you made to a program; it loses that access at its next call.")

    @Argument(help: "The program, as it was granted.")
    var program: String

    @Option(name: .customShort("p"), help: ArgumentHelp("The keychain password. Give -p last, without a value, to type it or read it from standard input.", valueName: "password"))
    var password: String?

    @Flag(name: .customLong(SecretArguments.readFlag), help: .hidden)
    var readPassword = false

    func execute() throws {
        var secret = try AppGrantPassword.resolve(password, read: readPassword)
        defer { secret.wipe() }
        do {
            try ServiceGrantRoute.revoke(executablePath: program, password: secret)
        } catch {
            throw KeychainCallError(KeychainFileCalls.reportedStatus(error), in: "app revoke")
        }
    }
}

/// `app list`.
struct AppGrantList: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the grants you made, one program a line.")

    func execute() throws {
        let grants: [ServiceGrantRoute.Grant]
        do { grants = try ServiceGrantRoute.list() } catch { throw KeychainCallError(KeychainFileCalls.reportedStatus(error), in: "app list") }
        for grant in grants {
            var line = grant.executablePath
            if let sha256 = grant.sha256 { line += "  sha256 \(sha256)" }
            if let identifier = grant.applicationIdentifier { line += "  application-identifier \(identifier)" }
            if !grant.accessGroups.isEmpty { line += "  access-groups \(grant.accessGroups.joined(separator: ", "))" }
            Console.out(line)
        }
    }
}

/// The keychain password of `app grant` and `app revoke`: -p's value, typed, or read from standard input.
enum AppGrantPassword {
    static func resolve(_ value: String?, read: Bool) throws(UsageFailure) -> Data {
        if let secret = try SecretArguments.resolve(value: value, read: read, option: "-p", prompt: "keychain password: ") { return secret }
        return try SecretInput.secret(prompt: "keychain password: ")
    }
}
#endif
