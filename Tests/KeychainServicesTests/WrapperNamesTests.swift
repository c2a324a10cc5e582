// The Core Foundation, MacTypes, Security and LocalAuthentication names ported wrappers had to
// declare themselves, used the way Apple code uses them: CFData's byte pointer and length, a
// no-copy CFData over the caller's bytes, CFSet and its type identifier, FourCharCode attributes,
// SecTrust in PKCS #12 results, LAContext.evaluateAccessControl; and CFBoolean, which stays the
// class `Bool` converts to with `as` (see docs/PORTING.md).

import Foundation
import KeychainServices
import KeychainTestSupport
import Testing

@Suite("Core Foundation and LocalAuthentication names wrappers use")
struct WrapperNamesTests {
    // MARK: CFData

    @Test("CFDataGetBytePtr and CFDataGetLength read a kSecReturnData result's bytes; nil and empty data answer safely")
    func dataBytes() throws {
        let keychain = try ScratchKeychain()
        let secret = Data("sixteen byte key".utf8)
        let item: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "names", kSecAttrAccount: "a",
                                     kSecValueData: secret, kSecUseKeychain: keychain.keychain]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        var result: CFTypeRef?
        let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "names", kSecReturnData: true,
                                      kSecUseKeychain: keychain.keychain]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let data = try #require(result as? CFData)
        let length = CFDataGetLength(data)
        #expect(length == secret.count)
        let pointer = try #require(CFDataGetBytePtr(data) as UnsafePointer<UInt8>?)
        #expect(Data(UnsafeBufferPointer(start: pointer, count: length)) == secret)
        #expect(CFDataGetLength(nil) == 0)
        #expect(CFDataGetBytePtr(nil) == nil)
        #expect(CFDataGetLength(Data() as CFData) == 0)
    }

    @Test("CFDataCreateWithBytesNoCopy with kCFAllocatorNull wraps the caller's bytes without copying or freeing them; the default deallocator frees malloc'd bytes")
    func dataWithoutCopy() throws {
        let count = 32
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        defer { buffer.deallocate() }
        for index in 0..<count { buffer[index] = UInt8(index) }
        do {
            let data = try #require(CFDataCreateWithBytesNoCopy(kCFAllocatorDefault, buffer, count, kCFAllocatorNull) as CFData?)
            #expect(CFDataGetLength(data) == count)
            // Not copied: the object reads the caller's memory.
            #expect(CFDataGetBytePtr(data) == UnsafePointer(buffer))
            buffer[0] = 0xAA
            #expect(CFDataGetBytePtr(data)[0] == 0xAA)
        }
        // The object is gone and did not free the buffer (the defer above does; a double free would abort).
        #expect(buffer[1] == 1)
        // Owned bytes: malloc'd, freed by the object (with the default deallocator) when it goes.
        let owned = try #require(malloc(4)?.assumingMemoryBound(to: UInt8.self))
        owned.initialize(repeating: 7, count: 4)
        let data = try #require(CFDataCreateWithBytesNoCopy(nil, owned, 4, nil) as CFData?)
        #expect(data as Data == Data([7, 7, 7, 7]))
        #expect(kCFAllocatorNull != nil)
        #expect(CFDataCreateWithBytesNoCopy(nil, buffer, -1, kCFAllocatorNull) == nil)
        #expect(CFDataCreateWithBytesNoCopy(nil, nil, 0, kCFAllocatorNull).map(CFDataGetLength) == 0)
    }

    // MARK: CFSet, FourCharCode, SecTrust

    @Test("CFSet is NSSet and has a type identifier of its own")
    func set() {
        let set: CFSet = NSSet(array: ["a", "b"])
        #expect(CFGetTypeID(set) == CFSetGetTypeID())
        #expect(CFGetTypeID(NSMutableSet()) == CFSetGetTypeID())
        #expect(CFSetGetTypeID() != CFArrayGetTypeID() && CFSetGetTypeID() != CFDictionaryGetTypeID())
        #expect(CFGetTypeID(NSArray()) != CFSetGetTypeID())
    }

    @Test("FourCharCode attributes (kSecAttrCreator, kSecAttrType) read back with `as? FourCharCode`")
    func fourCharCode() throws {
        let keychain = try ScratchKeychain()
        let creator: FourCharCode = 0x6B_6B_6974  // "kkit"
        let item: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "codes", kSecAttrCreator: creator,
                                     kSecAttrType: FourCharCode(0xFFFF_FFFE), kSecUseKeychain: keychain.keychain]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        var result: CFTypeRef?
        let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "codes", kSecReturnAttributes: true,
                                      kSecUseKeychain: keychain.keychain]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecAttrCreator as String] as? FourCharCode == creator)
        #expect(attributes[kSecAttrType as String] as? FourCharCode == 0xFFFF_FFFE)
    }

    @Test("SecTrust is a type with a type identifier; a PKCS #12 item's kSecImportItemTrust reads as nil through `as! SecTrust?`")
    func trust() {
        #expect(SecTrustGetTypeID() != SecKeyGetTypeID())
        #expect(SecTrustGetTypeID() == SecTrustGetTypeID())
        let item: [String: Any] = [kSecImportItemLabel as String: "label"]
        let trust = item[kSecImportItemTrust as String] as! SecTrust?
        #expect(trust == nil)
    }

    // MARK: CFBoolean

    @Test("CFBoolean idioms compile and behave: `flag as CFBoolean`, kCFBooleanTrue as a query value, `== kCFBooleanTrue`, CFBooleanGetTypeID")
    func booleans() throws {
        let keychain = try ScratchKeychain()
        let flag = true
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "booleans",
                                   kSecAttrIsInvisible as String: flag as CFBoolean, kSecUseKeychain as String: keychain.keychain]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        var result: CFTypeRef?
        let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "booleans",
                                      kSecReturnAttributes: kCFBooleanTrue!, kSecReturnData: kCFBooleanFalse!,
                                      kSecUseKeychain: keychain.keychain]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecAttrIsInvisible as String] as? Bool == true)
        #expect(attributes[kSecValueData as String] == nil)
        #expect((true as CFBoolean) == kCFBooleanTrue)
        #expect(kCFBooleanTrue as? Bool == true && kCFBooleanFalse as? Bool == false)
        #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(flag as CFBoolean) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(1 as CFNumber) == CFNumberGetTypeID())
    }

    // MARK: LAContext.evaluateAccessControl

    private func accessControl(_ flags: SecAccessControlCreateFlags) throws -> SecAccessControl {
        try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil))
    }

    @Test("LAAccessControlOperation has Apple's raw values")
    func operations() {
        let operations: [LAAccessControlOperation] = [.createItem, .useItem, .createKey, .useKeySign, .useKeyDecrypt, .useKeyKeyExchange]
        #expect(operations.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(LAAccessControlOperation(rawValue: 6) == nil)
    }

    @Test("evaluateAccessControl: nothing to ask succeeds without a prompt (no constraint; creating; a key-usage constraint for reading); an invalidated context fails")
    func evaluateWithoutPrompt() async throws {
        let context = LAContext()
        context.interactionNotAllowed = true
        #expect(try await context.evaluateAccessControl(try accessControl([]), operation: .useItem, localizedReason: "read"))
        #expect(try await context.evaluateAccessControl(try accessControl(.userPresence), operation: .createItem, localizedReason: "add"))
        #expect(try await context.evaluateAccessControl(try accessControl(.userPresence), operation: .createKey, localizedReason: "add"))
        #expect(try await context.evaluateAccessControl(try accessControl([.privateKeyUsage, .userPresence]), operation: .useItem,
                                                        localizedReason: "read"))
        context.invalidate()
        await #expect(throws: LAError.self) {
            try await context.evaluateAccessControl(try accessControl([]), operation: .useItem, localizedReason: "read")
        }
        let control = try accessControl([])
        let reply = await withCheckedContinuation { (continuation: CheckedContinuation<(Bool, LAError.Code?), Never>) in
            context.evaluateAccessControl(control, operation: .useItem, localizedReason: "read") { success, error in
                continuation.resume(returning: (success, (error as? LAError)?.code))
            }
        }
        #expect(reply.0 == false && reply.1 == .invalidContext)
    }

    @Test("evaluateAccessControl: an application-password constraint needs the credential set on the context")
    func applicationPassword() async throws {
        let context = LAContext()
        let control = try accessControl(.applicationPassword)
        await #expect(throws: LAError.self) {
            try await context.evaluateAccessControl(control, operation: .useItem, localizedReason: "read")
        }
        #expect(context.setCredential(Data("app password".utf8), type: .applicationPassword))
        #expect(try await context.evaluateAccessControl(control, operation: .useItem, localizedReason: "read"))
    }
}
