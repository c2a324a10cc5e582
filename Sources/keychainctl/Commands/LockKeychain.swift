import ArgumentParser
import InternetCredentials

/// `lock-keychain [keychain]`: locks a keychain for every process of the user.
struct LockKeychain: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock-keychain",
        abstract: "Lock a keychain, for every process of this user.",
        discussion: "\"After first unlock\" items stay readable, as on iOS; \"when unlocked\" items need the password again.")

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        try require(KeychainFiles.lock(target.path), "SecKeychainLock")
    }
}
