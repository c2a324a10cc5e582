#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The entries of the grant and consent calls (``ServiceRequest/Operation/grantApplication``,
/// ``ServiceRequest/Operation/revokeApplication``, ``ServiceRequest/Operation/listApplicationGrants``,
/// ``ServiceRequest/Operation/answerConsent``), and the strict check of which each may hold.
///
/// A grant names a program by its executable's absolute path (for a script under an interpreter:
/// the script's path), optionally the SHA-256 of its content, and what it is granted: access
/// groups and at most one application identifier. Grant and revoke carry the keychain password,
/// which the service verifies itself.
package enum UserGrantRequest {
    /// The keychain password, as data (grant, revoke, answer).
    package static let passwordKey = ServiceRequest.passwordKey
    /// The program's executable (or script) path, a string.
    package static let executableKey = "executable"
    /// The program's SHA-256 in hex, a string (grant only, optional).
    package static let sha256Key = "sha256"
    /// The application identifier granted, a string (grant only, optional).
    package static let applicationIdentifierKey = "application-identifier"
    /// The access groups granted, an array of strings (grant only).
    package static let accessGroupsKey = "access-groups"
    /// The nonce of the consent challenge answered, data (answer only).
    package static let nonceKey = "nonce"
    /// Whether the user chose "Always allow", a boolean (answer only).
    package static let alwaysKey = "always"
    /// Whether the user denied it at the prompt, a boolean (answer only): the answer then carries
    /// no password, and the service logs the denial at once.
    package static let denyKey = "deny"

    /// The query entry a client adds to a read when it can ask its user for consent (a boolean,
    /// true). The service removes it before the read; without it, a read that needs consent is
    /// `errSecInteractionNotAllowed`.
    package static let canPromptKey = "kk_CanPrompt"

    /// `errSecInteractionRequired`: the reply to a read that needs the user's consent, carrying a
    /// ``ConsentChallenge``; the client answers on the same connection.
    package static let interactionRequiredStatus: Int32 = -25315

    /// Refuses entries an operation does not take, and a missing required one.
    static func check(_ operation: ServiceRequest.Operation, _ query: [WireEntry]) throws(WireFailure) {
        let allowed: [String: (WireValue) -> Bool]
        let required: Set<String>
        let isString: (WireValue) -> Bool = { if case .string = $0 { return true } else { return false } }
        let isData: (WireValue) -> Bool = { if case .data = $0 { return true } else { return false } }
        let isBool: (WireValue) -> Bool = { if case .bool = $0 { return true } else { return false } }
        let isStrings: (WireValue) -> Bool = {
            guard case .array(let elements) = $0 else { return false }
            return elements.allSatisfy(isString)
        }
        switch operation {
        case .grantApplication:
            allowed = [passwordKey: isData, executableKey: isString, sha256Key: isString,
                       applicationIdentifierKey: isString, accessGroupsKey: isStrings]
            required = [passwordKey, executableKey]
        case .revokeApplication:
            allowed = [passwordKey: isData, executableKey: isString]
            required = [passwordKey, executableKey]
        case .listApplicationGrants:
            allowed = [:]
            required = []
        case .answerConsent:
            allowed = [passwordKey: isData, nonceKey: isData, alwaysKey: isBool, denyKey: isBool]
            // A denial proves nothing and carries nothing out: it needs no password (and sends none).
            let denies = query.contains { $0.key == denyKey && $0.value == .bool(true) }
            if denies, query.contains(where: { $0.key == passwordKey || $0.key == alwaysKey }) {
                throw .malformed("\(operation): a denial carries no password and no always")
            }
            required = denies ? [nonceKey] : [passwordKey, nonceKey]
        default:
            return
        }
        for entry in query {
            guard let accepts = allowed[entry.key] else { throw .malformed("\(operation) takes no \(entry.key)") }
            guard accepts(entry.value) else { throw .malformed("\(operation): \(entry.key) has the wrong type") }
        }
        let present = Set(query.map(\.key))
        if let missing = required.subtracting(present).sorted().first { throw .malformed("\(operation) needs \(missing)") }
    }
}

/// What the service asks a client to put before its user when a read needs consent: the text the
/// service composed (the program, its parent chain, the item), a single-use nonce bound to this
/// connection, this caller and this item, and whether "Always allow" can be recorded (only for a
/// program the service can verify).
package struct ConsentChallenge: Equatable, Sendable {
    /// The nonce the answer must carry.
    package var nonce: Data
    /// The prompt's text, composed by the service.
    package var prompt: String
    /// Whether "Always allow" is offered.
    package var canAlwaysAllow: Bool

    /// A challenge.
    package init(nonce: Data, prompt: String, canAlwaysAllow: Bool) {
        self.nonce = nonce
        self.prompt = prompt
        self.canAlwaysAllow = canAlwaysAllow
    }

    /// Its wire form, the result of an `errSecInteractionRequired` reply.
    package var wireValue: WireValue {
        .dictionary([WireEntry(key: "nonce", value: .data(nonce)), WireEntry(key: "prompt", value: .string(prompt)),
                     WireEntry(key: "always", value: .bool(canAlwaysAllow))])
    }

    /// The challenge in a reply's result, or nil when it holds none.
    package init?(_ value: WireValue?) {
        guard case .dictionary(let entries)? = value else { return nil }
        var nonce: Data?, prompt: String?, always = false
        for entry in entries {
            switch (entry.key, entry.value) {
            case ("nonce", .data(let bytes)): nonce = bytes
            case ("prompt", .string(let text)): prompt = text
            case ("always", .bool(let flag)): always = flag
            default: return nil
            }
        }
        guard let nonce, let prompt else { return nil }
        self.init(nonce: nonce, prompt: prompt, canAlwaysAllow: always)
    }
}
