import InternetCredentials
import Foundation
import KeychainServices

/// The keychain a command works on — the path given, else the default one — and how it gets
/// unlocked when an operation needs its password.
struct KeychainTarget {
    /// The keychain handle.
    let keychain: SecKeychain
    /// Its absolute path (for messages and output).
    let path: String

    /// The keychain at `path`, or the default keychain (created on first use, as the library
    /// does). A named keychain that does not exist is `errSecNoSuchKeychain` unless `mayBeMissing`.
    static func open(_ path: String?, mayBeMissing: Bool = false) throws(KeychainCallError) -> KeychainTarget {
        var handle: SecKeychain?
        if let path {
            try require(SecKeychainOpen(path, &handle), "SecKeychainOpen")
        } else {
            try require(SecKeychainCopyDefault(&handle), "SecKeychainCopyDefault")
        }
        guard let handle else { throw KeychainCallError(errSecInvalidKeychain, in: "SecKeychainOpen") }
        let target = KeychainTarget(keychain: handle, path: pathOf(handle) ?? path ?? "")
        // SecKeychainOpen always succeeds; the status call reports a missing file.
        if path != nil && !mayBeMissing { _ = try target.isLocked() }
        return target
    }

    private static func pathOf(_ keychain: SecKeychain) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        var length = UInt32(buffer.count)
        guard SecKeychainGetPath(keychain, &length, &buffer) == errSecSuccess else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the keychain is locked ("when unlocked" items unreadable).
    func isLocked() throws(KeychainCallError) -> Bool {
        var status: SecKeychainStatus = 0
        try require(SecKeychainGetStatus(keychain, &status), "SecKeychainGetStatus")
        return status & SecKeychainStatus(kSecUnlockStateStatus) == 0  // Apple imports the constant as Int
    }

    /// Unlocks with `password` (for every process of the user, through the kernel keyring on Linux).
    func unlock(password: Data) throws(KeychainCallError) {
        let status = password.withUnsafeBytes { bytes in
            SecKeychainUnlock(keychain, UInt32(bytes.count), bytes.baseAddress, true)
        }
        try require(status, "SecKeychainUnlock")
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
            guard error.status == errSecAuthFailed else { throw error }
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
    func performUnlocking(_ function: String, _ operation: () -> OSStatus) throws {
        var status = operation()
        if status == errSecInteractionNotAllowed, TPMSeal.isSealed(path), try isLocked() {
            try unlockWithTPM()  // a TPM-sealed keychain needs nobody to type anything
            status = operation()
        }
        if status == errSecInteractionNotAllowed, SecretInput.isInteractive, try isLocked() {
            try unlockInteractively()
            status = operation()
        }
        try require(status, function)
    }
}
