#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// How ``ApplicationAccessStore`` writes its records into the keychain: the JSON of the
/// keychain-wide record (the policy) and of one item's list. Both are the secrets of hidden generic
/// passwords, so the keychain encrypts and authenticates them like every secret.
enum ApplicationAccessStoredForms {
    /// The keychain-wide record. Version 1 (written before each item had a record of its own) also
    /// holds every item's list; version 2 holds the policy only, the lists being per item.
    struct Main: Codable {
        /// 1 (lists inside) or 2 (lists per item).
        var version: Int
        /// What happens to applications not on an item's list.
        var policy: ApplicationAccessPolicy
        /// Version 1's lists by item id; absent in version 2 (a version-1 reader then fails to
        /// decode the record, which it reports as damaged rather than reading every list as empty).
        var items: [String: ItemApplicationList]?
    }

    /// The format version of the keychain-wide record with every list inside.
    static let listsInsideVersion = 1
    /// The format version of the keychain-wide record whose lists are kept per item.
    static let listsPerItemVersion = 2

    /// One item's list, naming the item it belongs to: a record copied onto another item's account
    /// does not pass for that item's list.
    struct ItemList: Codable {
        /// The Secret Service id of the item.
        var item: String
        /// The executable that created the item, if identified.
        var creator: String?
        /// Executables allowed besides the creator.
        var trusted: [String]
    }

    /// The keychain-wide record's stored bytes, decoded.
    /// - Throws: `storage` naming the keychain when they do not decode or have an unknown version.
    static func decodeMain(_ data: Data, keychain path: String) throws(SecretServiceError) -> Main {
        let main: Main
        do {
            main = try JSONDecoder().decode(Main.self, from: data)
        } catch {
            throw damaged("the per-application access record of \(path)", error)
        }
        switch (main.version, main.items) {
        case (listsInsideVersion, .some), (listsPerItemVersion, .none):
            return main
        case (listsInsideVersion, .none), (listsPerItemVersion, .some):
            throw damaged("the per-application access record of \(path)", "version \(main.version) with\(main.items == nil ? "out" : "") lists")
        default:
            throw .storage(status: KeychainStatus.decode.rawValue, reason: "the per-application access record of \(path) has version \(main.version), "
                           + "which this KeychainKit does not know: use the KeychainKit that wrote it")
        }
    }

    /// One item's stored list, decoded and checked to belong to `itemID`.
    static func decodeList(_ data: Data, itemID: String, keychain path: String) throws(SecretServiceError) -> ItemApplicationList {
        let stored: ItemList
        do {
            stored = try JSONDecoder().decode(ItemList.self, from: data)
        } catch {
            throw damaged(itemID: itemID, path: path, error)
        }
        guard stored.item == itemID else {
            throw damaged(itemID: itemID, path: path, "it names the item \(stored.item)")
        }
        return ItemApplicationList(creator: stored.creator, trusted: stored.trusted)
    }

    /// The bytes of `value` (sorted keys: the same content always gives the same bytes).
    static func encode(_ value: some Encodable) throws(SecretServiceError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return try encoder.encode(value)
        } catch {
            throw .invalidArgument("the per-application access record cannot be encoded: \(error)")
        }
    }

    private static func damaged(_ what: String, _ cause: Any) -> SecretServiceError {
        .storage(status: KeychainStatus.decode.rawValue, reason: "\(what) is damaged (\(cause)); nothing was read as empty: "
                 + "set it again with keychainctl app-access")
    }

    /// An item's list that does not decode: removing it (the item then has an empty list, and the
    /// policy decides) is the way out, since rewriting it would need reading it.
    private static func damaged(itemID: String, path: String, _ cause: Any) -> SecretServiceError {
        .storage(status: KeychainStatus.decode.rawValue, reason: "the list of trusted applications of the item \(itemID) in \(path) is damaged "
                 + "(\(cause)); nothing was read as empty: remove it with keychainctl delete-generic-password "
                 + "-s \(ApplicationAccessStore.service) -a \(ApplicationAccessStore.itemAccountPrefix)\(itemID) \(path), "
                 + "then trust the item's applications again with keychainctl app-access trust")
    }
}
