import ArgumentParser
import Foundation
import CredentialStore
import KeychainServices

/// `delete-keychain [keychain...]`: deletes keychain files.
struct DeleteKeychain: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-keychain",
        abstract: "Delete keychains (the files and every item in them).")

    @Argument(help: "The keychain files (default: the default keychain).")
    var keychains: [String] = []

    func execute() throws {
        let paths: [String?] = keychains.isEmpty ? [nil] : keychains.map { $0 }
        for path in paths {
            let target = try KeychainTarget.open(path, mayBeMissing: true)
            try require(SecKeychainDelete(target.keychain), "SecKeychainDelete")
            try TPMSeal.removeSeal(of: target.path)  // its TPM-sealed password, if any: it opens nothing now
        }
    }
}
