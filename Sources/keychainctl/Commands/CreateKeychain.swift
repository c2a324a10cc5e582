import ArgumentParser
import CredentialStore
import Foundation
import KeychainServices

/// `create-keychain [-p password] [keychain]`: creates a keychain file and leaves it unlocked.
struct CreateKeychain: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-keychain",
        abstract: "Create a keychain and leave it unlocked.",
        discussion: """
            Without -p the password is asked at a terminal (twice); without a terminal the command \
            fails (exit 36) rather than create a keychain without a password: give -p last to read \
            it from standard input, or -p "" for a keychain without a password. Name the keychain \
            before a trailing -p: keychainctl create-keychain ~/work.keychain-db -p
            """
    )

    @Option(name: .customShort("p"), help: ArgumentHelp("The new keychain's password. Give -p last, without a value, to type it or read it from standard input.", valueName: "password"))
    var password: String?

    @Flag(name: .customLong(SecretArguments.readFlag), help: .hidden)
    var readPassword = false

    @Argument(help: "The keychain file (default: the default keychain's path).")
    var keychain: String?

    func execute() throws {
        let path = try keychain ?? KeychainTarget.open(nil).path
        var secret: Data
        if let given = try SecretArguments.resolve(value: password, read: readPassword, option: "-p",
                                                   prompt: "password for new keychain \"\(path)\": ", isNew: true) {
            secret = given
        } else if SecretInput.isInteractive {
            secret = try SecretInput.newSecret(prompt: "password for new keychain \"\(path)\": ")
        } else {
            throw KeychainCallError(errSecInteractionNotAllowed, in: "SecKeychainCreate")
        }
        defer { secret.wipe() }
        var created: SecKeychain?
        let status = secret.withUnsafeBytes { bytes in
            SecKeychainCreate(path, UInt32(bytes.count), bytes.baseAddress, false, nil, &created)
        }
        try require(status, "SecKeychainCreate")
    }
}
