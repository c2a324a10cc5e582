#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The calls on a caller's login keychain itself — create with a password, unlock, lock, status,
/// change the password, the auto-lock settings (interval and lock-on-sleep) — answered with Apple's `SecKeychain…` statuses. The class keys an unlock opens stay in the
/// service's memory (locked pages, not dumpable) until a lock, the idle timeout or the service's
/// end; they are never sent to a client. A wrong password is `errSecAuthFailed` and unlocks nothing.
enum LoginKeychainCalls {
    /// The reply to the keychain call `request` on `keychain`. The passwords are wiped from the
    /// request's copy when the call is done.
    static func reply(to request: ServiceRequest, on keychain: ServedKeychain) -> ServiceReply {
        var password = data(ServiceRequest.passwordKey, in: request)
        var newPassword = data(ServiceRequest.newPasswordKey, in: request)
        defer {
            wipe(&password)
            wipe(&newPassword)
        }
        let lifecycle = KeychainLifecycle(registry: keychain.registry)
        do {
            switch request.operation {
            case .createKeychain:
                try lifecycle.create(at: keychain.keychainPath, password: password)
            case .unlockKeychain:
                try lifecycle.unlock(keychain.keychainPath, password: password)
            case .lockKeychain:
                try lifecycle.lock(keychain.keychainPath)
            case .keychainStatus:
                let database = try lifecycle.existingKeychain(keychain.keychainPath)
                let status = try perform { () throws(KeychainStoreError) in try database.status }
                let state = KeychainState(isUnlocked: status.isUnlocked, hasPassword: status.hasPassword,
                                          lockInterval: UInt32(clamping: status.autoLockSeconds),
                                          lockOnSleep: LockOnSleepSetting.isSet(for: keychain))
                return ServiceReply(status: 0, result: state.wireValue)
            case .changePassword:
                // The store re-wraps every item key under new class keys; the service keeps the
                // new keys (the keychain stays unlocked) and the old password opens nothing after.
                try lifecycle.changePassword(keychain.keychainPath, from: password, to: newPassword)
            case .setSettings:
                guard case .integer(let seconds)? = entry(ServiceRequest.lockIntervalKey, in: request),
                      case .bool(let lockOnSleep)? = entry(ServiceRequest.lockOnSleepKey, in: request) else {
                    return ServiceReply(status: KeychainStatus.param.rawValue, failureReason: "the settings call lacks its settings")
                }
                try lifecycle.setAutoLockSeconds(Int(seconds), keychain.keychainPath)
                try perform { () throws(KeychainStoreError) in try LockOnSleepSetting.set(lockOnSleep, for: keychain) }
            case .add, .copyMatching, .update, .delete, .grantApplication, .revokeApplication, .listApplicationGrants, .answerConsent,
                 .importItems, .exportItems, .readAccessLog, .forwardedAdd, .forwardedCopyMatching, .forwardedUpdate, .forwardedDelete,
                 .readSecretServiceAccess, .changeSecretServiceAccess, .readSecretServicePolicy,
                 .createTokenKey, .useTokenKey, .tokenPublicKey, .answerAuthentication:
                return ServiceReply(status: KeychainStatus.param.rawValue, failureReason: "not a keychain call")
            }
            return ServiceReply(status: 0)
        } catch {
            return ServiceReply(status: error.status, failureReason: error.failure.map(reason) ?? defaultReason(error.status))
        }
    }

    private static func wipe(_ secret: inout Data?) {
        let count = secret?.count ?? 0
        secret?.resetBytes(in: 0..<count)
    }

    private static func entry(_ key: String, in request: ServiceRequest) -> WireValue? {
        request.query.first { $0.key == key }?.value
    }

    private static func data(_ key: String, in request: ServiceRequest) -> Data? {
        if case .data(let bytes)? = entry(key, in: request) { return bytes }
        return nil
    }

    private static func perform<T>(_ body: () throws(KeychainStoreError) -> T) throws(KeychainCallFailure) -> T {
        do { return try body() } catch { throw KeychainCallFailure(status: error.osStatus, failure: error) }
    }

    /// The words of `failure` for the client (never a password: the store's errors name files and causes).
    private static func reason(_ failure: KeychainStoreError) -> String {
        if case .notAvailable(let what) = failure.reason { return what }
        return failure.description
    }

    private static func defaultReason(_ status: Int32) -> String {
        switch status {
        case KeychainStatus.noSuchKeychain.rawValue:
            return "you have no login keychain in the keychain service yet (keychainctl create-keychain, or log in through pam_keychainkit)"
        case KeychainStatus.duplicateKeychain.rawValue: return "your login keychain in the keychain service exists already"
        case KeychainStatus.interactionNotAllowed.rawValue: return "the login keychain is locked: unlock it with its password"
        default: return "the keychain call failed"
        }
    }
}
