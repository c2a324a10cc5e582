import ArgumentParser
import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif

/// The attribute options of the generic-password commands (`security`'s letters).
struct GenericPasswordAttributes: ParsableArguments {
    @Option(name: .customShort("a"), help: ArgumentHelp("The account name.", valueName: "account"))
    var account: String?
    @Option(name: .customShort("s"), help: ArgumentHelp("The service name.", valueName: "service"))
    var service: String?
    @Option(name: .customShort("l"), help: ArgumentHelp("The label (when adding: default the service name).", valueName: "label"))
    var label: String?
    @Option(name: .customShort("j"), help: ArgumentHelp("The comment.", valueName: "comment"))
    var comment: String?
    @Option(name: .customShort("D"), help: ArgumentHelp("The kind (kSecAttrDescription).", valueName: "kind"))
    var kind: String?

    /// The options as a plain value (what the hot path parses too).
    var query: GenericPasswordQuery {
        GenericPasswordQuery(account: account, service: service, label: label, comment: comment, kind: kind)
    }

    /// `kSecClass` and the given attributes.
    var dictionary: [String: Any] { query.dictionary }

    /// The primary key part (account, service) that identifies the item for an update.
    var primaryKey: [String: Any] {
        var attributes: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword]
        attributes[SecItemKey.account] = account
        attributes[SecItemKey.service] = service
        return attributes
    }

    /// The attributes an update changes (label, comment, kind).
    var changes: [String: Any] {
        var attributes: [String: Any] = [:]
        attributes[SecItemKey.label] = label
        attributes[SecItemKey.comment] = comment
        attributes[SecItemKey.description] = kind
        return attributes
    }
}

/// The attribute options of the internet-password commands (`security`'s letters).
struct InternetPasswordAttributes: ParsableArguments {
    @Option(name: .customShort("a"), help: ArgumentHelp("The account name.", valueName: "account"))
    var account: String?
    @Option(name: .customShort("s"), help: ArgumentHelp("The server name (host, without port).", valueName: "server"))
    var server: String?
    @Option(name: .customShort("d"), help: ArgumentHelp("The security domain.", valueName: "domain"))
    var securityDomain: String?
    @Option(name: .customShort("p"), help: ArgumentHelp("The path.", valueName: "path"))
    var path: String?
    @Option(name: .customShort("P"), help: ArgumentHelp("The port number.", valueName: "port"))
    var port: Int?
    @Option(name: .customShort("r"), help: ArgumentHelp("The protocol: a four-character code (\"htps\", \"ssh \") or a scheme (https, ssh).", valueName: "protocol"))
    var protocolName: String?
    @Option(name: .customShort("t"), help: ArgumentHelp("The authentication type, a four-character code (\"dflt\", \"http\", \"form\").", valueName: "type"))
    var authenticationType: String?
    @Option(name: .customShort("l"), help: ArgumentHelp("The label (when adding: default the server name).", valueName: "label"))
    var label: String?
    @Option(name: .customShort("j"), help: ArgumentHelp("The comment.", valueName: "comment"))
    var comment: String?
    @Option(name: .customShort("D"), help: ArgumentHelp("The kind (kSecAttrDescription).", valueName: "kind"))
    var kind: String?

    mutating func validate() throws {
        if let problem = query.problem { throw ValidationError(problem) }
    }

    /// The options as a plain value (what the hot path parses too).
    var query: InternetPasswordQuery {
        InternetPasswordQuery(account: account, server: server, securityDomain: securityDomain, path: path, port: port,
                              protocolName: protocolName, authenticationType: authenticationType,
                              label: label, comment: comment, kind: kind)
    }

    /// `kSecClass` and the primary-key attributes given.
    var primaryKey: [String: Any] { query.primaryKey }

    /// The attributes an update changes (label, comment, kind).
    var changes: [String: Any] { query.changes }

    /// `kSecClass` and every attribute given.
    var dictionary: [String: Any] { query.dictionary }
}

/// The generic-password attribute options as a value: built by ArgumentParser's
/// ``GenericPasswordAttributes`` or by the hot path's own parse (``HotCommand``), one dictionary either way.
struct GenericPasswordQuery: Equatable {
    var account: String?
    var service: String?
    var label: String?
    var comment: String?
    var kind: String?

    /// `kSecClass` and the given attributes.
    var dictionary: [String: Any] {
        var attributes: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword]
        attributes[SecItemKey.account] = account
        attributes[SecItemKey.service] = service
        attributes[SecItemKey.label] = label
        attributes[SecItemKey.comment] = comment
        attributes[SecItemKey.description] = kind
        return attributes
    }
}

/// The internet-password attribute options as a value: built by ArgumentParser's
/// ``InternetPasswordAttributes`` or by the hot path's own parse (``HotCommand``), one dictionary either way.
struct InternetPasswordQuery: Equatable {
    var account: String?
    var server: String?
    var securityDomain: String?
    var path: String?
    var port: Int?
    var protocolName: String?
    var authenticationType: String?
    var label: String?
    var comment: String?
    var kind: String?

    /// Why the options cannot make a query (the message ArgumentParser shows), nil if they can.
    var problem: String? {
        if let port, !(0...65535).contains(port) { return "The port must be between 0 and 65535." }
        if let protocolName, InternetProtocolCode.code(for: protocolName) == nil {
            return "The protocol must be a four-character code or a URL scheme."
        }
        if let authenticationType, authenticationType.isEmpty || authenticationType.count > 4 {
            return "The authentication type must be a four-character code."
        }
        return nil
    }

    /// `kSecClass` and the primary-key attributes given.
    var primaryKey: [String: Any] {
        var attributes: [String: Any] = [SecItemKey.itemClass: SecItemKey.internetPassword]
        attributes[SecItemKey.account] = account
        attributes[SecItemKey.server] = server
        attributes[SecItemKey.securityDomain] = securityDomain
        attributes[SecItemKey.path] = path
        attributes[SecItemKey.port] = port
        attributes[SecItemKey.protocol] = protocolName.flatMap(InternetProtocolCode.code(for:))
        attributes[SecItemKey.authenticationType] = authenticationType.map { $0 + String(repeating: " ", count: 4 - $0.count) }
        return attributes
    }

    /// The attributes an update changes (label, comment, kind).
    var changes: [String: Any] {
        var attributes: [String: Any] = [:]
        attributes[SecItemKey.label] = label
        attributes[SecItemKey.comment] = comment
        attributes[SecItemKey.description] = kind
        return attributes
    }

    /// `kSecClass` and every attribute given.
    var dictionary: [String: Any] { primaryKey.merging(changes) { current, _ in current } }
}

/// `--accessible`: when an added item can be read (`kSecAttrAccessible…`). A KeychainKit
/// extension; `security(1)` has no such option.
enum Accessibility: String, ExpressibleByArgument, CaseIterable {
    case whenUnlocked = "when-unlocked"
    case afterFirstUnlock = "after-first-unlock"
    case whenUnlockedThisDeviceOnly = "when-unlocked-this-device-only"
    case afterFirstUnlockThisDeviceOnly = "after-first-unlock-this-device-only"
    case whenPasscodeSetThisDeviceOnly = "when-passcode-set-this-device-only"

    /// The `kSecAttrAccessible` value.
    var constant: String {
        switch self {
        case .whenUnlocked: return SecItemKey.accessibleWhenUnlocked
        case .afterFirstUnlock: return SecItemKey.accessibleAfterFirstUnlock
        case .whenUnlockedThisDeviceOnly: return SecItemKey.accessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: return SecItemKey.accessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: return SecItemKey.accessibleWhenPasscodeSetThisDeviceOnly
        }
    }
}

/// `--json`: machine-readable output.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON (for scripts) instead of security(1)'s text format.")
    var json = false
}
