#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif

/// The output of the find, delete and dump commands.
enum ItemPrinter {
    /// What to show of the secret.
    enum SecretDisplay {
        /// Attributes only.
        case none
        /// `-g`: `password: "…"` on standard error after the attributes (as `security` does).
        case afterAttributes
        /// `-w`: the secret alone on standard output.
        case only
        /// `dump-keychain -d`: a `data:` section after the attributes.
        case dataSection
    }

    /// Prints matched items as text or, with `json`, as one JSON object (one item) or array.
    static func print(_ items: [[String: Any]], itemClass: String, keychainPath: String, secret: SecretDisplay,
                      json: Bool, asArray: Bool = false) throws {
        if json {
            let objects = items.map { item in
                ItemFormatter.json(item, itemClass: itemClass, keychainPath: keychainPath,
                                   secret: secret == .none ? nil : (item[SecItemKey.valueData] as? Data ?? Data()))
            }
            if asArray || objects.count != 1 {
                Console.out(try ItemFormatter.serialise(objects))
            } else if let object = objects.first {
                Console.out(try ItemFormatter.serialise(object))
            }
            return
        }
        for item in items {
            let data = item[SecItemKey.valueData] as? Data ?? Data()
            switch secret {
            case .only:
                Console.out(ItemFormatter.bareSecret(data))
            case .none:
                Console.out(ItemFormatter.text(item, itemClass: itemClass, keychainPath: keychainPath))
            case .afterAttributes:
                Console.out(ItemFormatter.text(item, itemClass: itemClass, keychainPath: keychainPath))
                Console.error("password: " + ItemFormatter.quotedSecret(data))
            case .dataSection:
                Console.out(ItemFormatter.text(item, itemClass: itemClass, keychainPath: keychainPath))
                Console.out("data:\n" + ItemFormatter.quotedSecret(data))
            }
        }
    }
}
