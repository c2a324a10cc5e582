import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import InternetCredentials
#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainAudit dependency
import KeychainAudit
#endif

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
            try require(KeychainFiles.delete(target.path), "SecKeychainDelete")
            try TPMSeal.removeSeal(of: target.path)  // its TPM-sealed password, if any: it opens nothing now
            #if os(Linux)
            // The access log is about this keychain and its key went with it: a new keychain at
            // this path starts a new log instead of refusing to continue one it cannot verify.
            do {
                try AccessLogFiles(keychainPath: target.path).removeAll()
            } catch {
                throw UsageFailure(message: "the keychain was deleted, but its access log was not: \(error.description)")
            }
            #endif
        }
    }
}
