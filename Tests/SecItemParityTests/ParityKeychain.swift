// Where the parity suite keeps its items: the one place with platform-specific code. Every test
// file imports only KeychainServices and names only Apple's Security (and LocalAuthentication and
// Core Foundation) symbols, so the same files compile against Apple's Security on a Mac and
// against KeychainServices on Linux (AppleAPIShapeTests checks the names against Apple's listing).
// - Linux: a new keychain file per test (without a password unless the test needs what a device
//   passcode gives), in a temporary directory, named in every call (kSecUseKeychain), so no test
//   touches the user's default keychain or another test's items.
// - Apple platforms: the data-protection keychain (kSecUseDataProtectionKeychain), which needs a
//   test host signed with a keychain-access-groups entitlement (docs/PORTING.md, "Running the
//   parity suite on a Mac"); every item a test makes carries a service, server, label or tag
//   unique to that test, and is deleted when the test ends.

import Foundation
import KeychainServices
import Testing

/// The parity suite: every SecItem behaviour of the conformance checklist that code can observe
/// through `SecItem*` alone. Serialized, because on Apple platforms all tests share the host's
/// keychain and a few tests search a whole item class.
@Suite("SecItem parity (compiles against Apple's Security too)", .serialized,
       .enabled(if: ParityKeychain.isReachable, "the data-protection keychain needs a signed test host with a keychain-access-groups entitlement: see docs/PORTING.md"))
struct SecItemParity {}

/// Why a test's keychain could not be set up.
struct ParitySetupFailure: Error, CustomStringConvertible {
    let description: String
}

/// The keychain of one test: a unique service (and server, label, tag) and the dictionary keys
/// that put every call into the suite's keychain. Deleting the object removes what the test made.
final class ParityKeychain {
    /// The service of this test's generic passwords, also the label of its certificates and the
    /// tag of its keys.
    let service = "SecItemParity.\(UUID().uuidString)"
    /// The server of this test's internet passwords.
    var server: String { "\(service.lowercased()).example" }

    #if !canImport(Security)
    /// This test's keychain file and the temporary directory holding it.
    private let keychain: SecKeychain
    private let directory: URL

    /// Linux: every SecItem call reaches a keychain, so the suite always runs.
    static let isReachable = true

    /// A keychain for one test. `passcode`: the test needs what a device passcode gives on Apple
    /// platforms (items guarded by user presence or the passcode); on Linux the keychain's password
    /// plays that part, so the keychain gets one (created unlocked). Without it the keychain has
    /// none, which costs no key derivation.
    init(passcode: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("secitem-parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var created: SecKeychain?
        let path = directory.appendingPathComponent("parity.keychain-db").path
        let password = passcode ? Data("parity-test-passcode".utf8) : Data()
        let status = password.withUnsafeBytes {
            SecKeychainCreate(path, UInt32(password.count), password.isEmpty ? nil : $0.baseAddress, false, nil, &created)
        }
        guard status == errSecSuccess, let created else {
            throw ParitySetupFailure(description: "SecKeychainCreate in \(directory.path) failed with \(status)")
        }
        keychain = created
    }

    deinit {
        let status = SecKeychainDelete(keychain)
        if status != errSecSuccess { Issue.record("SecKeychainDelete of the test's keychain failed with \(status)") }
        do { try FileManager.default.removeItem(at: directory) } catch { Issue.record("removing \(directory.path): \(error)") }
    }

    /// `dictionary` with the key that selects this test's keychain file.
    func scoped(_ dictionary: [CFString: Any]) -> CFDictionary {
        var scoped = dictionary
        scoped[kSecUseKeychain] = keychain
        return scoped as CFDictionary
    }
    #else
    /// Whether this process may use the data-protection keychain: an unsigned test runner (plain
    /// `swift test`) gets errSecMissingEntitlement from every call.
    static let isReachable: Bool = {
        let probe: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "SecItemParity.probe",
                                      kSecUseDataProtectionKeychain: true]
        return SecItemCopyMatching(probe as CFDictionary, nil) != errSecMissingEntitlement
    }()

    /// A scope of the data-protection keychain for one test. `passcode` is the device's own here.
    init(passcode: Bool = false) throws {}

    deinit {
        // Everything this test made, in every class, synchronizable or not.
        let mine: [[CFString: Any]] = [
            [kSecClass: kSecClassGenericPassword, kSecAttrService: service],
            [kSecClass: kSecClassInternetPassword, kSecAttrServer: server],
            [kSecClass: kSecClassCertificate, kSecAttrLabel: service],
            [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data(service.utf8)],
        ]
        for query in mine {
            var query = query
            query[kSecAttrSynchronizable] = kSecAttrSynchronizableAny
            SecItemDelete(scoped(query))
        }
    }

    /// `dictionary` with the key that selects the data-protection keychain.
    func scoped(_ dictionary: [CFString: Any]) -> CFDictionary {
        var scoped = dictionary
        scoped[kSecUseDataProtectionKeychain] = true
        return scoped as CFDictionary
    }
    #endif

    /// The status Apple's source gives for a call where iOS's keychain and macOS's
    /// data-protection keychain differ (macOS's SecItem shim strips some keys first).
    /// KeychainServices on Linux follows iOS.
    static func status(iOS: OSStatus, macOS: OSStatus) -> OSStatus {
        #if os(macOS)
        return macOS
        #else
        return iOS
        #endif
    }

    // MARK: Dictionaries

    /// A generic password of this test's service; `extra` entries win.
    func password(_ account: String = "a", _ extra: [CFString: Any] = [:]) -> [CFString: Any] {
        [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account].merging(extra) { $1 }
    }

    /// An internet password on this test's server (HTTPS); `extra` entries win.
    func internetPassword(_ account: String = "alice", _ extra: [CFString: Any] = [:]) -> [CFString: Any] {
        [kSecClass: kSecClassInternetPassword, kSecAttrServer: server, kSecAttrAccount: account,
         kSecAttrProtocol: kSecAttrProtocolHTTPS].merging(extra) { $1 }
    }

    /// Every generic password of this test's service; `extra` entries win.
    func everyPassword(_ extra: [CFString: Any] = [:]) -> [CFString: Any] {
        [kSecClass: kSecClassGenericPassword, kSecAttrService: service].merging(extra) { $1 }
    }

    // MARK: The four calls, in this test's keychain

    /// SecItemAdd: the status and the result.
    @discardableResult
    func add(_ attributes: [CFString: Any]) -> (status: OSStatus, result: CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemAdd(scoped(attributes), &result)
        return (status, result)
    }

    /// SecItemAdd that must succeed.
    func mustAdd(_ attributes: [CFString: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        let status = add(attributes).status
        #expect(status == errSecSuccess, "SecItemAdd failed with \(status)", sourceLocation: sourceLocation)
    }

    /// SecItemCopyMatching: the status and the result.
    func copy(_ query: [CFString: Any]) -> (status: OSStatus, result: CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(scoped(query), &result)
        return (status, result)
    }

    /// The status of a SecItemCopyMatching of `query`.
    func status(_ query: [CFString: Any]) -> OSStatus { copy(query).status }

    /// SecItemUpdate.
    func update(_ query: [CFString: Any], _ changes: [CFString: Any]) -> OSStatus {
        SecItemUpdate(scoped(query), changes as CFDictionary)
    }

    /// SecItemDelete.
    func delete(_ query: [CFString: Any]) -> OSStatus {
        SecItemDelete(scoped(query))
    }

    // MARK: Reading back

    /// The data of the item `query` finds (nil when there is none; any status but success and
    /// errSecItemNotFound is an issue, so that "nothing" never hides an unexpected error).
    func data(_ query: [CFString: Any], sourceLocation: SourceLocation = #_sourceLocation) -> Data? {
        checked(copy(query.merging([kSecReturnData: true]) { $1 }), sourceLocation) as? Data
    }

    /// The attributes of the item `query` finds (nil when there is none; other failures are issues).
    func attributes(_ query: [CFString: Any], sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any]? {
        checked(copy(query.merging([kSecReturnAttributes: true]) { $1 }), sourceLocation) as? [String: Any]
    }

    /// How many items `query` finds (0 when none; other failures are issues).
    func count(_ query: [CFString: Any], sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let all = query.merging([kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll]) { $1 }
        return (checked(copy(all), sourceLocation) as? [Any])?.count ?? 0
    }

    private func checked(_ outcome: (status: OSStatus, result: CFTypeRef?), _ sourceLocation: SourceLocation) -> CFTypeRef? {
        if outcome.status != errSecSuccess && outcome.status != errSecItemNotFound {
            Issue.record("unexpected status \(outcome.status)", sourceLocation: sourceLocation)
        }
        return outcome.result
    }
}

/// A text attribute of a result dictionary (String, or Data holding UTF-8: Apple keeps the type
/// the caller stored).
func text(_ dictionary: [String: Any]?, _ key: CFString) -> String? {
    switch dictionary?[key as String] {
    case let value as String: return value
    case let value as Data: return String(data: value, encoding: .utf8)
    default: return nil
    }
}

/// A number attribute of a result dictionary.
func number(_ dictionary: [String: Any]?, _ key: CFString) -> Int? {
    (dictionary?[key as String] as? NSNumber)?.intValue
}

/// A date attribute of a result dictionary.
func date(_ dictionary: [String: Any]?, _ key: CFString) -> Date? {
    dictionary?[key as String] as? Date
}

/// UTF-8 bytes of a string.
func bytes(_ text: String) -> Data { Data(text.utf8) }

/// A self-signed P-256 certificate (CN "SecItem parity fixture", valid until 2126), made with
/// `openssl req -x509 -newkey ec` for this suite: a certificate item needs real DER.
let fixtureCertificateDER = Data(base64Encoded: """
    MIIBmTCCAT+gAwIBAgIUab8didDDKkbvfMnN4TUcIKsQhXswCgYIKoZIzj0EAwIwITEfMB0GA1UEAwwWU2VjSXRlbSBwYXJpdHkgZml4dHVyZTAgFw0yNjEx\
    MjUxODEwMDZaGA8yMTI2MTEwMTE4MTAwNlowITEfMB0GA1UEAwwWU2VjSXRlbSBwYXJpdHkgZml4dHVyZTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABNTX\
    JTO5wkclHrSGcwhFvmcRxMUMjeaJiqVmhw6dt+5L0mVi3ndnsnO0A1/xEr70Cx6SnFmDcFK18nZbkSzUnQmjUzBRMB0GA1UdDgQWBBT3JP1fqf2G8rZbOJBJ\
    +ABDVHGeCjAfBgNVHSMEGDAWgBT3JP1fqf2G8rZbOJBJ+ABDVHGeCjAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQD76/1FtFqatwYOy4h6\
    ylH0Kx8ygtOyAjcD0Cpm4Um2/QIgMIL/RRM1N9HX3Ae4BD43O3ImZ2mlkb+a3PkWpnY6jRo=
    """)!

/// Outside the parity suite, so that it runs where the suite is skipped: on a Mac without a signed
/// test host, this is the failure that says why.
@Test("a password round-trips through the suite's keychain (on a Mac: needs a signed test host with a keychain-access-groups entitlement)")
func parityKeychainRoundTrip() throws {
    let keychain = try ParityKeychain()
    let status = keychain.add(keychain.password("probe", [kSecValueData: bytes("probe")])).status
    #expect(status != errSecMissingEntitlement, """
        the data-protection keychain refused this process (errSecMissingEntitlement): run the suite in a test bundle \
        hosted by an app signed with a keychain-access-groups entitlement (docs/PORTING.md, "Running the parity suite on a Mac")
        """)
    #expect(status == errSecSuccess)
    #expect(keychain.data(keychain.password("probe")) == bytes("probe"))
    #expect(keychain.delete(keychain.password("probe")) == errSecSuccess)
}

/// The private key of `fixtureCertificateDER` (X9.63: the public point, then the scalar), for the
/// identity tests. A test key, never used for anything else.
let fixturePrivateKeyX963 = Data(base64Encoded: """
    BNTXJTO5wkclHrSGcwhFvmcRxMUMjeaJiqVmhw6dt+5L0mVi3ndnsnO0A1/xEr70Cx6SnFmDcFK18nZbkSzUnQkVSmg00ePFf4X009FKqjoNbLmt2Y2JR9DF\
    je6E4LE7Zw==
    """)!
