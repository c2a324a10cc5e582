import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import Testing

// Shared fixtures of the conformance suite (the checklist in docs/CONFORMANCE.md). Every test
// runs on its own isolated in-memory keychain through `SecItemEngine`, with dictionaries written
// with Apple's constants exactly as iOS code writes them.

/// A SecItem dictionary as the engine takes it.
typealias Query = [String: Any]

/// The caller's access groups in most tests; the first is the default group for adds.
let testGroups = ["TEAM.app", "TEAM.shared"]

/// An isolated, unlocked keychain without a password, entitled to `testGroups`.
func makeEngine(groups: [String] = testGroups) throws -> SecItemEngine {
    try SecItemEngine.ephemeral(accessGroups: groups)
}

/// An isolated keychain with the password "pw" (so it can be locked, and owner authentication
/// has a password to ask for), and its database.
func makeLockableEngine(groups: [String] = testGroups) throws -> (SecItemEngine, KeychainDatabase) {
    let database = try KeychainDatabase.inMemory(password: Data("pw".utf8))
    // No pinentry: a test must never prompt, whatever the environment offers.
    let engine = SecItemEngine(database: database, accessGroups: AccessGroups(groups),
                               authenticator: OwnerAuthenticator(pinentry: nil))
    return (engine, database)
}

/// UTF-8 bytes of a string.
func bytes(_ text: String) -> Data { Data(text.utf8) }

/// A generic password dictionary; `extra` entries win.
func genp(account: String = "a", service: String = "s", data: Data? = bytes("secret"), _ extra: Query = [:]) -> Query {
    var query: Query = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccount as String: account,
        kSecAttrService as String: service,
    ]
    if let data { query[kSecValueData as String] = data }
    return query.merging(extra) { _, new in new }
}

/// A generic-password query (no data) for `account`/`service`; `extra` entries win.
func genpQuery(account: String = "a", service: String = "s", _ extra: Query = [:]) -> Query {
    genp(account: account, service: service, data: nil, extra)
}

/// An internet password dictionary; `extra` entries win.
func inet(server: String = "example.com", account: String = "alice", data: Data? = bytes("pw"), _ extra: Query = [:]) -> Query {
    var query: Query = [
        kSecClass as String: kSecClassInternetPassword,
        kSecAttrServer as String: server,
        kSecAttrAccount as String: account,
        kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
    ]
    if let data { query[kSecValueData as String] = data }
    return query.merging(extra) { _, new in new }
}

/// An internet-password query (no data); `extra` entries win.
func inetQuery(server: String = "example.com", account: String = "alice", _ extra: Query = [:]) -> Query {
    inet(server: server, account: account, data: nil, extra)
}

/// `query` plus extra entries.
func with(_ query: Query, _ extra: Query) -> Query { query.merging(extra) { _, new in new } }

/// Apple's deprecated constants, spelt by value to keep the build free of deprecation warnings:
/// `kSecAttrAccessibleAlways`, `kSecAttrAccessibleAlwaysThisDeviceOnly`,
/// `kSecUseAuthenticationUIFail`, `kSecUseNoAuthenticationUI`.
nonisolated(unsafe) let accessibleAlways: CFString = "dk"
nonisolated(unsafe) let accessibleAlwaysThisDeviceOnly: CFString = "dku"
let authenticationUIFail = "u_AuthUIF"
let noAuthenticationUI = "u_NoAuthUI"

/// `kCFBooleanTrue`, as a dictionary value.
var yes: Any { kCFBooleanTrue! }
/// `kCFBooleanFalse`, as a dictionary value.
var no: Any { kCFBooleanFalse! }

extension SecItemEngine {
    /// Adds and requires success.
    func mustAdd(_ attributes: Query, sourceLocation: SourceLocation = #_sourceLocation) {
        let status = add(attributes).status
        #expect(status == errSecSuccess, "add failed with \(status)", sourceLocation: sourceLocation)
    }

    /// The status of a CopyMatching.
    func status(_ query: Query) -> OSStatus { copyMatching(query).status }

    /// The data stored under `query` (nil if not found; any other failure is an issue).
    func readData(_ query: Query, sourceLocation: SourceLocation = #_sourceLocation) -> Data? {
        checked(copyMatching(with(query, [kSecReturnData as String: yes])), sourceLocation).value as? Data
    }

    /// The attributes of the single item `query` matches (nil if not found; any other failure
    /// is an issue).
    func readAttributes(_ query: Query, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any]? {
        checked(copyMatching(with(query, [kSecReturnAttributes as String: yes])), sourceLocation).value as? [String: Any]
    }

    /// How many items `query` matches (0 when not found; any other failure is an issue).
    func count(_ query: Query, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let result = copyMatching(with(query, [kSecReturnAttributes as String: yes, kSecMatchLimit as String: kSecMatchLimitAll]))
        return (checked(result, sourceLocation).value as? [Any])?.count ?? 0
    }

    /// `result`, after recording an issue if it failed for another reason than "not found",
    /// so that helpers answering "nothing" cannot hide an unexpected error.
    private func checked(_ result: SecItemResult, _ sourceLocation: SourceLocation) -> SecItemResult {
        if result.status != errSecSuccess && result.status != errSecItemNotFound {
            Issue.record("unexpected status \(result.status)", sourceLocation: sourceLocation)
        }
        return result
    }
}

/// A string attribute of a result dictionary (accepts String or Data holding UTF-8).
func text(_ dictionary: [String: Any]?, _ key: CFString) -> String? {
    switch dictionary?[key as String] {
    case let value as String: return value
    case let value as Data: return String(data: value, encoding: .utf8)
    default: return nil
    }
}
