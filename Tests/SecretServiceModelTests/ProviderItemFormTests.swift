import Foundation
import KeychainServices
@testable import SecretService
import Testing

/// What `service migrate-in` counts as the provider's items (moved to the Secret Service's group):
/// generic passwords holding the provider's stored attribute dictionary, and nothing else.
@Suite("Secret Service: the provider's stored form, for a migration")
struct ProviderItemFormTests {
    /// `attributes` with the class, as a migration reads an item.
    static func item(_ attributes: [String: Any]) -> [String: Any] {
        attributes.merging([kSecClass as String: kSecClassGenericPassword as String]) { _, new in new }
    }

    @Test("the natural and the fallback slot's items are the provider's")
    func providerItems() throws {
        let natural = try #require(try AttributeMapping.natural(["service": "imap", "username": "me"], contentType: "text/plain"))
        #expect(ProviderItemForm.isProviderItem(natural))
        let fallback = try AttributeMapping.fallback(["anything": "else"], contentType: "application/octet-stream")
        #expect(ProviderItemForm.isProviderItem(fallback))
    }

    @Test("keychainctl's own items, internet passwords, damaged forms and the provider's hidden records are not")
    func otherItems() throws {
        #expect(!ProviderItemForm.isProviderItem(Self.item([kSecAttrService as String: "api", kSecAttrAccount as String: "deploy"])))
        #expect(!ProviderItemForm.isProviderItem(Self.item([kSecAttrGeneric as String: Data("opaque".utf8)])))
        // The marker alone, with no dictionary behind it, is no stored form.
        #expect(!ProviderItemForm.isProviderItem(Self.item([kSecAttrGeneric as String: AttributeMapping.storedPrefix + Data("{".utf8)])))
        // An internet password as git-credential-libsecret's are stored: no stored form, and a
        // generic dictionary attached to one does not make it the provider's.
        let stored = try AttributeMapping.encode(.init(attributes: ["service": "x", "username": "y"], contentType: "text/plain"))
        #expect(!ProviderItemForm.isProviderItem([kSecClass as String: kSecClassInternetPassword as String, kSecAttrServer as String: "example.com",
                                                  kSecAttrGeneric as String: stored]))
        // The provider's per-application records are its own, never a client's item.
        #expect(!ProviderItemForm.isProviderItem(Self.item([kSecAttrService as String: ApplicationAccessStore.service, kSecAttrGeneric as String: stored])))
    }
}
