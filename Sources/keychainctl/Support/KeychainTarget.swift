#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import InternetCredentials

/// The keychain a command works on — the path given, else the default one — and how it gets
/// unlocked when an operation needs its password.
struct KeychainTarget {
    /// Its absolute path: what the keychain calls name it by, and what messages and output show.
    let path: String

    /// The keychain at `path`, or the default keychain (created on first use, as the library
    /// does). A named keychain that does not exist is `errSecNoSuchKeychain` unless `mayBeMissing`.
    static func open(_ path: String?, mayBeMissing: Bool = false) throws(KeychainCallError) -> KeychainTarget {
        let target = KeychainTarget(path: path.map(KeychainFiles.resolve) ?? KeychainFiles.defaultPath)
        // Naming a keychain always succeeds (Apple's SecKeychainOpen); the status call reports a missing file.
        if path != nil && !mayBeMissing { _ = try target.isLocked() }
        return target
    }

    /// Whether the keychain is locked ("when unlocked" items unreadable).
    func isLocked() throws(KeychainCallError) -> Bool {
        let (status, unlocked) = KeychainFiles.isUnlocked(path)
        try require(status, "SecKeychainGetStatus")
        return !unlocked
    }

    /// Unlocks with `password` (for every process of the user, through the kernel keyring on Linux).
    func unlock(password: Data) throws(KeychainCallError) {
        try require(KeychainFiles.unlock(path, password: password), "SecKeychainUnlock")
    }

    /// Unlocks with the password sealed to this machine's TPM (`create-keychain --tpm`). A secret
    /// that unseals but does not open the keychain means the seal beside it is not its own (copied
    /// from another keychain, or replaced): said so, with the fix, rather than "wrong password".
    func unlockWithTPM() throws {
        let folder = TPMSeal.folder(for: path)
        var password = try TPMSeal.unseal(from: folder)
        defer { password.wipe() }
        // A Result, not a typed `catch … where`: Swift 6.3.1 crashes compiling that form here.
        if case .failure(let error) = Result(catching: { () throws(KeychainCallError) in try unlock(password: password) }) {
            guard error.status == StatusCode.authFailed else { throw error }
            throw UsageFailure(message: "the secret sealed in \(folder) does not open \(path): that seal is not this keychain's "
                               + "(replaced, or copied from another keychain); nothing was unlocked. Restore \(folder) from a backup "
                               + "made with this keychain", exitCode: 1)
        }
    }

    /// Asks for the keychain password at a no-echo prompt and unlocks.
    func unlockInteractively() throws {
        var password = try SecretInput.secret(prompt: "password to unlock \"\(path)\": ")
        defer { password.wipe() }
        try unlock(password: password)
    }

    /// Runs `operation`. If it fails because the keychain is locked and standard input is a
    /// terminal, asks for the password, unlocks and runs it once more. Without a terminal the
    /// failure stands at once (`errSecInteractionNotAllowed`, exit status 36): scripts never hang.
    func performUnlocking(_ function: String, _ operation: () -> Int32) throws {
        var status = operation()
        if status == StatusCode.interactionNotAllowed, TPMSeal.isSealed(path), try isLocked() {
            try unlockWithTPM()  // a TPM-sealed keychain needs nobody to type anything
            status = operation()
        }
        if status == StatusCode.interactionNotAllowed, SecretInput.isInteractive, try isLocked() {
            try unlockInteractively()
            status = operation()
        }
        try require(status, function)
    }
}
