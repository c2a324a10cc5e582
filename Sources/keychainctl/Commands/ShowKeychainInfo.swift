import ArgumentParser
import CredentialStore
import KeychainServices

/// `show-keychain-info [keychain]`: lock state and auto-lock settings.
struct ShowKeychainInfo: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-keychain-info",
        abstract: "Show a keychain's lock state and auto-lock timeout.")

    @OptionGroup var output: OutputOptions

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        var settings = SecKeychainSettings()
        settings.version = SEC_KEYCHAIN_SETTINGS_VERS1
        try require(SecKeychainCopySettings(target.keychain, &settings), "SecKeychainCopySettings")
        let locked = try target.isLocked()
        let timeout = settings.useLockInterval ? Int(settings.lockInterval) : 0
        if output.json {
            let info: [String: Any] = ["keychain": target.path, "locked": locked, "lockOnSleep": settings.lockOnSleep,
                                       "timeout": timeout]
            Console.out(try ItemFormatter.serialise(info))
        } else {
            let lockOnSleep = settings.lockOnSleep ? " lock-on-sleep" : ""
            let interval = timeout > 0 ? " timeout=\(timeout)s" : " no-timeout"
            Console.out("Keychain \"\(target.path)\"\(lockOnSleep)\(interval) \(locked ? "locked" : "unlocked")")
        }
    }
}
