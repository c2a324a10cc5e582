import Foundation
import KeychainServices
import KeychainStore
import KeychainTestSupport
import Testing

/// Keychain files written by an earlier build, read by this one: a change that breaks files users
/// already have fails here. `Golden/` holds four keychains written on 2026-11-25 (without a
/// password; with the password "golden-password"; synchronizable items with tombstones; keys and a
/// certificate), the device key they were written with (test data, not a secret: the
/// ThisDeviceOnly items need it), and `expected.json`, everything those files held as read back
/// right after writing: every attribute and every value, byte for byte.
///
/// Never regenerate these to make a failing test pass: a failure means files written by earlier
/// builds no longer read. To add a case, regenerate on purpose (new random keys, new files) with
/// `KEYCHAINKIT_WRITE_GOLDEN=1 swift test --filter GoldenKeychainTests` and commit the result.
@Suite("Golden keychain files from an earlier build", .serialized)
struct GoldenKeychainTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path
    static let password = Data("golden-password".utf8)
    /// The files, and whether each has the password.
    static let files: [(name: String, hasPassword: Bool)] = [
        ("no-password.keychain-db", false), ("password.keychain-db", true),
        ("tombstones.keychain-db", false), ("keys-certificates.keychain-db", false),
    ]
    nonisolated(unsafe) static let classes: [(name: String, value: CFString)] = [
        ("genp", kSecClassGenericPassword), ("inet", kSecClassInternetPassword),
        ("cert", kSecClassCertificate), ("keys", kSecClassKey),
    ]

    @Test("every golden file reads exactly what it held when written: every item, attribute, value and tombstone")
    func goldenFilesReadByteExact() throws {
        if ProcessInfo.processInfo.environment["KEYCHAINKIT_WRITE_GOLDEN"] == "1" { try Self.write() }
        let expectedData = try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/expected.json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: expectedData) as? [String: [String: [String]]])
        #expect(expected.count == Self.files.count)
        var itemsRead = 0
        for file in Self.files {
            let read = try Self.read(file.name, hasPassword: file.hasPassword)
            let want = try #require(expected[file.name], "expected.json lacks \(file.name)")
            #expect(Set(read.keys) == Set(want.keys), "\(file.name): item kinds")
            for (kind, items) in want {
                #expect(read[kind] == items, "\(file.name) \(kind): read differs from what was written")
            }
            itemsRead += read.filter { $0.key != "tombstones" }.values.reduce(0) { $0 + $1.count }
        }
        #expect(itemsRead >= 12, "the golden files hold items (read \(itemsRead))")
    }

    // MARK: Reading

    /// A copy of a golden file and the device key in a fresh 0700 folder (git keeps neither the
    /// modes the file checks require nor the folder's; opening also writes a home marker there).
    private static func copy(_ name: String) throws -> (scratch: TemporaryKeychain, keychain: String, deviceKey: String) {
        let scratch = try TemporaryKeychain("golden")
        for file in [name, "device.key"] {
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: scratch.file(file))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scratch.file(file))
        }
        return (scratch, scratch.file(name), scratch.file("device.key"))
    }

    /// Everything a golden file holds, as text: per item class, each item's attributes and value
    /// (`kSecReturnAttributes` + `kSecReturnData`, every item), sorted; and its tombstones.
    static func read(_ name: String, hasPassword: Bool) throws -> [String: [String]] {
        let copy = try copy(name)
        defer { copy.scratch.remove() }  // forgets the registered keychain too
        let database = try KeychainDatabase.open(path: copy.keychain, password: hasPassword ? password : nil,
                                                 options: .init(deviceKeyPath: copy.deviceKey, createIfMissing: false))
        AppleAPIRegistry.register(database)
        return try contents(of: database, at: copy.keychain)
    }

    /// The text form of every item and tombstone in `database` (registered at `path`).
    static func contents(of database: KeychainDatabase, at path: String) throws -> [String: [String]] {
        var keychain: SecKeychain?
        try #require(SecKeychainOpen(path, &keychain) == errSecSuccess)
        var result: [String: [String]] = [:]
        for itemClass in classes {
            var found: CFTypeRef?
            let status = SecItemCopyMatching([
                kSecClass: itemClass.value, kSecUseKeychain: try #require(keychain), kSecMatchLimit: kSecMatchLimitAll,
                kSecReturnAttributes: true, kSecReturnData: true, kSecAttrSynchronizable: kSecAttrSynchronizableAny,
            ] as [CFString: Any] as CFDictionary, &found)
            if status == errSecItemNotFound { continue }
            try #require(status == errSecSuccess, "\(itemClass.name): \(status)")
            let items = try #require(found as? [[String: Any]])
            result[itemClass.name] = items.map(describe).sorted()
        }
        let tombstones = try database.portableEntries(of: [.genericPassword, .internetPassword]).entries
            .filter { $0.deletedAt != nil }
            .map { "\($0.itemClass) \($0.localIdentity.base64EncodedString()) deleted \($0.deletedAt!.timeIntervalSinceReferenceDate)" }
        if !tombstones.isEmpty { result["tombstones"] = tombstones.sorted() }
        return result
    }

    /// One item as sorted `name=kind:value` lines; values by type, data in base64.
    private static func describe(_ item: [String: Any]) -> String {
        item.map { key, value in "\(key)=\(text(value))" }.sorted().joined(separator: "\n")
    }

    private static func text(_ value: Any) -> String {
        switch value {
        case let data as Data: "data:" + data.base64EncodedString()
        case let string as String: "string:" + string
        case let date as Date: "date:\(date.timeIntervalSinceReferenceDate)"
        case let number as NSNumber: "number:\(number)"
        default: "type:\(type(of: value))"
        }
    }

    // MARK: Writing (only with KEYCHAINKIT_WRITE_GOLDEN=1)

    /// Writes the four keychains and the device key into `Golden/`, then `expected.json` from
    /// reading them back as the test does.
    static func write() throws {
        let fixture = try TemporaryKeychain("golden-write")
        defer { fixture.remove() }
        let scratch = fixture.directory
        let deviceKey = scratch + "/device.key"
        for file in files {
            let path = scratch + "/" + file.name
            let database = try KeychainDatabase.open(path: path, password: file.hasPassword ? password : nil,
                                                     options: .init(deviceKeyPath: deviceKey, createIfMissing: true))
            AppleAPIRegistry.register(database)
            var keychain: SecKeychain?
            try #require(SecKeychainOpen(path, &keychain) == errSecSuccess)
            try fill(file.name, try #require(keychain), scratch: scratch)
            _ = try database.checkpointAndTruncateLog(waitingAtMost: 1000)
            AppleAPIRegistry.forget(path: path)
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in files.map(\.name) + ["device.key"] {
            try? FileManager.default.removeItem(atPath: folder + "/" + file)  // replaced on purpose
            try FileManager.default.copyItem(atPath: scratch + "/" + file, toPath: folder + "/" + file)
        }
        var expected: [String: [String: [String]]] = [:]
        for file in files { expected[file.name] = try read(file.name, hasPassword: file.hasPassword) }
        try JSONSerialization.data(withJSONObject: expected, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: folder + "/expected.json"))
    }

    private static func add(_ attributes: [CFString: Any], _ keychain: SecKeychain) throws {
        var query = attributes
        query[kSecUseKeychain] = keychain
        let status = SecItemAdd(query as CFDictionary, nil)
        try #require(status == errSecSuccess, "\(attributes[kSecAttrAccount] ?? attributes[kSecClass] ?? ""): \(status)")
    }

    private static func fill(_ name: String, _ keychain: SecKeychain, scratch: String) throws {
        switch name {
        case "no-password.keychain-db", "password.keychain-db":
            try add([kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.service", kSecAttrAccount: "alice",
                     kSecAttrLabel: "Golden label", kSecAttrComment: "a comment", kSecAttrGeneric: Data([0, 1, 2, 254, 255]),
                     kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock, kSecValueData: Data("s3cret".utf8)], keychain)
            try add([kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.service", kSecAttrAccount: "device-bound",
                     kSecAttrAccessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecValueData: Data("only here".utf8)], keychain)
            try add([kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.binary", kSecAttrAccount: "bytes",
                     kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, kSecValueData: Data(0...255)], keychain)
            try add([kSecClass: kSecClassInternetPassword, kSecAttrServer: "example.com", kSecAttrAccount: "bob",
                     kSecAttrPort: 8443, kSecAttrProtocol: kSecAttrProtocolHTTPS, kSecAttrPath: "/login",
                     kSecAttrAuthenticationType: kSecAttrAuthenticationTypeHTMLForm, kSecValueData: Data("hunter2".utf8)], keychain)
            if name == "password.keychain-db" {
                try add([kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.service", kSecAttrAccount: "passcode-set",
                         kSecAttrAccessible: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, kSecValueData: Data("akpu".utf8)], keychain)
                try add([kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.service", kSecAttrAccount: "when-unlocked",
                         kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked, kSecValueData: Data("ak".utf8)], keychain)
            }
        case "tombstones.keychain-db":
            for account in ["kept", "updated", "deleted"] {
                try add([kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.sync", kSecAttrAccount: account,
                         kSecAttrSynchronizable: true, kSecValueData: Data("v1-\(account)".utf8)], keychain)
            }
            let updated: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.sync", kSecAttrAccount: "updated",
                                            kSecAttrSynchronizable: true, kSecUseKeychain: keychain]
            try #require(SecItemUpdate(updated as CFDictionary, [kSecValueData: Data("v2".utf8)] as CFDictionary) == errSecSuccess)
            let deleted: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "golden.sync", kSecAttrAccount: "deleted",
                                            kSecAttrSynchronizable: true, kSecUseKeychain: keychain]
            try #require(SecItemDelete(deleted as CFDictionary) == errSecSuccess)
            try add([kSecClass: kSecClassInternetPassword, kSecAttrServer: "sync.example.com", kSecAttrAccount: "carol",
                     kSecAttrSynchronizable: true, kSecValueData: Data("gone".utf8)], keychain)
            let deletedInternet: [CFString: Any] = [kSecClass: kSecClassInternetPassword, kSecAttrServer: "sync.example.com",
                                                    kSecAttrSynchronizable: true, kSecUseKeychain: keychain]
            try #require(SecItemDelete(deletedInternet as CFDictionary) == errSecSuccess)
        case "keys-certificates.keychain-db":
            for (type, bits, tag) in [(kSecAttrKeyTypeECSECPrimeRandom, 256, "golden.ec"), (kSecAttrKeyTypeRSA, 2048, "golden.rsa")] {
                var error: Unmanaged<CFError>?
                let parameters: [CFString: Any] = [
                    kSecAttrKeyType: type, kSecAttrKeySizeInBits: bits, kSecUseKeychain: keychain,
                    kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data(tag.utf8),
                                          kSecAttrLabel: tag] as CFDictionary,
                ]
                _ = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error), "\(String(describing: error?.takeRetainedValue()))")
            }
            let certificate = try #require(SecCertificateCreateWithData(nil, try Self.certificateDER(scratch: scratch) as CFData))
            try add([kSecClass: kSecClassCertificate, kSecValueRef: certificate, kSecAttrLabel: "Golden certificate"], keychain)
        default:
            Issue.record("no contents for \(name)")
        }
    }

    /// A self-signed EC certificate made by openssl (only when the files are regenerated).
    private static func certificateDER(scratch: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                             "-keyout", scratch + "/cert-key.pem", "-subj", "/CN=KeychainKit golden/O=KeychainKit",
                             "-days", "3650", "-outform", "DER", "-out", scratch + "/cert.der"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl req failed")
        return try Data(contentsOf: URL(fileURLWithPath: scratch + "/cert.der"))
    }
}
