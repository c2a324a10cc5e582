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

/// A synchronizable generic password (`sync` = 1).
func synchronizablePassword(account: String, secret: String) -> NewItem {
    var item = genericPassword(account: account, secret: secret)
    item.attributes["sync"] = .number(1)
    return item
}

/// The synchronizable item with `account` (a default query matches non-synchronizable ones only).
func synchronizableQuery(_ account: String) -> ItemQuery {
    var syncQuery = query(account: account)
    syncQuery.synchronizable = true
    return syncQuery
}

/// Every row of the items table (tombstones included), whole, in insertion order.
func allRows(_ database: KeychainDatabase) throws -> [ItemRow] {
    try database.wholeRows("SELECT \(ItemRow.Columns.whole.sql) FROM items ORDER BY id", [])
}

func readSecret(_ database: KeychainDatabase, account: String) throws -> String? {
    try database.find(query(account: account), decrypt: true).first?.data.map { String(decoding: $0, as: UTF8.self) }
}

