import Foundation
import KeychainTestSupport
@testable import KeychainStore
import KeychainVocabulary

/// The store tests open the shared fixture with text passwords.
extension TemporaryKeychain {
    /// Opens the keychain with a text password (nil: none).
    func open(password: String? = nil) throws -> KeychainDatabase {
        try open(password: password.map { Data($0.utf8) }, options: nil)
    }
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

