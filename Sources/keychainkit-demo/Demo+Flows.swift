import Foundation
import KeychainKit

/// Credentials an app might keep.
struct Credentials: Codable, Sendable {
    var username: String
    var password: String
}

extension Demo {
    func sessionToken() throws {
        step("1. Session token (String)")
        let token = UUID().uuidString
        try keychain.set(token, forKey: "session-token")
        let readBack = try keychain.string(forKey: "session-token")
        note("stored \(redacted(token)); read back \(redacted(readBack)); equal: \(readBack == token)")
        note("contains(\"session-token\"): \(try keychain.contains("session-token"))")
        try keychain.removeValue(forKey: "session-token")
        note("after removeValue: \(redacted(try keychain.string(forKey: "session-token")))")
    }

    func codableCredentials() throws {
        step("2. Codable credentials")
        try keychain.set(Credentials(username: "alice", password: UUID().uuidString), forKey: "credentials")
        let credentials = try keychain.value(Credentials.self, forKey: "credentials")
        note("user: \(credentials?.username ?? "nil"), password: \(redacted(credentials?.password))")
        note("allKeys: \(try keychain.allKeys())")
    }

    func tokenExpiry() throws {
        step("3. OAuth tokens and expiry")
        let tokens = TokenStore(keychain: keychain)
        try tokens.save(OAuthTokens(accessToken: UUID().uuidString, refreshToken: UUID().uuidString, expiresIn: 90))
        note("stored: \(try tokens.load().map { "\($0)" } ?? "nil")")
        note("expired with 60 s leeway: \(try tokens.isExpired(leeway: 60))")
        note("expired with 120 s leeway: \(try tokens.isExpired(leeway: 120))")
        let refreshed = try tokens.saveRefreshed(OAuthTokens(accessToken: UUID().uuidString, expiresIn: 3600))
        note("after refresh the refresh token was kept: \(refreshed.refreshToken != nil)")
        try tokens.clear()
        note("after logout: \(try tokens.load().map { "\($0)" } ?? "signed out")")
    }

    func userDefaultsMigration() throws {
        step("4. Migration out of UserDefaults")
        defaults.set(UUID().uuidString, forKey: "legacyApiKey")
        defaults.set(Data(UUID().uuidString.utf8), forKey: "legacyDeviceSecret")
        let moved = try keychain.migrateFromUserDefaults(["legacyApiKey", "legacyDeviceSecret", "neverStored"], defaults: defaults)
        note("moved: \(moved)")
        note("left in UserDefaults: \(defaults.object(forKey: "legacyApiKey") != nil)")
        let again = try keychain.migrateFromUserDefaults(["legacyApiKey", "legacyDeviceSecret"], defaults: defaults)
        note("second run moved: \(again)")
    }

    func firstLaunchCleanup() throws {
        step("5. First-launch cleanup")
        let marker = Keychain.firstLaunchMarkerKey(service: service)
        defaults.removeObject(forKey: marker)
        try keychain.set("left by a previous installation", forKey: "stale")
        let first = try keychain.removeStaleItemsOnFirstLaunch(defaults: defaults)
        note("first launch: \(first.isFirstLaunch), removed: \(first.removedKeys)")
        try keychain.set(UUID().uuidString, forKey: "new-session")
        let second = try keychain.removeStaleItemsOnFirstLaunch(defaults: defaults)
        note("second launch: \(second.isFirstLaunch), removed: \(second.removedKeys), kept: \(try keychain.allKeys())")
    }

    func asyncAccess() async throws {
        step("6. async access (the call runs off the caller's executor)")
        try await keychain.async.set(UUID().uuidString, forKey: "async-token")
        let token = try await keychain.async.string(forKey: "async-token")
        note("read back \(redacted(token))")
    }

    func errorsCarryTheStatus() {
        step("7. Errors keep the OSStatus")
        do {
            try keychain.set(Data([0xFF, 0xFE]), forKey: "binary")
            _ = try keychain.string(forKey: "binary")
        } catch {
            note("\(error)")
            note(error.errorDescription ?? "")
        }
        do {
            _ = try Keychain(service: service, synchronizable: true)
                .accessControl(.userPresence)
                .string(forKey: "x")
        } catch KeychainError.invalidArgument {
            note("synchronizable + access control is rejected before reaching the keychain")
        } catch {
            note("unexpected: \(error)")
        }
    }
}
