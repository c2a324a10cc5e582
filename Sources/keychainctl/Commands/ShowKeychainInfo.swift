import ArgumentParser
import InternetCredentials
import KeychainServices

/// `show-keychain-info [--security] [keychain]`: lock state and auto-lock settings, and with
/// `--security` (always in JSON) how the keychain is protected.
struct ShowKeychainInfo: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-keychain-info",
        abstract: "Show a keychain's lock state and auto-lock timeout (with --security: how it is protected).")

    @OptionGroup var output: OutputOptions

    @Flag(name: .long, help: "Also show how the keychain is protected: encryption, key source, device-bound classes, KEYCHAINKIT_REQUIRE.")
    var security = false

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        #if KEYCHAINKIT_REIMPLEMENTED
        // First, so that a keychain KEYCHAINKIT_REQUIRE refuses can still be described.
        let protection = try StorageSecurityReport.of(keychain)
        if !protection.meetsRequirement {
            if output.json {
                Console.out(try ItemFormatter.serialise(["keychain": protection.path, "storageSecurity": protection.json]))
            } else {
                Console.out("Keychain \"\(protection.path)\"")
                protection.lines.forEach { Console.out($0) }
            }
            throw KeychainCallError(errSecNotAvailable, in: "SecKeychainGetStatus")
        }
        if protection.isServiceMode && keychain == nil {
            // The service holds the keychain: its lock settings are the service's to report.
            if output.json {
                Console.out(try ItemFormatter.serialise(["keychain": "service", "storageSecurity": protection.json]))
            } else {
                Console.out("Keychain served by the keychain service")
                protection.lines.forEach { Console.out($0) }
            }
            return
        }
        #endif
        let target = try KeychainTarget.open(keychain)
        var settings = SecKeychainSettings()
        settings.version = UInt32(SEC_KEYCHAIN_SETTINGS_VERS1)  // a C macro: Int32 in Swift
        try require(SecKeychainCopySettings(target.keychain, &settings), "SecKeychainCopySettings")
        let locked = try target.isLocked()
        let timeout = settings.useLockInterval.boolValue ? Int(settings.lockInterval) : 0
        if output.json {
            var info: [String: Any] = ["keychain": target.path, "locked": locked, "lockOnSleep": settings.lockOnSleep.boolValue,
                                       "timeout": timeout]
            #if KEYCHAINKIT_REIMPLEMENTED
            info["storageSecurity"] = protection.json
            #endif
            Console.out(try ItemFormatter.serialise(info))
        } else {
            let lockOnSleep = settings.lockOnSleep.boolValue ? " lock-on-sleep" : ""
            let interval = timeout > 0 ? " timeout=\(timeout)s" : " no-timeout"
            Console.out("Keychain \"\(target.path)\"\(lockOnSleep)\(interval) \(locked ? "locked" : "unlocked")")
            #if KEYCHAINKIT_REIMPLEMENTED
            if security { protection.lines.forEach { Console.out($0) } }
            #endif
        }
    }
}
