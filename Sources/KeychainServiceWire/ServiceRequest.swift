import Foundation

/// One call sent to the keychain service: the operation, what the caller asks to be entitled to
/// (checked by the service against the caller's verified identity, never trusted), and the
/// call's dictionaries as typed wire values.
///
/// Besides the four SecItem functions, the caller's own login keychain can be created with a
/// password, unlocked, locked and asked whether it is unlocked (Apple's `SecKeychainCreate`,
/// `SecKeychainUnlock`, `SecKeychainLock`, `SecKeychainGetStatus`). Those carry at most one
/// entry, ``passwordKey`` with the password as data, and nothing else.
package struct ServiceRequest: Equatable, Sendable {
    /// The four SecItem functions and the four calls on the caller's login keychain.
    package enum Operation: UInt8, Sendable {
        case add = 1, copyMatching = 2, update = 3, delete = 4
        /// Unlock the login keychain with ``ServiceRequest/passwordKey`` (none: succeeds only
        /// for a keychain without a password or one already unlocked).
        case unlockKeychain = 5
        /// Lock the login keychain: the service forgets its "when unlocked" class keys.
        case lockKeychain = 6
        /// Create the login keychain with ``ServiceRequest/passwordKey`` (none or empty: no password).
        case createKeychain = 7
        /// Whether the login keychain is unlocked and has a password (see ``KeychainState``).
        case keychainStatus = 8
        /// Migration into the service: store ``ServiceRequest/itemsKey``'s items, each in the
        /// access group it names, proven by ``ServiceRequest/passwordKey`` (the keychain password).
        case importItems = 9
        /// Migration out of the service: every item of the caller's keychain, in every access
        /// group, from the ``ServiceRequest/skipKey``th on, proven by the keychain password.
        case exportItems = 10
        /// The caller's own access log, verified by the service, from the ``ServiceRequest/skipKey``th entry on.
        case readAccessLog = 11

        /// Whether this is a call on the keychain itself rather than on its items.
        package var isKeychainCall: Bool { rawValue >= Self.unlockKeychain.rawValue }
    }

    /// The entry of a keychain call's query that holds the keychain password, as data.
    package static let passwordKey = "password"
    /// The entry of an ``Operation/importItems`` call that holds the items: an array of
    /// dictionaries, each an item's attributes, `class` and `v_Data`.
    package static let itemsKey = "items"
    /// The entry of an ``Operation/exportItems`` call that says how many items to skip (an
    /// integer): a keychain larger than one reply is read in pages.
    package static let skipKey = "skip"

    /// The SecItem function.
    package var operation: Operation
    /// `KEYCHAINKIT_APP_ID` in the client, or nil: a request, granted only if the service agrees.
    package var claimedApplicationIdentifier: String?
    /// `KEYCHAINKIT_ACCESS_GROUPS` in the client: requests, each granted only if the service agrees.
    package var claimedAccessGroups: [String]
    /// The query (or, for an add, the attributes), keys as Apple's strings.
    package var query: [WireEntry]
    /// The attributes to update (``Operation/update`` only; empty otherwise).
    package var changes: [WireEntry]

    /// A request.
    package init(operation: Operation, claimedApplicationIdentifier: String?, claimedAccessGroups: [String],
                 query: [WireEntry], changes: [WireEntry] = []) {
        self.operation = operation
        self.claimedApplicationIdentifier = claimedApplicationIdentifier
        self.claimedAccessGroups = claimedAccessGroups
        self.query = query
        self.changes = changes
    }

    /// The version byte every request and reply starts with.
    package static let protocolVersion: UInt8 = 1

    /// The payload of the request's frame.
    package func encoded() -> Data {
        var bytes = Data([Self.protocolVersion, operation.rawValue])
        if let claimedApplicationIdentifier {
            bytes.append(1)
            WireEncoding.appendString(claimedApplicationIdentifier, to: &bytes)
        } else {
            bytes.append(0)
        }
        bytes.appendBigEndian(UInt32(claimedAccessGroups.count))
        for group in claimedAccessGroups { WireEncoding.appendString(group, to: &bytes) }
        WireEncoding.appendEntries(query, to: &bytes)
        WireEncoding.appendEntries(changes, to: &bytes)
        return bytes
    }

    /// Decodes a request's payload, strictly: a wrong version, an unknown operation, changes on
    /// anything but an update, or a trailing byte is refused.
    package static func decode(_ payload: Data) throws(WireFailure) -> ServiceRequest {
        var decoder = WireDecoder(payload)
        let version = try decoder.byte()
        guard version == protocolVersion else { throw .malformed("protocol version \(version), expected \(protocolVersion)") }
        let operationByte = try decoder.byte()
        guard let operation = Operation(rawValue: operationByte) else { throw .malformed("unknown operation \(operationByte)") }
        let applicationIdentifier: String?
        switch try decoder.byte() {
        case 0: applicationIdentifier = nil
        case 1: applicationIdentifier = try decoder.string()
        case let other: throw .malformed("an optional's marker is \(other), not 0 or 1")
        }
        let groupCount = try decoder.uint32()
        guard groupCount <= 256 else { throw .malformed("\(groupCount) access groups claimed (at most 256)") }
        var groups: [String] = []
        for _ in 0..<groupCount { groups.append(try decoder.string()) }
        let query = try decoder.entries()
        let changes = try decoder.entries()
        try decoder.requireEnd()
        if operation != .update && !changes.isEmpty { throw .malformed("changes sent with an operation other than update") }
        if operation.isKeychainCall { try checkKeychainCall(operation, query) }
        return ServiceRequest(operation: operation, claimedApplicationIdentifier: applicationIdentifier,
                              claimedAccessGroups: groups, query: query, changes: changes)
    }

    /// A keychain call holds nothing but, for an unlock, a create or a migration, the password as
    /// data; an import also its items (an array), an export how many items to skip (an integer).
    private static func checkKeychainCall(_ operation: Operation, _ query: [WireEntry]) throws(WireFailure) {
        let takesPassword = operation == .unlockKeychain || operation == .createKeychain
            || operation == .importItems || operation == .exportItems
        for entry in query {
            switch (entry.key, entry.value) {
            case (passwordKey, .data) where takesPassword: continue
            case (itemsKey, .array) where operation == .importItems: continue
            case (skipKey, .integer(let skipped)) where (operation == .exportItems || operation == .readAccessLog) && skipped >= 0: continue
            default: throw .malformed("a keychain call holds only its password, as data (and a migration's items or page)")
            }
        }
    }
}
