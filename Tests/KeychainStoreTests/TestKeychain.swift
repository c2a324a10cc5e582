import Foundation
@testable import KeychainStore

/// A keychain file in a fresh temporary directory, with a cheap KDF and its own device key.
struct TestKeychain {
    let directory: URL
    var path: String { directory.appendingPathComponent("test.keychain-db").path }
    var deviceKeyPath: String { directory.appendingPathComponent("state/device.key").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-store-\(UUID().uuidString)")
        // An explicit mode, not one filtered by the umask: another test of this process sets
        // umask 000 for a moment, and a 0777 directory is (rightly) refused by the keychain.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    var options: KeychainDatabase.Options {
        KeychainDatabase.Options(deviceKeyPath: deviceKeyPath, newKeychainKDF: .testing(), allowTestingKDF: true)
    }

    func open(password: String? = nil) throws -> KeychainDatabase {
        try KeychainDatabase.open(path: path, password: password.map { Data($0.utf8) }, options: options)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }  // test cleanup only
}

func genericPassword(account: String, service: String = "svc", group: String = "app", secret: String,
                     protection: ProtectionClass = .whenUnlocked) -> NewItem {
    NewItem(itemClass: .genericPassword,
            attributes: ["acct": .string(account), "svce": .string(service), "agrp": .string(group), "sync": .number(0)],
            data: Data(secret.utf8), protection: protection)
}

func query(account: String, service: String = "svc") -> ItemQuery {
    var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
    query.filters = ["acct": .string(account), "svce": .string(service)]
    return query
}

func readSecret(_ database: KeychainDatabase, account: String) throws -> String? {
    try database.find(query(account: account), decrypt: true).first?.data.map { String(decoding: $0, as: UTF8.self) }
}

/// Runs `body` expecting a store error; returns it.
func storeError(_ body: () throws -> Void) -> KeychainStoreError? {
    do {
        try body()
        return nil
    } catch let error as KeychainStoreError {
        return error
    } catch {
        return .internalFailure("unexpected \(error)")
    }
}
