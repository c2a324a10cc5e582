#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `dump()`, `Mirror(reflecting:)` and the default `String(describing:)` walk a value's mirror,
// which for `Data` lists every byte. Requests and replies carry secrets as data — an item's
// `v_Data`, a keychain password (unlock, password change, grants, consent answers), migrated
// items — so the wire values show data as its size only, and an entry whose key names a secret
// shows no value at all, whatever its type. Strings (attribute names and values, which Apple's
// keychain does not treat as secret either) stay readable for debugging.

/// The size of a secret, for mirrors and descriptions.
private func redacted(_ data: Data) -> String { "<redacted, \(data.count) bytes>" }

extension WireEntry {
    /// Keys whose value is a secret of any type: an item's data and the keychain passwords.
    static let secretKeys: Set<String> = ["v_Data", ServiceRequest.passwordKey, ServiceRequest.newPasswordKey, UserGrantRequest.nonceKey]

    /// The value as mirrors and descriptions show it.
    fileprivate var shownValue: Any {
        Self.secretKeys.contains(key) ? "<redacted>" : value
    }
}

extension WireEntry: CustomReflectable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key and the value; a secret's value redacted.
    package var customMirror: Mirror {
        Mirror(self, children: ["key": key, "value": shownValue], displayStyle: .struct)
    }

    /// `key: value`, a secret's value redacted.
    package var description: String { "\(key): \(shownValue)" }

    /// See ``description``.
    package var debugDescription: String { description }
}

extension WireValue: CustomReflectable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The value; data shows its size only.
    package var customMirror: Mirror {
        switch self {
        case .string(let text): return Mirror(self, unlabeledChildren: [text], displayStyle: .enum)
        case .data(let data): return Mirror(self, unlabeledChildren: [redacted(data)], displayStyle: .enum)
        case .bool(let flag): return Mirror(self, unlabeledChildren: [flag], displayStyle: .enum)
        case .integer(let number): return Mirror(self, unlabeledChildren: [number], displayStyle: .enum)
        case .double(let number), .date(let number): return Mirror(self, unlabeledChildren: [number], displayStyle: .enum)
        case .array(let elements): return Mirror(self, unlabeledChildren: elements, displayStyle: .collection)
        case .dictionary(let entries): return Mirror(self, unlabeledChildren: entries, displayStyle: .collection)
        }
    }

    /// The value; data shows its size only.
    package var description: String {
        switch self {
        case .string(let text): return String(reflecting: text)
        case .data(let data): return redacted(data)
        case .bool(let flag): return String(flag)
        case .integer(let number): return String(number)
        case .double(let number): return String(number)
        case .date(let seconds): return "date(\(seconds))"
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let entries): return "[" + entries.map(\.description).joined(separator: ", ") + "]"
        }
    }

    /// See ``description``.
    package var debugDescription: String { description }
}

extension ConsentChallenge: CustomReflectable {
    /// The prompt and the "Always allow" offer; the nonce (the answer's single-use key) by size.
    package var customMirror: Mirror {
        Mirror(self, children: ["nonce": redacted(nonce), "prompt": prompt, "canAlwaysAllow": canAlwaysAllow], displayStyle: .struct)
    }
}
