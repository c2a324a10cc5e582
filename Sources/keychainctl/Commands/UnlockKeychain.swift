import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import InternetCredentials

/// `unlock-keychain [-p password] [keychain]`: unlocks a keychain for every process of the user
/// until its auto-lock timeout.
struct UnlockKeychain: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock-keychain",
        abstract: "Unlock a keychain, for every process of this user until its auto-lock timeout.",
        discussion: """
            Without -p: succeeds if the keychain is already unlocked, sealed to the TPM \
            (create-keychain --tpm) or KEYCHAINKIT_PASSWORD_FILE \
            unlocks it; otherwise asks at a terminal, and without one fails at once (exit 36). \
            Name the keychain before a trailing -p: keychainctl unlock-keychain ~/work.keychain-db -p
            """
    )

    @Option(name: .customShort("p"), help: ArgumentHelp("The password. Give -p last, without a value, to type it or read it from standard input.", valueName: "password"))
    var password: String?

    @Flag(name: .customLong(SecretArguments.readFlag), help: .hidden)
    var readPassword = false

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        if var secret = try SecretArguments.resolve(value: password, read: readPassword, option: "-p",
                                                    prompt: "password to unlock \"\(target.path)\": ") {
            defer { secret.wipe() }
            return try target.unlock(password: secret)
        }
        if TPMSeal.isSealed(target.path), try target.isLocked() { return try target.unlockWithTPM() }
        let status = KeychainFiles.unlock(target.path, password: nil)
        if status == StatusCode.interactionNotAllowed && SecretInput.isInteractive {
            return try target.unlockInteractively()
        }
        try require(status, "SecKeychainUnlock")
    }
}
