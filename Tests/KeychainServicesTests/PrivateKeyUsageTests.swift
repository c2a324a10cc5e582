// `.privateKeyUsage` access control on stored keys, through Apple's API: the lookup returns the
// key without authentication, each signature / key exchange satisfies the item's constraint
// first (the real pinentry-tty on a pseudo-terminal), and the LAContext given at lookup is
// reused as Apple reuses it.

import Foundation
import KeychainEngine
import KeychainServices
import KeychainTestSupport
import PseudoTerminalSupport
import Testing
import RequiredToolSupport

/// A password keychain whose prompts go to a real pinentry on a pseudo-terminal.
private final class PromptingKeychain {
    static let password = "device-passcode"
    let scratch: TemporaryKeychain
    let path: String
    let keychain: SecKeychain
    let terminal: PseudoTerminal

    init() throws {
        scratch = try TemporaryKeychain.forAppleAPI("pku")
        path = scratch.file("pku.keychain-db")
        let bytes = Array(Self.password.utf8)
        var created: SecKeychain?
        let path = path
        try #require(bytes.withUnsafeBytes { SecKeychainCreate(path, UInt32(bytes.count), $0.baseAddress, false, nil, &created) }
            == errSecSuccess)
        keychain = try #require(created)
        terminal = try PseudoTerminal()
        AppleAPIRegistry.setAuthenticator(
            OwnerAuthenticator(pinentry: PinentryConfiguration(program: try AccessControlTests.pinentryPath, terminal: terminal.devicePath)),
            forKeychainAt: path)
    }

    deinit {
        AppleAPIRegistry.setAuthenticator(nil, forKeychainAt: path)
        _ = SecKeychainDelete(keychain)
        scratch.remove()
    }

    /// How many password prompts the terminal has shown.
    var promptCount: Int { terminal.text.components(separatedBy: "Password:").count - 1 }

    func lookUp(_ extra: [CFString: Any]) -> (OSStatus, CFTypeRef?) {
        var query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("guarded".utf8), kSecUseKeychain: keychain]
        query.merge(extra) { _, new in new }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }
}

@Suite("Private key usage: access control checked at each private-key operation", .integration, .tags(.external, .pinentry))
struct PrivateKeyUsageTests {
    static let message = Data("sign me".utf8)

    @Test("the key is found without authentication; signatures and key exchanges ask, an evaluated lookup context is reused")
    func perOperationCheck() throws {
        let prompting = try PromptingKeychain()
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                                  [.privateKeyUsage, .devicePasscode], nil))
        let created = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256, extra: [
            kSecUseKeychain: prompting.keychain,
            kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("guarded".utf8),
                                  kSecAttrAccessControl: access] as CFDictionary,
        ])
        let publicKey = try #require(SecKeyCopyPublicKey(created))
        let terminal = prompting.terminal

        // The lookup itself needs no authentication, even where no prompt is allowed.
        let context = LAContext()
        context.localizedReason = "Sign the test message"
        context.interactionNotAllowed = true
        let lookup = prompting.lookUp([kSecReturnRef: true, kSecUseAuthenticationContext: context])
        #expect(lookup.0 == errSecSuccess)
        let found = try #require(lookup.1 as? SecKey)
        #expect(found == created)
        #expect(prompting.promptCount == 0)
        context.interactionNotAllowed = false  // the key keeps this context: its operations may prompt now
        // The key's bytes are another matter: reading them still needs the passcode.
        let silent = LAContext()
        silent.interactionNotAllowed = true
        #expect(prompting.lookUp([kSecReturnData: true, kSecUseAuthenticationContext: silent]).0 == errSecInteractionNotAllowed)

        // The first signature asks for the passcode, showing the context's reason.
        let typed = Thread.detachResult { terminal.answer(after: "Password:", with: "\(PromptingKeychain.password)\r") }
        let signature = try #require(sign(found, .ecdsaSignatureMessageX962SHA256, Self.message).value)
        #expect(typed.value == true)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message, signature).value == true)
        #expect(prompting.terminal.text.contains("Sign the test message"))
        #expect(prompting.promptCount == 1)

        // The context evaluated by that prompt is reused: no second prompt.
        #expect(sign(found, .ecdsaSignatureMessageX962SHA256, Self.message).value != nil)
        let peer = try #require(SecKeyCopyPublicKey(try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)))
        #expect(capture { SecKeyCopyKeyExchangeResult(found, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, $0) }.value != nil)
        let ciphertext = try #require(encrypt(publicKey, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, Self.message).value)
        #expect(decrypt(found, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, ciphertext).value == Self.message)
        #expect(prompting.promptCount == 1)

        // A key looked up without a context asks again; a cancel fails the operation with -128.
        let other = try #require(prompting.lookUp([kSecReturnRef: true]).1 as? SecKey)
        let cancelled = Thread.detachResult { terminal.answer(after: "Password:", occurrence: 2, with: "\u{04}") }
        let exchange = capture { SecKeyCopyKeyExchangeResult(other, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, $0) }
        #expect(cancelled.value == true)
        #expect(exchange.value == nil && exchange.code == Int(errSecUserCanceled))

        // The key SecKeyCreateRandomKey returned is guarded the same way.
        let again = Thread.detachResult {
            terminal.answer(after: "Password:", occurrence: 3, with: "\(PromptingKeychain.password)\r")
        }
        #expect(sign(created, .ecdsaSignatureMessageX962SHA256, Self.message).value != nil)
        #expect(again.value == true)
        #expect(prompting.promptCount == 3)

        // An invalidated context fails at once, without a prompt.
        context.invalidate()
        #expect(sign(found, .ecdsaSignatureMessageX962SHA256, Self.message).code == Int(errSecAuthFailed))
        #expect(prompting.promptCount == 3)
    }

    @Test("the private key of an identity found by SecItemCopyMatching checks its access control at each operation too")
    func identityKey() throws {
        let prompting = try PromptingKeychain()
        let terminal = prompting.terminal
        let factory = try IdentityFactory()
        let key = try factory.key("guarded")
        let certificate = try factory.certificate(key: "guarded", commonName: "Guarded", serial: "61")
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                                  [.privateKeyUsage, .devicePasscode], nil))
        var added: CFTypeRef?
        #expect(SecItemAdd([kSecValueRef: key, kSecAttrAccessControl: access, kSecUseKeychain: prompting.keychain,
                            kSecReturnRef: true] as CFDictionary, &added) == errSecSuccess)
        let addedKey = try #require(added as? SecKey)
        #expect(SecItemAdd([kSecValueRef: certificate, kSecUseKeychain: prompting.keychain] as CFDictionary, nil) == errSecSuccess)

        var result: CFTypeRef?
        let context = LAContext()
        context.interactionNotAllowed = true
        let status = SecItemCopyMatching([kSecClass: kSecClassIdentity, kSecReturnRef: true, kSecUseKeychain: prompting.keychain,
                                          kSecUseAuthenticationContext: context] as CFDictionary, &result)
        context.interactionNotAllowed = false  // the key keeps this context: its operations may prompt now
        #expect(status == errSecSuccess)
        let identity = try #require(result as? SecIdentity)
        var privateKey: SecKey?
        #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
        let signingKey = try #require(privateKey)
        #expect(prompting.promptCount == 0)

        let typed = Thread.detachResult { terminal.answer(after: "Password:", with: "\(PromptingKeychain.password)\r") }
        let signature = try #require(sign(signingKey, .rsaSignatureMessagePKCS1v15SHA256, Self.message).value)
        #expect(typed.value == true)
        #expect(prompting.promptCount == 1)
        let publicKey = try #require(SecCertificateCopyKey(certificate))
        #expect(verify(publicKey, .rsaSignatureMessagePKCS1v15SHA256, Self.message, signature).value == true)

        // The reference SecItemAdd returned is guarded too: a cancel fails its signature.
        let cancelled = Thread.detachResult { terminal.answer(after: "Password:", occurrence: 2, with: "\u{04}") }
        #expect(sign(addedKey, .rsaSignatureMessagePKCS1v15SHA256, Self.message).code == Int(errSecUserCanceled))
        #expect(cancelled.value == true)
    }
}
