import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import Testing

/// Lock state and accessibility classes (§4, items 41 and 42).
@Suite("Conformance: lock state and accessibility")
struct LockStateConformanceTests {
    @Test("41 locked: add of a default-accessibility item → errSecInteractionNotAllowed, even a duplicate; reading data → errSecInteractionNotAllowed")
    func lockedKeychain() throws {
        let (engine, database) = try makeLockableEngine()
        engine.mustAdd(genp())
        database.lockKeychain()
        #expect(engine.add(genp(account: "new")).status == errSecInteractionNotAllowed)
        #expect(engine.add(genp()).status == errSecInteractionNotAllowed)
        #expect(engine.copyMatching(genpQuery([kSecReturnData as String: yes])).status == errSecInteractionNotAllowed)
        // Attribute reads of "when unlocked" items are refused too (conservative choice, §3.4).
        #expect(engine.copyMatching(genpQuery([kSecReturnAttributes as String: yes])).status == errSecInteractionNotAllowed)
        #expect(engine.update(genpQuery(), [kSecValueData as String: bytes("x")]) == errSecInteractionNotAllowed)
        try database.unlock(password: Data("pw".utf8))
        #expect(engine.readData(genpQuery()) == bytes("secret"))
        #expect(engine.status(genpQuery(account: "new")) == errSecItemNotFound)
    }

    @Test("4 locked: Always items can be added and read; AfterFirstUnlock items stay readable after the first unlock")
    func classesAvailableWhileLocked() throws {
        let (engine, database) = try makeLockableEngine()
        engine.mustAdd(genp(account: "ck", data: bytes("c"), [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]))
        engine.mustAdd(genp(account: "aku", data: bytes("u"),
                            [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]))
        database.lockKeychain()
        #expect(engine.add(genp(account: "dk", data: bytes("d"), [kSecAttrAccessible as String: accessibleAlways])).status == errSecSuccess)
        #expect(engine.add(genp(account: "dku", data: bytes("du"),
                                [kSecAttrAccessible as String: accessibleAlwaysThisDeviceOnly])).status == errSecSuccess)
        #expect(engine.readData(genpQuery(account: "dk")) == bytes("d"))
        #expect(engine.readData(genpQuery(account: "dku")) == bytes("du"))
        #expect(engine.readData(genpQuery(account: "ck")) == bytes("c"))
        #expect(engine.copyMatching(genpQuery(account: "aku", [kSecReturnData as String: yes])).status == errSecInteractionNotAllowed)
        // A query spanning a locked item reports the lock rather than a partial answer.
        let all = engine.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: yes,
                                       kSecMatchLimit as String: kSecMatchLimitAll])
        #expect(all.status == errSecInteractionNotAllowed)
    }

    @Test("42 akpu on a keychain without a password: add → errSecNotAvailable")
    func passcodeClassWithoutPassword() throws {
        let engine = try makeEngine()
        let akpu = genp([kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly])
        #expect(engine.add(akpu).status == errSecNotAvailable)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        // Through an access control as well.
        var error: Unmanaged<CFError>?
        let accessControl = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, [], &error))
        #expect(engine.add(genp([kSecAttrAccessControl as String: accessControl])).status == errSecNotAvailable)
        // Other classes work.
        #expect(engine.add(genp([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly])).status == errSecSuccess)
    }

    @Test("42 akpu: add with a password → 0; password removed → item gone (errSecItemNotFound), add → errSecNotAvailable; new password → still gone, add → 0")
    func passcodeClassLifecycle() throws {
        let (engine, database) = try makeLockableEngine()
        let akpu = genp(data: bytes("passcode-only"), [kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly])
        #expect(engine.add(akpu).status == errSecSuccess)
        #expect(engine.readData(genpQuery()) == bytes("passcode-only"))
        engine.mustAdd(genp(account: "ordinary"))
        try database.changePassword(from: Data("pw".utf8), to: nil)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        #expect(engine.add(akpu).status == errSecNotAvailable)
        #expect(engine.readData(genpQuery(account: "ordinary")) == bytes("secret"))
        try database.changePassword(from: nil, to: Data("pw2".utf8))
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        #expect(engine.add(akpu).status == errSecSuccess)
        #expect(engine.readData(genpQuery()) == bytes("passcode-only"))
        database.lockKeychain()
        #expect(engine.copyMatching(genpQuery([kSecReturnData as String: yes])).status == errSecInteractionNotAllowed)
    }
}
