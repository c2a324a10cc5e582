import Foundation
import KeychainKit

/// The demo's steps, in order, on one service of the default keychain.
struct Demo: Sendable {
    let service: String
    let keychain: Keychain

    init(service: String) {
        self.service = service
        self.keychain = Keychain(service: service)
    }

    /// The UserDefaults suite standing in for the app's defaults (removed at the end).
    var defaults: UserDefaults {
        UserDefaults(suiteName: service) ?? .standard
    }

    func run() async throws {
        step("Default keychain: \(keychain)")
        try keychain.removeAll()
        try sessionToken()
        try codableCredentials()
        try tokenExpiry()
        try userDefaultsMigration()
        try firstLaunchCleanup()
        try await asyncAccess()
        errorsCarryTheStatus()
        cleanUp()
        step("Done: every item and default the demo wrote is removed.")
    }

    func step(_ text: String) {
        print("\n== \(text)")
    }

    func note(_ text: String) {
        print("   \(text)")
    }

    /// Removes the demo's items and its UserDefaults suite.
    func cleanUp() {
        do {
            try keychain.removeAll()
        } catch {
            note("could not remove the demo's items: \(error.localizedDescription)")
        }
        defaults.removePersistentDomain(forName: service)
    }
}

/// Describes a secret without showing it.
func redacted(_ secret: String?) -> String {
    guard let secret else {
        return "nil"
    }
    return "<\(secret.count) characters>"
}
