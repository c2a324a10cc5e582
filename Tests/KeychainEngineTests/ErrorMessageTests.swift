import Foundation
import KeychainServices
import Testing

/// SecCopyErrorMessageString (§2, item 71).
@Suite("Conformance: error messages")
struct ErrorMessageTests {
    @Test("71 SecCopyErrorMessageString: -25300, -34018 by Apple's text; an unknown code → \"OSStatus <n>\"")
    func messages() {
        #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) as String? == "The specified item could not be found in the keychain.")
        #expect(SecCopyErrorMessageString(errSecMissingEntitlement, nil) as String? == "A required entitlement isn't present.")
        #expect(SecCopyErrorMessageString(12345, nil) as String? == "OSStatus 12345")
    }

    @Test("2 the messages of every status the SecItem calls return")
    func secItemStatusMessages() {
        let expected: [(OSStatus, String)] = [
            (errSecSuccess, "No error."),
            (errSecUnimplemented, "Function or operation not implemented."),
            (errSecParam, "One or more parameters passed to a function were not valid."),
            (errSecNotAvailable, "No keychain is available. You may need to restart your computer."),
            (errSecAuthFailed, "The user name or passphrase you entered is not correct."),
            (errSecDuplicateItem, "The specified item already exists in the keychain."),
            (errSecNoSuchAttr, "The specified attribute does not exist."),
            (errSecNoSuchClass, "The specified item does not appear to be a valid keychain item."),
            (errSecInteractionNotAllowed, "User interaction is not allowed."),
            (errSecDecode, "Unable to decode the provided data."),
        ]
        for (status, message) in expected {
            #expect(SecCopyErrorMessageString(status, nil) as String? == message, "\(status)")
        }
    }
}
