#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on keychainctl's KeychainServiceCore dependency
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceCore
import SecretService

/// The options both directions of a migration take.
struct MigrationOptions: ParsableArguments {
    @Option(name: .customLong("group"), parsing: .singleValue,
            help: ArgumentHelp("An embedded access group and the program it belongs to in the service (repeat per group).",
                               valueName: "NAME=PROGRAM"))
    var pairs: [String] = []

    @Option(name: .customShort("k"), help: "The embedded keychain file (default: the embedded default keychain).")
    var keychain: String?

    /// Runs `body` on the migration these options and the environment describe, with the keychain
    /// password read at a no-echo prompt or as one line of standard input (never from argv), and
    /// prints what it did.
    func run(_ verb: String, _ body: (ServiceMigration, Data) throws(ServiceMigration.Failure) -> ServiceMigration.Summary) throws {
        do {
            let migration = try ServiceMigration.of(Keychainctl.environment.configuration, embeddedPath: keychain, pairs: pairs,
                                                    isSecretServiceItem: ProviderItemForm.isProviderItem)
            var password = try SecretInput.secret(prompt: "keychain password: ")
            defer { password.wipe() }
            let summary = try body(migration, password)
            Console.out("\(summary.stored) item(s) \(verb), \(summary.alreadyThere) already there. "
                        + "The source keychain is unchanged (\(migration.embeddedPath) stays as a backup until you remove it).")
        } catch let failure as ServiceMigration.Failure {
            throw UsageFailure(message: failure.description, exitCode: failure.status.map { Int32(UInt8(truncatingIfNeeded: $0)) } ?? 1)
        }
    }
}

/// `service migrate-in [--group NAME=PROGRAM]… [-k FILE]`: the embedded keychain into the service.
struct ServiceMigrateIn: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-in",
        abstract: "Copy your embedded keychain into the keychain service (docs/BACKUP.md).",
        discussion: """
            Every item of every class and access group is copied into your keychain in the service; \
            the embedded file is left as it is, as a backup. The keychain password (asked, or one line \
            of standard input) must open the embedded keychain; the service keychain is created with it, \
            or must open with it. Each embedded access group must be given the program it belongs to \
            with --group NAME=PROGRAM (PROGRAM: the executable's absolute path, or a group name a \
            grant hands out); keychainctl's own group goes to this keychainctl by default, except the \
            Secret Service provider's items in it, which go to the Secret Service's group \
            (org.freedesktop.secrets). A group left unnamed is listed and nothing is moved. Running \
            it again stores only what is missing: an interrupted migration is completed, nothing is \
            stored twice.
            """)

    @OptionGroup var options: MigrationOptions

    func execute() throws {
        try options.run("copied into the service") { migration, password throws(ServiceMigration.Failure) in
            try migration.migrateIn(password: password)
        }
    }
}

/// `service migrate-out [--group NAME=PROGRAM]… [-k FILE]`: the service's keychain back into a file.
struct ServiceMigrateOut: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-out",
        abstract: "Copy your keychain in the keychain service into an embedded keychain file (docs/BACKUP.md).",
        discussion: """
            Every item of every class and access group of your service keychain is copied into the \
            embedded keychain (created with the same password when missing); the service keeps its \
            copy. Each program's group in the service is given the embedded group it goes back to \
            with the same --group NAME=PROGRAM pairs as migrate-in; this keychainctl's group and the \
            Secret Service's go back to keychainctl's own. A group left unnamed is listed and nothing \
            is moved. Running it again stores only what is missing.
            """)

    @OptionGroup var options: MigrationOptions

    func execute() throws {
        try options.run("copied out of the service") { migration, password throws(ServiceMigration.Failure) in
            try migration.migrateOut(password: password)
        }
    }
}
#endif
