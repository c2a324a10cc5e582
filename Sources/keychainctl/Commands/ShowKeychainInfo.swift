import ArgumentParser
import InternetCredentials

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
            throw KeychainCallError(StatusCode.notAvailable, in: "SecKeychainGetStatus")
        }
        if protection.isServiceMode && keychain == nil {
            // The service holds the keychain: its lock state and settings come from the service.
            // A service that is absent or holds no keychain yet still gets its mode described.
            let state = Self.servedState()
            if output.json {
                var info: [String: Any] = ["keychain": "service", "storageSecurity": protection.json]
                if case .success(let served) = state {
                    info["locked"] = served.locked
                    info["lockOnSleep"] = served.lockOnSleep
                    info["timeout"] = served.timeout
                }
                Console.out(try ItemFormatter.serialise(info))
            } else {
                switch state {
                case .success(let served):
                    Console.out("Keychain served by the keychain service\(served.lockOnSleep ? " lock-on-sleep" : "")"
                                + (served.timeout > 0 ? " timeout=\(served.timeout)s" : " no-timeout") + " "
                                + (served.locked ? "locked" : "unlocked"))
                case .failure(let error):
                    Console.out("Keychain served by the keychain service (state unavailable: \(error))")
                }
                protection.lines.forEach { Console.out($0) }
            }
            return
        }
        #endif
        let target = try KeychainTarget.open(keychain)
        let (status, timeout, locksOnSleep) = KeychainFiles.settings(target.path)
        try require(status, "SecKeychainCopySettings")
        let locked = try target.isLocked()
        if output.json {
            var info: [String: Any] = ["keychain": target.path, "locked": locked, "lockOnSleep": locksOnSleep,
                                       "timeout": timeout]
            #if KEYCHAINKIT_REIMPLEMENTED
            info["storageSecurity"] = protection.json
            #endif
            Console.out(try ItemFormatter.serialise(info))
        } else {
            let lockOnSleep = locksOnSleep ? " lock-on-sleep" : ""
            let interval = timeout > 0 ? " timeout=\(timeout)s" : " no-timeout"
            Console.out("Keychain \"\(target.path)\"\(lockOnSleep)\(interval) \(locked ? "locked" : "unlocked")")
            #if KEYCHAINKIT_REIMPLEMENTED
            if security { protection.lines.forEach { Console.out($0) } }
            #endif
        }
    }

    #if KEYCHAINKIT_REIMPLEMENTED
    /// The served login keychain's lock state, auto-lock interval and lock-on-sleep, or why they are unknown.
    private static func servedState() -> Result<(locked: Bool, timeout: Int, lockOnSleep: Bool), KeychainCallError> {
        Result { () throws(KeychainCallError) -> (locked: Bool, timeout: Int, lockOnSleep: Bool) in
            let path = KeychainFiles.defaultPath
            let (settingsStatus, timeout, lockOnSleep) = KeychainFiles.settings(path)
            try require(settingsStatus, "SecKeychainCopySettings")
            let (status, unlocked) = KeychainFiles.isUnlocked(path)
            try require(status, "SecKeychainGetStatus")
            return (!unlocked, timeout, lockOnSleep)
        }
    }
    #endif
}
