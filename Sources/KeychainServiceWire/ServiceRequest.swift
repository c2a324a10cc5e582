#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One call sent to the keychain service: the operation, what the caller asks to be entitled to
/// (checked by the service against the caller's verified identity, never trusted), and the
/// call's dictionaries as typed wire values.
///
/// Besides the four SecItem functions, the caller's own login keychain can be created with a
/// password, unlocked, locked, asked for its state, given a new password and new auto-lock
/// settings (Apple's `SecKeychainCreate`, `SecKeychainUnlock`, `SecKeychainLock`,
/// `SecKeychainGetStatus`, `SecKeychainChangePassword`, `SecKeychainSetSettings`). Each of those
/// carries only the entries its operation names (see ``Operation``), with their exact types.
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
        /// Whether the login keychain is unlocked and has a password, and its auto-lock interval
        /// (see ``KeychainState``).
        case keychainStatus = 8
        /// Change the login keychain's password: ``ServiceRequest/passwordKey`` (the old one) and
        /// ``ServiceRequest/newPasswordKey``, both data, both required (empty: none).
        case changePassword = 9
        /// Store the auto-lock settings: ``ServiceRequest/lockIntervalKey`` (seconds, 0: never)
        /// and ``ServiceRequest/lockOnSleepKey``, both required.
        case setSettings = 10
        /// Migration into the service: store ``ServiceRequest/itemsKey``'s items, each in the
        /// access group it names, proven by ``ServiceRequest/passwordKey`` (the keychain password).
        case importItems = 11
        /// Migration out of the service: every item of the caller's keychain, in every access
        /// group, from the ``ServiceRequest/skipKey``th on, proven by the keychain password.
        case exportItems = 12
        /// The caller's own access log, verified by the service, from the ``ServiceRequest/skipKey``th entry on.
        case readAccessLog = 13
        /// Record a grant of the user's own (see ``UserGrantRequest``), proved with the keychain password.
        case grantApplication = 40
        /// Remove the user's own grants to one program, proved with the keychain password.
        case revokeApplication = 41
        /// The user's own grants (no password: they name programs and groups, never a secret).
        case listApplicationGrants = 42
        /// The answer to the consent prompt this connection was sent (see ``ConsentChallenge``).
        case answerConsent = 43
        /// The four SecItem functions, sent by the Secret Service provider for the D-Bus client it
        /// serves (``ServiceRequest/forwardedProcessKey``): served only to the installed provider,
        /// run in ``ServiceRequest/secretServiceAccessGroup`` and logged under the client's identity,
        /// which the service reads from `/proc` itself (see ``forwardedItemOperation``).
        case forwardedAdd = 50, forwardedCopyMatching = 51, forwardedUpdate = 52, forwardedDelete = 53
        /// The Secret Service's per-application access the service keeps for the caller's uid: the
        /// policy and each item's list, with the items' names (see ``SecretServiceAccessRequest``).
        case readSecretServiceAccess = 60
        /// A change of that access (trust, untrust, policy), proved with the keychain password.
        case changeSecretServiceAccess = 61
        /// The policy of that access alone (``SecretServiceAccessRequest/policyKey``), without the
        /// items: what the provider needs for the decisions it makes itself (its `session` collection).
        case readSecretServicePolicy = 62
        /// The answer to the ``AuthenticationChallenge`` this connection was sent: the passwords
        /// a constrained item's access control asks for (see ``AuthenticationRequest``).
        case answerAuthentication = 63
        /// Generate a token-bound (`kSecAttrTokenIDSecureEnclave`) P-256 key in the service and store
        /// it with the query's attributes; the reply holds its public key and handle, never its
        /// private bytes (see ``TokenKeyRequest``).
        case createTokenKey = 66
        /// Sign a digest or make an ECDH shared secret with a token-bound key the service holds,
        /// after the access checks of a read of its item (see ``TokenKeyRequest``).
        case useTokenKey = 67
        /// The public key of a token-bound key the service holds, by its handle.
        case tokenPublicKey = 68

        /// Whether this is a call on the keychain itself rather than on its items.
        package var isKeychainCall: Bool { (Self.unlockKeychain.rawValue..<Self.grantApplication.rawValue).contains(rawValue) }

        /// Whether this is a call on the user's grants or an answer to a consent prompt.
        package var isGrantOrConsentCall: Bool { (Self.grantApplication.rawValue..<50).contains(rawValue) }

        /// Whether this is a call on a token-bound key the service holds (``TokenKeyRequest``).
        package var isTokenKeyCall: Bool { self == .createTokenKey || self == .useTokenKey || self == .tokenPublicKey }

        /// Whether this is a call on the Secret Service's per-application access.
        package var isSecretServiceAccessCall: Bool {
            self == .readSecretServiceAccess || self == .changeSecretServiceAccess || self == .readSecretServicePolicy
        }

        /// For a call forwarded for a D-Bus client, the SecItem function it makes; nil for any other call.
        package var forwardedItemOperation: Operation? {
            switch self {
            case .forwardedAdd: .add
            case .forwardedCopyMatching: .copyMatching
            case .forwardedUpdate: .update
            case .forwardedDelete: .delete
            default: nil
            }
        }

        /// The forwarded form of a SecItem function; nil for any other call.
        package var forwarded: Operation? {
            switch self {
            case .add: .forwardedAdd
            case .copyMatching: .forwardedCopyMatching
            case .update: .forwardedUpdate
            case .delete: .forwardedDelete
            default: nil
            }
        }
    }

    /// The entry of a forwarded call naming the D-Bus client's process id (an integer), as the bus
    /// reported it to the provider (`GetConnectionCredentials`). Never an item attribute.
    package static let forwardedProcessKey = "forwardedPid"
    /// The entry of a forwarded call naming that process's start time (an integer, clock ticks
    /// since boot, field 22 of `/proc/<pid>/stat`) as the provider read it: the service refuses the
    /// call when the pid now names a process started at another time (a reused pid).
    package static let forwardedStartTimeKey = "forwardedStartTime"
    /// The access group forwarded calls run in: the Secret Service's items, whichever D-Bus client
    /// stored them. No program gets it by default; a grant can give it.
    package static let secretServiceAccessGroup = "org.freedesktop.secrets"

    /// The keychain password, as data (the old one for ``Operation/changePassword``).
    package static let passwordKey = "password"
    /// The new keychain password of ``Operation/changePassword``, as data.
    package static let newPasswordKey = "newPassword"
    /// The auto-lock interval of ``Operation/setSettings`` in seconds (0: never), an integer up to `UInt32.max`.
    package static let lockIntervalKey = "lockInterval"
    /// Whether ``Operation/setSettings`` asks to lock when the machine sleeps, a boolean.
    package static let lockOnSleepKey = "lockOnSleep"
    /// The entry of an ``Operation/importItems`` call that holds the items: an array of
    /// dictionaries, each an item's attributes, `class` and `v_Data`.
    package static let itemsKey = "items"
    /// The entry of an ``Operation/exportItems`` or ``Operation/readAccessLog`` call that says how
    /// many items or entries to skip (an integer): a large keychain or log is read in pages.
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
        if operation != .update && operation != .forwardedUpdate && !changes.isEmpty {
            throw .malformed("changes sent with an operation other than update")
        }
        if operation.forwardedItemOperation != nil { try checkForwardedCall(query) }
        if operation.isKeychainCall { try checkKeychainCall(operation, query) }
        if operation.isGrantOrConsentCall { try UserGrantRequest.check(operation, query) }
        if operation.isSecretServiceAccessCall { try SecretServiceAccessRequest.check(operation, query) }
        if operation == .answerAuthentication { try AuthenticationRequest.check(query) }
        if operation.isTokenKeyCall { try TokenKeyRequest.check(operation, query) }
        return ServiceRequest(operation: operation, claimedApplicationIdentifier: applicationIdentifier,
                              claimedAccessGroups: groups, query: query, changes: changes)
    }

    /// A forwarded call names the client's process once, as a positive integer, and its start time
    /// once, as a non-negative one; claims of its own are refused by the service, not here.
    private static func checkForwardedCall(_ query: [WireEntry]) throws(WireFailure) {
        let pids = query.filter { $0.key == forwardedProcessKey }
        let starts = query.filter { $0.key == forwardedStartTimeKey }
        guard pids.count == 1, case .integer(let pid) = pids[0].value, pid > 0, pid <= Int64(Int32.max) else {
            throw .malformed("a forwarded call names its client's process id once, as a positive integer")
        }
        guard starts.count == 1, case .integer(let start) = starts[0].value, start >= 0 else {
            throw .malformed("a forwarded call names its client's start time once, as a non-negative integer")
        }
    }

    /// A keychain call holds exactly the entries its operation names, each with its type; an
    /// unlock or a create may leave out its password, a migration or a log read its page.
    private static func checkKeychainCall(_ operation: Operation, _ query: [WireEntry]) throws(WireFailure) {
        let required: Set<String>, optional: Set<String>
        switch operation {
        case .unlockKeychain, .createKeychain: (required, optional) = ([], [passwordKey])
        case .changePassword: (required, optional) = ([passwordKey, newPasswordKey], [])
        case .setSettings: (required, optional) = ([lockIntervalKey, lockOnSleepKey], [])
        case .importItems: (required, optional) = ([], [passwordKey, itemsKey])
        case .exportItems: (required, optional) = ([], [passwordKey, skipKey])
        case .readAccessLog: (required, optional) = ([], [skipKey])
        default: (required, optional) = ([], [])
        }
        for entry in query {
            switch (entry.key, entry.value) {
            case (passwordKey, .data), (newPasswordKey, .data), (lockOnSleepKey, .bool), (itemsKey, .array):
                break
            case (lockIntervalKey, .integer(let seconds)) where seconds >= 0 && seconds <= Int64(UInt32.max):
                break
            case (skipKey, .integer(let skipped)) where skipped >= 0:
                break
            default:
                throw .malformed("a keychain call holds only its own entries, with their types")
            }
            guard required.contains(entry.key) || optional.contains(entry.key) else {
                throw .malformed("a keychain call holds only its own entries, with their types")
            }
        }
        guard required.isSubset(of: Set(query.map(\.key))) else { throw .malformed("a keychain call lacks one of its entries") }
    }
}
