import Foundation
import KeychainEngine
import KeychainServices
import KeychainServicesExtras
import Testing

/// The fingerprint service Apple's C API uses here: fprintd on the system bus.
private enum SystemFingerprints {
    /// Whether it gives no enrolled set (no answer, no reader, or no finger enrolled).
    static var hasNoEnrolledFinger: Bool {
        (try? BiometricAuthenticator(configuration: .fromEnvironment()).currentState().isEnrolled) != true
    }
}

/// `.biometryCurrentSet` through Apple's C API (`SecItemAdd`, `SecItemUpdate`,
/// `SecKeyCreateRandomKey`) on a machine where the configured fingerprint service (fprintd on the
/// system bus) has no enrolled finger, or does not answer: the write is refused with
/// errSecAuthFailed, its reason is recorded for `KeychainFailureDetails`, and nothing is stored.
/// The fprintd cases themselves, each cause on a real fprintd, are in `BiometryTests`.
@Suite("Apple's API refuses .biometryCurrentSet without an enrolled finger",
       .enabled(if: SystemFingerprints.hasNoEnrolledFinger,
                "this machine's fprintd has an enrolled finger: .biometryCurrentSet items are bound, not refused"))
struct BiometryCurrentSetRefusalTests {
    private func expectReasonNamesTheCause(_ reason: String?, sourceLocation: SourceLocation = #_sourceLocation) {
        let reason = reason ?? ""
        let causes = ["no fingerprint service (fprintd) answered", "fprintd has no fingerprint reader",
                      "no finger is enrolled (enrol one with fprintd-enroll)"]
        #expect(causes.contains { reason.contains($0) }, "\(reason)", sourceLocation: sourceLocation)
        #expect(reason.contains(".biometryAny") && reason.contains(".userPresence"), "\(reason)", sourceLocation: sourceLocation)
        #expect(!reason.contains("card-number"), sourceLocation: sourceLocation)
    }

    @Test("SecItemAdd and SecItemUpdate: -25293 with the cause in KeychainFailureDetails; nothing stored or changed")
    func secItem() throws {
        let scratch = try ScratchKeychain()
        let item: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "vault", kSecAttrAccount: "card"]
        for flags: SecAccessControlCreateFlags in [.biometryCurrentSet, [.biometryCurrentSet, .or, .devicePasscode]] {
            let access = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
            let status = scratch.add(item.merging([kSecValueData: Data("card-number".utf8), kSecAttrAccessControl: access]) { $1 }).0
            #expect(status == errSecAuthFailed)
            expectReasonNamesTheCause(KeychainFailureDetails.reason(for: status))
            #expect(scratch.copyMatching(item).0 == errSecItemNotFound)
        }

        #expect(scratch.add(item.merging([kSecValueData: Data("card-number".utf8)]) { $1 }).0 == errSecSuccess)
        let readBack = item.merging([kSecReturnData: true, kSecReturnAttributes: true]) { $1 }
        let before = try #require(scratch.copyMatching(readBack).1 as? [String: Any])
        let access = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, nil))
        let status = scratch.update(item, [kSecAttrAccessControl: access, kSecValueData: Data("new-card-number".utf8)])
        #expect(status == errSecAuthFailed)
        expectReasonNamesTheCause(KeychainFailureDetails.reason(for: status))
        let attributes = try #require(scratch.copyMatching(readBack).1 as? [String: Any])
        #expect(attributes[kSecValueData as String] as? Data == Data("card-number".utf8))
        // The same (empty) access control and the same modification date: nothing was written.
        #expect(String(describing: attributes[kSecAttrAccessControl as String])
                == String(describing: before[kSecAttrAccessControl as String]))
        #expect(attributes[kSecAttrModificationDate as String] as? Date == before[kSecAttrModificationDate as String] as? Date)
        // An update that leaves the access control alone is not refused.
        #expect(scratch.update(item, [kSecAttrLabel: "card"]) == errSecSuccess)
    }

    @Test("SecKeyCreateRandomKey of a permanent .biometryCurrentSet + .privateKeyUsage key: nil, -25293 naming the cause, no key stored")
    func permanentKey() throws {
        let scratch = try ScratchKeychain()
        let access = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                                  [.biometryCurrentSet, .privateKeyUsage], nil))
        let parameters: [CFString: Any] = [
            kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256, kSecUseKeychain: scratch.keychain,
            kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("bio-key".utf8),
                                  kSecAttrAccessControl: access] as CFDictionary,
        ]
        let outcome = capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
        #expect(outcome.value == nil)
        let error = try #require(outcome.error)
        #expect(CFErrorGetCode(error) == Int(errSecAuthFailed))
        expectReasonNamesTheCause((error as NSError).localizedDescription)
        let lookup = scratch.copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("bio-key".utf8)])
        #expect(lookup.0 == errSecItemNotFound)
    }
}
