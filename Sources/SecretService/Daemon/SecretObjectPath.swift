/// The objects of the Secret Service API and their D-Bus object paths:
///
/// | path | object |
/// |---|---|
/// | `/org/freedesktop/secrets` | the service |
/// | `/org/freedesktop/secrets/collection/<c>` | collection `c` |
/// | `/org/freedesktop/secrets/collection/<c>/<i>` | item `i` of collection `c` |
/// | `/org/freedesktop/secrets/aliases/<a>` (and `/<i>` below it) | the collection alias `a` names, and its items |
/// | `/org/freedesktop/secrets/session/<n>` | a transfer session |
/// | `/org/freedesktop/secrets/prompt/<n>` | a prompt |
///
/// Collection and item names are `[A-Za-z0-9_]` only, so they are path elements as they are.
package enum SecretObjectPath: Equatable, Sendable {
    case service
    case collection(String)
    case item(collection: String, item: String)
    case alias(String)
    case aliasItem(alias: String, item: String)
    case session(UInt64)
    case prompt(UInt64)

    /// The service's path, also the well-known prefix of all others.
    package static let servicePath = "/org/freedesktop/secrets"
    /// The path that means "no object" (a prompt that is not needed, an absent collection).
    package static let none = "/"

    /// The object `path` names, or nil when it names none of these objects.
    package init?(_ path: String) {
        guard path == Self.servicePath || path.hasPrefix(Self.servicePath + "/") else { return nil }
        let elements = path.dropFirst(Self.servicePath.count).split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let parts = elements.map(String.init)
        guard parts.allSatisfy(Self.isValidElement) else { return nil }
        switch (parts.first, parts.count) {
        case (nil, _): self = .service
        case ("collection", 2): self = .collection(parts[1])
        case ("collection", 3): self = .item(collection: parts[1], item: parts[2])
        case ("aliases", 2): self = .alias(parts[1])
        case ("aliases", 3): self = .aliasItem(alias: parts[1], item: parts[2])
        case ("session", 2):
            guard let number = UInt64(parts[1]) else { return nil }
            self = .session(number)
        case ("prompt", 2):
            guard let number = UInt64(parts[1]) else { return nil }
            self = .prompt(number)
        default: return nil
        }
    }

    /// The object path.
    package var path: String {
        switch self {
        case .service: return Self.servicePath
        case .collection(let name): return "\(Self.servicePath)/collection/\(name)"
        case .item(let collection, let item): return "\(Self.servicePath)/collection/\(collection)/\(item)"
        case .alias(let name): return "\(Self.servicePath)/aliases/\(name)"
        case .aliasItem(let alias, let item): return "\(Self.servicePath)/aliases/\(alias)/\(item)"
        case .session(let number): return "\(Self.servicePath)/session/\(number)"
        case .prompt(let number): return "\(Self.servicePath)/prompt/\(number)"
        }
    }

    /// Whether `element` is a non-empty object-path element (`[A-Za-z0-9_]+`).
    /// The same rule as the store's collection and item ids, so every id is a path element.
    package static func isValidElement(_ element: String) -> Bool {
        SecretIdentifierSyntax.isValid(element)
    }
}
