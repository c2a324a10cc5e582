import ArgumentParser
import CredentialStore
import Foundation
import KeychainServices

/// `add-generic-password -a account -s service [-l label] [-j comment] [-U] -w [password] [keychain]`.
struct AddGenericPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-generic-password",
        abstract: "Add a generic password (kSecClassGenericPassword).",
        discussion: """
            Give -w last, without a value, to type the password at a prompt that does not echo, or \
            to read one line of standard input when it is not a terminal. Without -w the password \
            is empty (with -U: unchanged). Name a keychain before a trailing -w: \
            keychainctl add-generic-password -a me -s api ~/work.keychain-db -w
            """
    )

    @OptionGroup var attributes: GenericPasswordAttributes

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
        if attributes.label == nil, let service = attributes.service { item[kSecAttrLabel as String] = service }
        try ItemWriter.add(item, secret: secret, accessible: accessible, update: update,
                           primaryKey: attributes.primaryKey, changes: attributes.changes, in: target)
    }
}
