import Foundation
import KeychainServices
import KeychainServicesExtras
import KeychainTestSupport
import Testing

/// `errSecParam` is Apple's answer to every malformed dictionary; its message ("One or more
/// parameters passed to a function were not valid.") does not say which. The reason names the key
/// as Apple's headers spell it and what it needed — never the value, which may be the secret.
@Suite struct ParameterReasonTests {
    /// A keychain of its own for each test, in a private temporary folder.
    private final class Scratch {
        let scratch: TemporaryKeychain
        let keychain: SecKeychain

        init() throws {
            scratch = try TemporaryKeychain.forAppleAPI("param")
            var created: SecKeychain?
            let status = SecKeychainCreate(scratch.file("p.keychain-db"), 0, nil, false, nil, &created)
            try #require(status == errSecSuccess)
            keychain = try #require(created)
        }

        deinit {
            _ = SecKeychainDelete(keychain)
            scratch.remove()
        }

        /// The status of `call` and the reason recorded for it on this thread.
        func failure(_ call: () -> OSStatus) -> (status: OSStatus, reason: String?) {
            let status = call()
            return (status, KeychainFailureDetails.reason(for: status))
        }

        func generic(_ extra: [CFString: Any]) -> CFDictionary {
            var query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "param-test",
                                          kSecAttrAccount: "me", kSecUseKeychain: keychain]
            for (key, value) in extra { query[key] = value }
            return query as CFDictionary
        }
    }

    @Test func wrongAccessibilityNamesTheKey() throws {
        let scratch = try Scratch()
        let (status, reason) = scratch.failure {
            SecItemAdd(scratch.generic([kSecAttrAccessible: "whenever", kSecValueData: Data("x".utf8)]), nil)
        }
        #expect(status == errSecParam)
        #expect(reason?.contains("kSecAttrAccessible") == true)
        #expect(reason?.contains("kSecAttrAccessible… constants") == true)
        // Apple's message for the status is unchanged.
        #expect(SecCopyErrorMessageString(errSecParam, nil) as String? == "One or more parameters passed to a function were not valid.")
    }

    /// A password given as a String instead of Data: the reason says what kSecValueData needs and
    /// does not repeat the password.
    @Test func secretOfTheWrongTypeIsNotRepeated() throws {
        let scratch = try Scratch()
        let password = "correct-horse-battery-staple"
        let (status, reason) = scratch.failure { SecItemAdd(scratch.generic([kSecValueData: password]), nil) }
        #expect(status == errSecParam)
        let text = try #require(reason)
        #expect(text.contains("kSecValueData"))
        #expect(text.contains("data"))
        #expect(!text.contains(password))
    }

    @Test func badMatchLimitNamesTheKey() throws {
        let scratch = try Scratch()
        let (status, reason) = scratch.failure {
            SecItemCopyMatching(scratch.generic([kSecMatchLimit: "some", kSecReturnData: true]), nil)
        }
        #expect(status == errSecParam)
        #expect(reason?.contains("kSecMatchLimit") == true)
    }

    @Test func accessibilityBesideAccessControlSaysGiveOne() throws {
        let scratch = try Scratch()
        let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil))
        let (status, reason) = scratch.failure {
            SecItemAdd(scratch.generic([kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked, kSecAttrAccessControl: control,
                                        kSecValueData: Data("x".utf8)]), nil)
        }
        #expect(status == errSecParam)
        #expect(reason?.contains("not both") == true)
    }

    @Test func attributeOfTheWrongKindNamesKeyAndKind() throws {
        let scratch = try Scratch()
        let (status, reason) = scratch.failure {
            SecItemAdd(scratch.generic([kSecAttrCreationDate: "yesterday", kSecValueData: Data("x".utf8)]), nil)
        }
        #expect(status == errSecParam)
        #expect(reason?.contains("kSecAttrCreationDate") == true)
        #expect(reason?.contains("a date") == true)
    }
}
