import ArgumentParser
import KeychainToolSupport

/// The root command: `keychainctl <command>`, with macOS `security(1)` command names and flags.
struct Keychainctl: ParsableCommand {
    /// The configuration this run works in, made once for the process: the registry of Apple's C
    /// API in it, which every keychain call of the tool uses. Commands read it here rather than
    /// from the engine (ArgumentParser makes the commands, so the entry point cannot hand it to them).
    static let environment = ToolEnvironment.ofThisProcess()

    static let configuration = CommandConfiguration(
        commandName: "keychainctl",
        abstract: "Manage keychains and their passwords from the command line, like macOS security(1).",
        discussion: """
            The keychain is the path given, else KEYCHAINKIT_KEYCHAIN, else \
            ~/.local/share/keychainkit/login.keychain-db. Exit status is the low byte of the \
            OSStatus (44 not found, 45 duplicate, 36 locked or interaction not allowed, \
            51 wrong password). Shell completions: keychainctl --generate-completion-script bash|zsh|fish.
            """,
        version: ToolVersion.current,
        subcommands: commands
    )

    /// The commands; `sync` exists where KeychainKit's own keychain is used (Linux): on Apple
    /// platforms iCloud Keychain synchronizes; `secret-service` exists on Linux only.
    static var commands: [ParsableCommand.Type] {
        var commands: [ParsableCommand.Type] = [
            CreateKeychain.self, DeleteKeychain.self, LockKeychain.self, UnlockKeychain.self,
            ShowKeychainInfo.self, SetKeychainSettings.self, SetKeychainPassword.self,
            AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self,
            AddInternetPassword.self, FindInternetPassword.self, DeleteInternetPassword.self,
            DumpKeychain.self, GitCredential.self,
            ImportItems.self, ExportItems.self, FindCertificate.self, FindIdentity.self,
            Exec.self, ImportCredentials.self,
        ]
        #if KEYCHAINKIT_REIMPLEMENTED
        commands.append(Sync.self)
        #endif
        #if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on keychainctl's SecretService dependency
        commands.append(SecretServiceCommand.self)
        commands.append(AppAccess.self)
        #endif
        #if os(Linux)
        commands.append(AccessLogCommand.self)
        commands.append(ServiceCommand.self)
        commands.append(AppGrantCommand.self)
        #endif
        return commands
    }
}
