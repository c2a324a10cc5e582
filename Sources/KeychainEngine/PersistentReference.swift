#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// Persistent references in Apple's current form: 20 bytes, the 4 ASCII bytes of the item class
/// followed by the item's 16-byte UUID. Stable across updates.
enum PersistentReference {
    static func make(_ itemClass: ItemClass, _ id: UUID) -> Data {
        Data(itemClass.rawValue.utf8) + withUnsafeBytes(of: id.uuid) { Data($0) }
    }

    /// The class and identity in a reference; `errSecParam` for anything else (including
    /// Apple's legacy 12-byte rowid form). A valid reference to a class this keychain does not
    /// store is `errSecUnimplemented`.
    static func parse(_ value: Any) throws(KeychainStoreError) -> (itemClass: ItemClass, id: UUID) {
        guard let bytes = ValueCoercion.data(value), bytes.count == 20 else {
            throw ParameterRefusal.value(of: "v_PersistentRef", mustBe: "a persistent reference this keychain returned (kSecReturnPersistentRef)")
        }
        let normalized = Data(bytes)
        let className = String(decoding: normalized.prefix(4), as: UTF8.self)
        guard let itemClass = ItemClass(rawValue: className) else {
            if RequestParser.otherAppleClasses.contains(className) { throw KeychainStoreError(status: .unimplemented) }
            throw ParameterRefusal.value(of: "v_PersistentRef", mustBe: "a persistent reference this keychain returned (kSecReturnPersistentRef)")
        }
        let uuid = normalized.suffix(16).withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        return (itemClass, UUID(uuid: uuid))
    }
}
