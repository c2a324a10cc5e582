import ArgumentParser
import CredentialStore
import Foundation
import KeychainServices

/// `set-keychain-password [-o old] [-p new] [keychain]`: changes a keychain's password.
struct SetKeychainPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-password",
        abstract: "Change a keychain's password.",
        discussion: """
            Passwords not given are asked at a terminal, or read from standard input without one: \
            the old password on the first line, the new one on the second. An empty new password \
            removes the password (and the items only a password keychain can hold).
            """
    )

    @Option(name: .customShort("o"), help: ArgumentHelp("The old password (visible to other processes: prefer the prompt).", valueName: "old-password"))
    var oldPassword: String?

    @Option(name: .customShort("p"), help: ArgumentHelp("The new password (visible to other processes: prefer the prompt).", valueName: "new-password"))
    var newPassword: String?

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        // Without a terminal both passwords come from standard input, the old one on the first line
        // (when -o has no value): only the second read must end the input.
        var old = try SecretArguments.resolve(value: oldPassword, read: true, option: "-o",
                                              prompt: "old password for \"\(target.path)\": ",
                                              endsInput: newPassword != nil) ?? Data()
        defer { old.wipe() }
        var new = try SecretArguments.resolve(value: newPassword, read: true, option: "-p",
                                              prompt: "new password for \"\(target.path)\": ", isNew: true) ?? Data()
        defer { new.wipe() }
        try require(KeychainPasswordChange.change(target.keychain, from: old, to: new), "SecKeychainChangePassword")
    }
}
