import ArgumentParser
import CredentialStore
import Foundation
import KeychainServices

/// `add-internet-password -a account -s server [-r protocol] [-P port] [-p path] [-U] -w [password] [keychain]`.
struct AddInternetPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-internet-password",
        abstract: "Add an internet password (kSecClassInternetPassword).",
        discussion: """
            Give -w last, without a value, to type the password at a prompt that does not echo, or \
            to read one line of standard input when it is not a terminal. Without -w the password \
            is empty (with -U: unchanged). Name a keychain before a trailing -w: \
            keychainctl add-internet-password -a me -s git.example.com -r https ~/work.keychain-db -w
            """
    )

    @OptionGroup var attributes: InternetPasswordAttributes

    @Option(name: .customShort("w"), help: ArgumentHelp("The password (visible to other processes: prefer -w last, without a value).", valueName: "password"))
    var password: String?

    @Flag(name: .customLong(SecretArguments.readFlag), help: .hidden)
    var readPassword = false

    @Flag(name: .customShort("U"), help: "Update the item if it already exists.")
    var update = false

    @Option(help: "When the item can be read.")
    var accessible: Accessibility?

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        var secret = try SecretArguments.resolve(value: password, read: readPassword, option: "-w",
                                                 prompt: "password data for new item: ")
        defer { secret?.wipe() }
        var item = attributes.dictionary
        if attributes.label == nil, let server = attributes.server { item[kSecAttrLabel as String] = server }
        try ItemWriter.add(item, secret: secret, accessible: accessible, update: update,
                           primaryKey: attributes.primaryKey, changes: attributes.changes, in: target)
    }
}
