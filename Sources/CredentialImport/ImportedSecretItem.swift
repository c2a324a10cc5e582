#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One Secret Service item read from another secret store's file: what `keychainctl
/// import-credentials` stores in a collection of the Secret Service provider.
package struct ImportedSecretItem: Sendable, Equatable {
    /// The item's label (gnome-keyring's display name).
    package var label: String
    /// The item's attributes as Secret Service clients see them (uint32 attributes in decimal,
    /// gnome-keyring's internal `gkr:compat:` bookkeeping left out).
    package var attributes: [String: String]
    /// The secret, byte for byte.
    package var secret: Data
    /// When the item was created and last changed, where the file says.
    package var created: Date?
    package var modified: Date?

    package init(label: String, attributes: [String: String], secret: Data, created: Date? = nil, modified: Date? = nil) {
        self.label = label
        self.attributes = attributes
        self.secret = secret
        self.created = created
        self.modified = modified
    }
}

/// One collection (a gnome-keyring keyring) read from a file, with its items.
package struct ImportedCollection: Sendable, Equatable {
    /// The collection's id in the source store: a keyring file's name without `.keyring`
    /// (`login`), which is also its D-Bus path there (`/org/freedesktop/secrets/collection/login`).
    package var identifier: String
    /// The collection's label (`Login`).
    package var label: String
    /// The items, in file order.
    package var items: [ImportedSecretItem]
    /// Whether the file was encrypted with a password (false: the plain, password-less format).
    package var isEncrypted: Bool
    /// The password that opened it (empty for a plain file or an encrypted one without password).
    package var password: Data

    package init(identifier: String, label: String, items: [ImportedSecretItem], isEncrypted: Bool, password: Data = Data()) {
        self.identifier = identifier
        self.label = label
        self.items = items
        self.isEncrypted = isEncrypted
        self.password = password
    }
}

/// A file that cannot be imported: which file and why, never any part of its content.
package struct CredentialImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for the caller to react to (a wrong password is asked again).
    package enum Kind: Sendable, Equatable {
        /// The password does not open the file (or the encrypted part is damaged: the two look alike).
        case wrongPassword
        /// The file is not in the format, cut short, or inconsistent.
        case damaged
        /// A format version or algorithm this reader does not know.
        case unsupported
    }

    package var file: String
    package var kind: Kind
    package var reason: String

    package init(file: String, kind: Kind, reason: String) {
        self.file = file
        self.kind = kind
        self.reason = reason
    }

    /// `file: reason`.
    package var description: String { "\(file): \(reason)" }
}
