#if KEYCHAINKIT_REIMPLEMENTED && os(Linux)  // mirrors the conditions on the KeychainClient and KeychainAudit dependencies
import KeychainAudit
import KeychainClient

/// What the tools print when the access log cannot record: the log says which keychain call
/// failed; the keychain knows why (a device key that is not the keychain's own, a refused
/// `KEYCHAINKIT_REQUIRE`, a loose file) and how to fix it. Read right after the failure, on the
/// same thread (`KeychainClient.failureReason(for:)`).
package enum AccessLogFailure {
    /// One line: the cause and the fix when the keychain knew them, else the log's own description.
    package static func describe(_ error: AccessLogError) -> String {
        guard case .keychain(let status, _, let keychain) = error, let reason = KeychainClient.failureReason(for: status) else {
            return error.description
        }
        return "the access log of \(keychain) cannot be written: \(reason)"
    }

    /// The exit status: the low byte of the keychain's status when a keychain call failed (53 for a
    /// keychain that cannot be used here, as the same refusal gives elsewhere), 36 locked, 65 the
    /// log was altered, else 1.
    package static func exitCode(for error: AccessLogError) -> Int32 {
        switch error {
        case .keychainLocked: return 36
        case .altered: return 65
        case .keychain(let status, _, _): return Int32(UInt8(truncatingIfNeeded: status))
        default: return 1
        }
    }
}
#endif
