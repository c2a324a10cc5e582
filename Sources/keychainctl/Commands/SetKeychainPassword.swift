import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import InternetCredentials

/// `set-keychain-password [-o old] [-p new] [keychain]`: changes a keychain's password.
struct SetKeychainPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-password",
        abstract: "Change a keychain's password.",
        discussion: """
            Passwords not given are asked at a terminal, or read from standard input without one: \
            the old password on the first line, the new one on the second. An empty new password \
            removes the password (and the items only a password keychain can hold).
            """
    )

    @Option(name: .customShort("o"), help: ArgumentHelp("The old password (visible to other processes: prefer the prompt).", valueName: "old-password"))
    var oldPassword: String?

    @Option(name: .customShort("p"), help: ArgumentHelp("The new password (visible to other processes: prefer the prompt).", valueName: "new-password"))
    var newPassword: String?

    @Flag(name: .long, help: "Make the new password a random one sealed to this machine's TPM 2.0 (tpm2-tools).")
    var tpm = false

    @Option(name: .customLong("tpm-pcrs"), help: ArgumentHelp("With --tpm: unseal only while these PCRs keep their values.", valueName: "sha256:0,7"))
    var tpmPCRs: String?

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        let sealedFolder = TPMSeal.folder(for: target.path)
        // A TPM-sealed keychain's old password comes from the TPM unless one is given. Without a
        // terminal both passwords come from standard input, the old one on the first line (when -o
        // has no value): only the second read must end the input.
        var old = try oldPassword == nil && TPMSeal.isSealed(target.path)
            ? TPMSeal.unseal(from: sealedFolder)
            : SecretArguments.resolve(value: oldPassword, read: true, option: "-o", prompt: "old password for \"\(target.path)\": ",
                                      endsInput: newPassword != nil || tpm) ?? Data()
        defer { old.wipe() }
        guard tpm else {
            guard tpmPCRs == nil else { throw UsageFailure(message: "--tpm-pcrs needs --tpm") }
            var new = try SecretArguments.resolve(value: newPassword, read: true, option: "-p",
                                                  prompt: "new password for \"\(target.path)\": ", isNew: true) ?? Data()
            defer { new.wipe() }
            try require(KeychainFiles.changePassword(target.path, from: old, to: new), "SecKeychainChangePassword")
            // The seal now holds a password that opens nothing: remove it, so nothing reports a TPM.
            if FileManager.default.fileExists(atPath: sealedFolder) { try FileManager.default.removeItem(atPath: sealedFolder) }
            return
        }
        guard newPassword == nil else { throw UsageFailure(message: "--tpm chooses the new password: leave out -p") }
        // Seal the new secret beside the old seal; it replaces it only once the password changed.
        let staging = sealedFolder + ".new"
        if FileManager.default.fileExists(atPath: staging) { try FileManager.default.removeItem(atPath: staging) }
        var new = try TPMSeal.sealNewSecret(into: staging, pcrs: tpmPCRs)
        defer { new.wipe() }
        let status = KeychainFiles.changePassword(target.path, from: old, to: new)
        guard status == StatusCode.success else {
            try? FileManager.default.removeItem(atPath: staging)  // the keychain keeps its old password: report its error
            throw KeychainCallError(status, in: "SecKeychainChangePassword")
        }
        if FileManager.default.fileExists(atPath: sealedFolder) { try FileManager.default.removeItem(atPath: sealedFolder) }
        guard rename(staging, sealedFolder) == 0 else {
            throw UsageFailure(message: "the password changed, but \(staging) could not be renamed to \(sealedFolder) "
                               + "(\(String(cString: strerror(errno)))); rename it by hand")
        }
    }
}
