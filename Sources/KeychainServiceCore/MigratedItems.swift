#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainVocabulary

/// Every item of one keychain, read for a migration between the embedded mode and the service,
/// in the form `SecItemAdd` takes back: each item's attributes (its access group, protection
/// class and synchronizable flag among them), its `class` and its `v_Data`.
///
/// Both ends read with an engine entitled to every group (`*`): a migration moves the user's whole
/// keychain, not one program's share. A read that leaves out any item (one that cannot be
/// decrypted, or one whose access control would need a prompt to release its data) refuses the
/// whole migration rather than move part of it quietly.
package enum MigratedItems {
    /// The classes a migration moves. Identities are a certificate and a key, moved apart.
    static let classes = ["genp", "inet", "cert", "keys"]

    /// The access group of the access log's key item (`AccessLog.keyAccessGroup`): never moved.
    /// Each keychain's log stays with its own key (a key moved without its log files, or over
    /// another log's, would make both unreadable), and the key is not a secret to hand out.
    static let accessLogGroup = "com.keychainkit.access-log"

    /// Why a keychain cannot be migrated as it is: its items that would not survive the move.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// Every item of the keychain under `engine` (entitled to `*`), ready to add.
    package static func read(from engine: SecItemEngine) throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        for itemClass in classes {
            let result = engine.copyMatching(["class": itemClass, "r_Attributes": true, "r_Data": true,
                                              "m_Limit": "m_LimitAll", "sync": "syna"])
            if result.status == KeychainStatus.itemNotFound.rawValue { continue }
            if let failure = result.failure { throw failure }
            if result.unreadableItems > 0 {
                throw Refusal(description: "\(result.unreadableItems) item(s) of class \(itemClass) cannot be decrypted"
                              + (result.firstUnreadableItem.map { " (\($0))" } ?? "") + "; nothing was moved. "
                              + "Unlock the keychain, or remove the damaged items first (keychainctl dump-keychain --skip-damaged lists the others)")
            }
            let found = result.value as? [[String: Any]] ?? []
            for attributes in found where accessGroup(of: attributes) != accessLogGroup {
                items.append(try addable(attributes, itemClass: itemClass))
            }
        }
        return items
    }

    /// `attributes` as an add takes them: the class named, the data kept, and the synthesised
    /// access control dropped — only when it constrains nothing beyond the protection class
    /// (`pdmn`, which stays). An item whose access control asks for more (user presence, an
    /// application password, …) is refused: storing it without that constraint would widen it.
    static func addable(_ attributes: [String: Any], itemClass: String) throws(Refusal) -> [String: Any] {
        var item = attributes
        if let policy = item["accc"] as? AccessControlPolicy, policy.flags != 0 {
            throw Refusal(description: "an item of class \(itemClass)\(name(of: item)) has access control flags "
                          + "(kSecAttrAccessControl \(policy.flags)); such items are not migrated yet, and nothing was moved. "
                          + "Move it by hand (read it, delete it, add it again after the migration)")
        }
        item["accc"] = nil
        item["class"] = itemClass
        if item["v_Data"] == nil {
            throw Refusal(description: "the data of an item of class \(itemClass)\(name(of: item)) could not be read; nothing was moved")
        }
        return item
    }

    /// The access group an item read by ``read(from:)`` is in.
    package static func accessGroup(of item: [String: Any]) -> String {
        item["agrp"] as? String ?? ""
    }

    /// A few words naming `item` for an error (its label, service or account; never its data).
    static func name(of item: [String: Any]) -> String {
        for key in ["labl", "svce", "srvr", "acct"] {
            if let text = item[key] as? String, !text.isEmpty { return " (\(key) \"\(text)\")" }
        }
        return ""
    }
}
