import Foundation
import KeychainServices

/// Per-application access: each collection's ``ApplicationAccessRecord`` (its policy and its items'
/// lists of trusted applications), kept in the collection's keychain by ``ApplicationAccessStore``.
extension SecretStore {
    /// The collection's record: its policy and its items' lists.
    /// - Throws: `isLocked` while the collection is locked (the record is a secret like any other).
    package func applicationAccessRecord(of collection: SecretCollectionID) throws(SecretServiceError) -> ApplicationAccessRecord {
        try locked { () throws(SecretServiceError) in
            guard !(try lockedState(collection)) else { throw .isLocked }
            return try ApplicationAccessStore(calls: try keychain(collection)).read()
        }
    }

    /// Changes the item's list with `change` (a new item's creator, an application the person
    /// allowed always, an item deleted: nil removes the entry).
    package func changeApplicationList(of ref: SecretItemRef, _ change: @escaping (inout ItemApplicationList?) -> Void) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            guard !(try lockedState(ref.collection)) else { throw .isLocked }
            try ApplicationAccessStore(calls: try keychain(ref.collection)).update { record in
                change(&record.items[ref.item.rawValue])
            }
        }
    }

    /// The item `CreateItem` with `replace` would overwrite (so the provider can check that the
    /// caller may change it first), or nil when it would add a new item.
    package func replacementTarget(in collection: SecretCollectionID, attributes: [String: String], contentType: String)
        throws(SecretServiceError) -> SecretItemRef?
    {
        try locked { () throws(SecretServiceError) -> SecretItemRef? in
            guard !(try lockedState(collection)) else { throw .isLocked }
            let natural = try AttributeMapping.natural(attributes, contentType: contentType)
            return try replaceable(in: try keychain(collection), attributes: attributes, natural: natural)
                .map { SecretItemRef(collection: collection, item: $0.item) }
        }
    }
}
