import ArgumentParser
import InternetCredentials

/// `set-keychain-settings [-lu] [-t timeout] [keychain]`: the auto-lock settings.
struct SetKeychainSettings: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-settings",
        abstract: "Set a keychain's auto-lock timeout.",
        discussion: """
            Without -t and -u the keychain never locks by itself. The timeout counts from the \
            unlock and applies from the next unlock-keychain.
            """
    )

    @Flag(name: .customShort("l"), help: "Lock when the system sleeps (the keychain service locks it as the machine wakes; a keychain file without the service ignores this).")
    var lockOnSleep = false

    @Flag(name: .customShort("u"), help: "Lock after the timeout (300 seconds unless -t is given).")
    var useTimeout = false

    @Option(name: .customShort("t"), help: ArgumentHelp("The timeout in seconds.", valueName: "seconds"))
    var timeout: UInt32?

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        let interval = timeout ?? (useTimeout ? 300 : 0)
        try require(KeychainFiles.setSettings(seconds: interval, lockOnSleep: lockOnSleep, target.path), "SecKeychainSetSettings")
    }
}
