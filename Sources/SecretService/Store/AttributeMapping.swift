import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainClient
import KeychainPrimitives
import KeychainVocabulary

/// How Secret Service items (a label, a string-to-string attribute dictionary, a secret with a
/// content type) are stored as keychain items, so that `keychainctl`, the typed API and Secret
/// Service clients see the same items. See docs/SECRET-SERVICE.md, "The store:
/// collections and items on keychain files".
///
/// | Secret Service attributes | keychain item |
/// |---|---|
/// | exactly `xdg:schema`=`org.gnome.keyring.NetworkPassword` (what git-credential-libsecret writes), `user`, `server`, `protocol`, optional `port` and `object`, content type `text/plain` | internet password: account, server, protocol (`https` → `htps`), port, path |
/// | any set with `service` and `username` | generic password: service, account; the whole dictionary in `kSecAttrGeneric` |
/// | anything else, or the slot above already taken | generic password, service `org.freedesktop.Secret.Item`, account a random 32-hex id; dictionary in `kSecAttrGeneric` |
enum AttributeMapping {
    /// The schema libsecret gives `SECRET_SCHEMA_COMPAT_NETWORK` items (git-credential-libsecret).
    static let networkSchema = "org.gnome.keyring.NetworkPassword"
    /// The schema of generic items (Python keyring, `secret-tool`'s default).
    static let genericSchema = "org.freedesktop.Secret.Generic"
    /// The service of items whose attributes have no natural keychain slot.
    static let fallbackService = "org.freedesktop.Secret.Item"
    /// The prefix that marks a `kSecAttrGeneric` value as a stored attribute dictionary.
    static let storedPrefix = Data("KKSS1\n".utf8)

    /// The dictionary and content type kept in `kSecAttrGeneric` (encrypted at rest with the
    /// item's other attributes' protection class keys).
    struct Stored: Codable, Equatable {
        var attributes: [String: String]
        var contentType: String
    }

    /// What a keychain item means to the Secret Service.
    struct Decoded {
        var attributes: [String: String]
        var contentType: String
        /// Whether the dictionary was stored by this provider (false: synthesized from the
        /// keychain attributes of an item `keychainctl` or an app made).
        var isStored: Bool
    }

    /// The keychain attributes of the natural slot for `attributes`: class, primary key and,
    /// for generic passwords, the stored dictionary. Nil when there is none (use ``fallback``).
    static func natural(_ attributes: [String: String], contentType: String) throws(SecretServiceError) -> [String: Any]? {
        if let internet = internetAttributes(attributes, contentType: contentType) { return internet }
        guard let service = attributes["service"], let username = attributes["username"],
              service != ApplicationAccessStore.service else { return nil }
        return [
            SecItemKey.itemClass: SecItemKey.genericPassword,
            SecItemKey.service: service,
            SecItemKey.account: username,
            SecItemKey.generic: try encode(Stored(attributes: attributes, contentType: contentType)),
        ]
    }

    /// The collision-free generic slot: service ``fallbackService``, a random account.
    static func fallback(_ attributes: [String: String], contentType: String) throws(SecretServiceError) -> [String: Any] {
        [
            SecItemKey.itemClass: SecItemKey.genericPassword,
            SecItemKey.service: fallbackService,
            SecItemKey.account: UUID().uuidString.removingText("-").lowercased(),
            SecItemKey.generic: try encode(Stored(attributes: attributes, contentType: contentType)),
        ]
    }

    /// The internet-password attributes when `attributes` are exactly what git-credential-libsecret
    /// stores and read back identically (a port in canonical decimal, a protocol whose code maps
    /// back to the same name); nil otherwise.
    static func internetAttributes(_ attributes: [String: String], contentType: String) -> [String: Any]? {
        let allowed: Set<String> = ["xdg:schema", "user", "server", "protocol", "port", "object"]
        guard contentType == "text/plain", attributes["xdg:schema"] == networkSchema,
              Set(attributes.keys).isSubset(of: allowed),
              let user = attributes["user"], let server = attributes["server"], let scheme = attributes["protocol"],
              let code = InternetProtocolCode.code(for: scheme), InternetProtocolCode.scheme(for: code) == scheme
        else { return nil }
        var result: [String: Any] = [
            SecItemKey.itemClass: SecItemKey.internetPassword,
            SecItemKey.account: user,
            SecItemKey.server: server,
            SecItemKey.`protocol`: code,
        ]
        if let port = attributes["port"] {
            guard let number = UInt16(port), number != 0, String(number) == port else { return nil }
            result[SecItemKey.port] = Int(number)
        }
        if let object = attributes["object"] {
            guard !object.isEmpty else { return nil }
            result[SecItemKey.path] = object
        }
        return result
    }

    /// The Secret Service view of a keychain item's attributes (as `kSecReturnAttributes` gives them).
    static func decode(_ item: [String: Any]) -> Decoded {
        if let generic = item[SecItemKey.generic] as? Data, generic.starts(with: storedPrefix) {
            let decoder = JSONDecoder()
            do {
                let stored = try decoder.decode(Stored.self, from: generic.dropFirst(storedPrefix.count))
                return Decoded(attributes: stored.attributes, contentType: stored.contentType, isStored: true)
            } catch {
                // A damaged or foreign blob: fall through to the synthesized view, which still
                // lets a client find and repair the item.
            }
        }
        return Decoded(attributes: synthesized(item), contentType: "text/plain", isStored: false)
    }

    /// The attributes of an item this provider did not make.
    static func synthesized(_ item: [String: Any]) -> [String: String] {
        let itemClass = item[SecItemKey.itemClass] as? String
        var attributes: [String: String] = [:]
        if itemClass == SecItemKey.internetPassword {
            attributes["xdg:schema"] = networkSchema
            if let account = text(item[SecItemKey.account]) { attributes["user"] = account }
            if let server = text(item[SecItemKey.server]), !server.isEmpty { attributes["server"] = server }
            if let code = text(item[SecItemKey.`protocol`]), !code.isEmpty { attributes["protocol"] = InternetProtocolCode.scheme(for: code) }
            if let port = integer(item[SecItemKey.port]), port != 0 { attributes["port"] = String(port) }
            if let path = text(item[SecItemKey.path]), !path.isEmpty { attributes["object"] = path }
        } else {
            attributes["xdg:schema"] = genericSchema
            if let service = text(item[SecItemKey.service]) { attributes["service"] = service }
            if let account = text(item[SecItemKey.account]) { attributes["username"] = account }
        }
        return attributes
    }

    /// A number attribute as the keychain returns it (a Swift integer, or an `NSNumber`).
    static func integer(_ value: Any?) -> Int? {
        if let number = value as? Int { return number }
        return (value as? any BridgedNumber).map { Int(truncatingIfNeeded: $0.int64Value) }
    }

    /// A string attribute as the keychain returns it (a string, or UTF-8 data).
    static func text(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let data = value as? Data { return String(data: data, encoding: .utf8) }
        return nil
    }

    static func encode(_ stored: Stored) throws(SecretServiceError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do { return storedPrefix + (try encoder.encode(stored)) } catch { throw .invalidArgument("attributes cannot be encoded") }
    }
}
