#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainClient

/// Which keychain items are Secret Service items in the form this provider stores them, for
/// `keychainctl service migrate-in`: in the embedded mode the provider keeps its items in
/// keychainctl's own access group, beside keychainctl's; through the keychain service it runs in
/// the Secret Service's group, so a migration moves the provider's items there and leaves
/// keychainctl's where they are.
package enum ProviderItemForm {
    /// Whether `item` (its attributes with `class`, as `SecItemCopyMatching` returns them) holds a
    /// Secret Service attribute dictionary this provider wrote: a generic password whose
    /// `kSecAttrGeneric` is the provider's stored form and decodes as one. The provider's hidden
    /// per-application records are not client items; internet passwords carry no stored form
    /// (keychainctl's git helper and a Secret Service client write the same ones), so they are
    /// never counted as the provider's.
    package static func isProviderItem(_ item: [String: Any]) -> Bool {
        guard item[SecItemKey.itemClass] as? String == SecItemKey.genericPassword,
              item[SecItemKey.service] as? String != ApplicationAccessStore.service else { return false }
        return AttributeMapping.decode(item).isStored
    }
}
