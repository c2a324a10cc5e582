import Foundation
import KeychainServices

extension KeychainError: LocalizedError {
    /// A sentence for people: the context, then the Security framework's message for the status
    /// (from `SecCopyErrorMessageString`), then the code.
    ///
    /// For example: "Reading 'token' in service 'com.example.app' failed: User interaction is
    /// not allowed. (OSStatus -25308)".
    public var errorDescription: String? {
        var text = ""
        if let context {
            text += "\(context) failed: "
        }
        text += kindMessage
        if let reason {
            text += " " + reason
        }
        text += " (OSStatus \(status))"
        return text
    }

    /// The Security framework's text for ``status``, from `SecCopyErrorMessageString`.
    ///
    /// The corresponding C function is `SecCopyErrorMessageString`.
    public var statusMessage: String {
        if let message = SecCopyErrorMessageString(status, nil) {
            return message as String
        }
        return "OSStatus \(status)"
    }

    /// The message for this error's kind: Security's text, or KeychainKit's for its own kinds.
    private var kindMessage: String {
        switch kind {
        case .decodingFailed: "The stored value could not be decoded as the requested type."
        case .encodingFailed: "The value could not be encoded for storage."
        case .invalidArgument: "KeychainKit rejected the request before calling the keychain."
        case .unexpectedResult: "The keychain returned a result of an unexpected type."
        default: statusMessage
        }
    }
}

extension KeychainError: CustomStringConvertible {
    /// A one-line summary, for example
    /// `KeychainError(errSecItemNotFound -25300, reading 'token' in service 'com.example')`.
    public var description: String {
        var parts = [kind == .securityFramework ? "" : "\(kind) "]
        parts[0] += statusName.map { "\($0) \(status)" } ?? "OSStatus \(status)"
        if let context {
            parts.append(context)
        }
        return "KeychainError(\(parts.joined(separator: ", ")))"
    }
}

extension KeychainError: CustomDebugStringConvertible {
    /// The ``description`` followed by the Security framework's message. Never contains a value.
    public var debugDescription: String {
        "\(description): \(kindMessage)"
    }
}

extension KeychainError: CustomReflectable {
    /// A mirror of the status, the kind and the context only, so that `dump` shows nothing else.
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "kind": kind, "context": context as Any, "reason": reason as Any],
               displayStyle: .struct)
    }
}
