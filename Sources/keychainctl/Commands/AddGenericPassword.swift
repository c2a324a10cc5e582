import ArgumentParser

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

    @OptionGroup var options: NewPasswordOptions

    func execute() throws {
        try options.add(attributes.dictionary, defaultLabel: attributes.service,
                        primaryKey: attributes.primaryKey, changes: attributes.changes)
    }
}
