import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A collection's id: the last element of its D-Bus object path
/// (`/org/freedesktop/secrets/collection/<id>`), `[A-Za-z0-9_]` only, stable for the
/// collection's life and across daemon restarts (kept in the collection metadata file).
package struct SecretCollectionID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The id.
    package let rawValue: String

    /// The id, or nil when `rawValue` is empty or has a character outside `[A-Za-z0-9_]`.
    package init?(rawValue: String) {
        guard SecretIdentifierSyntax.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// `login`: the default keychain, which always exists.
    package static let login = SecretCollectionID(validated: "login")

    init(validated: String) { rawValue = validated }

    /// The id.
    package var description: String { rawValue }
}

/// An item's id within its collection: the last element of its D-Bus object path, the lower-case
/// hex of the keychain item's persistent reference (class + item UUID, stable across updates
/// and restarts).
package struct SecretItemID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The id.
    package let rawValue: String

    /// The id, or nil when `rawValue` is not the hex of a 20-byte persistent reference.
    package init?(rawValue: String) {
        // Checked on the UTF-8 bytes: every call on an item checks its path's id, and Character's
        // isHexDigit and isUppercase look up Unicode properties for each of the 40.
        guard rawValue.utf8.count == 40, rawValue.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        self.rawValue = rawValue
    }

    init(persistentReference: Data) {
        rawValue = HexEncoding.string(persistentReference)
    }

    /// The persistent reference's bytes.
    var persistentReference: Data {
        var bytes = Data()
        var index = rawValue.startIndex
        while index < rawValue.endIndex {
            let next = rawValue.index(index, offsetBy: 2)
            bytes.append(UInt8(rawValue[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    /// The id.
    package var description: String { rawValue }
}

/// An item: its collection and its id there.
package struct SecretItemRef: Hashable, Sendable, CustomStringConvertible {
    /// The collection that holds the item.
    package var collection: SecretCollectionID
    /// The item's id in that collection.
    package var item: SecretItemID

    /// The reference.
    package init(collection: SecretCollectionID, item: SecretItemID) {
        self.collection = collection
        self.item = item
    }

    /// `collection/item`.
    package var description: String { "\(collection)/\(item)" }
}

/// A collection's properties (`org.freedesktop.Secret.Collection`).
package struct SecretCollectionInfo: Equatable, Sendable {
    /// `Label`.
    package var label: String
    /// `Created`.
    package var created: Date
    /// `Modified`: the last change to the collection's label or items through this provider.
    package var modified: Date
    /// `Locked`.
    package var isLocked: Bool
}

/// An item's properties (`org.freedesktop.Secret.Item`), readable only while its collection is unlocked.
package struct SecretItemInfo: Equatable, Sendable {
    /// `Label`.
    package var label: String
    /// `Attributes`.
    package var attributes: [String: String]
    /// `Created`.
    package var created: Date
    /// `Modified`.
    package var modified: Date
}

/// A secret and its content type (the `Secret` struct's `value` and `content_type`, decrypted).
package struct SecretValue: Equatable, Sendable {
    /// The secret's bytes.
    package var bytes: [UInt8]
    /// Its MIME type, `text/plain` for passwords.
    package var contentType: String

    /// A secret.
    package init(bytes: [UInt8], contentType: String = "text/plain") {
        self.bytes = bytes
        self.contentType = contentType
    }
}

/// The results of `SearchItems`: items in unlocked collections and items in locked ones.
package struct SecretSearchResult: Equatable, Sendable {
    /// Matching items whose collection is unlocked.
    package var unlocked: [SecretItemRef]
    /// Matching items whose collection is locked. Always empty here: a locked keychain's item
    /// attributes are encrypted, so its items cannot be matched (see ``lockedCollections``).
    package var locked: [SecretItemRef]
    /// The collections that were locked and so not searched. The D-Bus layer does not use it yet:
    /// `SearchItems` cannot return a prompt, so an unlock-then-search (what libsecret's
    /// `SECRET_SEARCH_UNLOCK` would want) has no place in the protocol as it stands.
    package var lockedCollections: [SecretCollectionID] = []

    /// A result.
    package init(unlocked: [SecretItemRef], locked: [SecretItemRef], lockedCollections: [SecretCollectionID] = []) {
        self.unlocked = unlocked
        self.locked = locked
        self.lockedCollections = lockedCollections
    }
}

/// Which characters an id may have: those of a D-Bus object path element.
enum SecretIdentifierSyntax {
    static func isValid(_ text: String) -> Bool {
        // Checked on the UTF-8 bytes: every call checks the ids in its object path, and a
        // CharacterSet or Character lookup costs more than the rest.
        !text.isEmpty && text.utf8.allSatisfy(isAllowed)
    }

    /// An id made from a label: every other character becomes `_`; empty → `collection`.
    static func sanitize(_ label: String) -> String {
        let mapped = String(label.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && isAllowed(UInt8(scalar.value)) ? Character(scalar) : "_"
        })
        return mapped.isEmpty ? "collection" : String(mapped.prefix(64))
    }

    /// `[A-Za-z0-9_]`: within ASCII, `CharacterSet.alphanumerics` and the underscore.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
    }
}
