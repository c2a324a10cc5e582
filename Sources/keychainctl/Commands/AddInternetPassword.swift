import ArgumentParser

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

    @OptionGroup var options: NewPasswordOptions

    func execute() throws {
        try options.add(attributes.dictionary, defaultLabel: attributes.server,
                        primaryKey: attributes.primaryKey, changes: attributes.changes)
    }
}
