import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import InternetCredentials

/// `create-keychain [-p password] [keychain]`: creates a keychain file and leaves it unlocked.
struct CreateKeychain: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-keychain",
        abstract: "Create a keychain and leave it unlocked.",
        discussion: """
            Without -p the password is asked at a terminal (twice); without a terminal the command \
            fails (exit 36) rather than create a keychain without a password: give -p last to read \
            it from standard input, or -p "" for a keychain without a password. Name the keychain \
            before a trailing -p: keychainctl create-keychain ~/work.keychain-db -p
            """
    )

    @Option(name: .customShort("p"), help: ArgumentHelp("The new keychain's password. Give -p last, without a value, to type it or read it from standard input.", valueName: "password"))
    var password: String?

    @Flag(name: .customLong(SecretArguments.readFlag), help: .hidden)
    var readPassword = false

    @Flag(name: .long, help: "Seal a random password to this machine's TPM 2.0 instead of taking one (tpm2-tools).")
    var tpm = false

    @Option(name: .customLong("tpm-pcrs"), help: ArgumentHelp("With --tpm: unseal only while these PCRs keep their values.", valueName: "sha256:0,7"))
    var tpmPCRs: String?

    @Argument(help: "The keychain file (default: the default keychain's path).")
    var keychain: String?

    func execute() throws {
        let path = try keychain ?? KeychainTarget.open(nil).path
        if tpm { return try createSealed(at: path) }
        guard tpmPCRs == nil else { throw UsageFailure(message: "--tpm-pcrs needs --tpm") }
        var secret: Data
        if let given = try SecretArguments.resolve(value: password, read: readPassword, option: "-p",
                                                   prompt: "password for new keychain \"\(path)\": ", isNew: true) {
            secret = given
        } else if SecretInput.isInteractive {
            secret = try SecretInput.newSecret(prompt: "password for new keychain \"\(path)\": ")
        } else {
            return try createWithConfiguredPassword(at: path)
        }
        defer { secret.wipe() }
        try require(KeychainFiles.create(at: path, password: secret), "SecKeychainCreate")
    }

    /// `--tpm`: seals a random password first (nothing is created without a TPM), then creates
    /// the keychain with it; if the keychain cannot be created, the seal goes too.
    /// No password given and no terminal: the configured password file (`KEYCHAINKIT_PASSWORD_FILE`,
    /// the systemd credential), which the library takes where Apple would show a dialog. A file
    /// it refuses is reported with its path, the cause and the fix; with none configured, exit 36.
    private func createWithConfiguredPassword(at path: String) throws {
        let status = KeychainFiles.createWithConfiguredPassword(at: path)
        if status == StatusCode.unimplemented {
            throw UsageFailure(message: "no password for the new keychain: give -p last and the password on standard input, "
                               + "-p \"\" for a keychain without a password, or set KEYCHAINKIT_PASSWORD_FILE",
                               exitCode: Int32(UInt8(truncatingIfNeeded: StatusCode.interactionNotAllowed)))
        }
        try require(status, "SecKeychainCreate")
    }

    private func createSealed(at path: String) throws {
        guard password == nil, !readPassword else { throw UsageFailure(message: "--tpm chooses the password: leave out -p") }
        let absolute = KeychainLocationPath.absolute(path)
        if FileManager.default.fileExists(atPath: absolute) { throw KeychainCallError(StatusCode.duplicateKeychain, in: "SecKeychainCreate") }
        let folder = TPMSeal.folder(for: absolute)
        guard !FileManager.default.fileExists(atPath: folder) else {
            throw UsageFailure(message: "\(folder) exists already (a seal of a deleted keychain?); remove it first")
        }
        var secret = try TPMSeal.sealNewSecret(into: folder, pcrs: tpmPCRs)
        defer { secret.wipe() }
        let status = KeychainFiles.create(at: absolute, password: secret)
        if status != StatusCode.success {
            // The seal just made serves no keychain: remove it. Best-effort cleanup before a more important error.
            try? FileManager.default.removeItem(atPath: folder)  // best-effort: the keychain's error below is the one to report
        }
        try require(status, "SecKeychainCreate")
    }
}
