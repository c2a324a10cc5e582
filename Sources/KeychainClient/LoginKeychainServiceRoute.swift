#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The seam between the keychain lifecycle (``KeychainFileCalls``, under Apple's `SecKeychainCreate`,
/// `SecKeychainUnlock`, `SecKeychainLock`, `SecKeychainGetStatus`, `SecKeychainCopySettings`,
/// `SecKeychainSetSettings` and the private `SecKeychainChangePassword`) and the keychain service:
/// when `KEYCHAINKIT_SERVICE_SOCKET` is set and the call names the default keychain (or none), it
/// goes to the service, which holds the caller's login keychain and its class keys; otherwise
/// nothing here runs. A named keychain file of the user's own stays an embedded one.
package enum LoginKeychainServiceRoute {
    /// The service's socket when a call on `path` (nil: the default keychain) goes to the service.
    package static func socket(for path: String?) -> String? {
        guard let socket = ItemCallRoute.socketPath else { return nil }
        guard let path else { return socket }
        return ItemEdge.swift.lifecycle.resolve(path) == ItemEdge.swift.lifecycle.defaultKeychainPath ? socket : nil
    }

    /// Creates the login keychain in the service with `password` (none when nil or empty).
    package static func create(password: Data?, socket: String) throws(KeychainCallFailure) {
        _ = try call(.createKeychain, password: password, socket: socket)
    }

    /// Unlocks the login keychain in the service with `password`; with nil, succeeds only when
    /// it is unlocked already or has no password (`errSecInteractionNotAllowed` otherwise).
    package static func unlock(password: Data?, socket: String) throws(KeychainCallFailure) {
        _ = try call(.unlockKeychain, password: password, socket: socket)
    }

    /// Locks the login keychain in the service.
    package static func lock(socket: String) throws(KeychainCallFailure) {
        _ = try call(.lockKeychain, password: nil, socket: socket)
    }

    /// Whether the login keychain in the service is unlocked.
    package static func isUnlocked(socket: String) throws(KeychainCallFailure) -> Bool {
        try state(socket: socket).isUnlocked
    }

    /// The login keychain's auto-lock interval in seconds (0: never).
    package static func lockInterval(socket: String) throws(KeychainCallFailure) -> UInt32 {
        try state(socket: socket).lockInterval
    }

    /// The login keychain's auto-lock interval in seconds (0: never) and whether the service locks
    /// it when the machine sleeps.
    package static func settings(socket: String) throws(KeychainCallFailure) -> (lockInterval: UInt32, lockOnSleep: Bool) {
        let state = try state(socket: socket)
        return (state.lockInterval, state.lockOnSleep)
    }

    /// Stores the login keychain's auto-lock interval (0: never) and whether the service locks it
    /// when the machine sleeps.
    package static func setSettings(lockInterval: UInt32, lockOnSleep: Bool, socket: String) throws(KeychainCallFailure) {
        _ = try ServiceKeychainCall.reply(to: .setSettings, [WireEntry(key: ServiceRequest.lockIntervalKey, value: .integer(Int64(lockInterval))),
                                    WireEntry(key: ServiceRequest.lockOnSleepKey, value: .bool(lockOnSleep))], socket: socket)
    }

    /// Changes the login keychain's password in the service (empty: none); a wrong old password
    /// is `errSecAuthFailed` and changes nothing.
    package static func changePassword(from oldPassword: Data, to newPassword: Data, socket: String) throws(KeychainCallFailure) {
        _ = try ServiceKeychainCall.reply(to: .changePassword, [WireEntry(key: ServiceRequest.passwordKey, value: .data(oldPassword)),
                                       WireEntry(key: ServiceRequest.newPasswordKey, value: .data(newPassword))], socket: socket)
    }

    private static func state(socket: String) throws(KeychainCallFailure) -> KeychainState {
        let reply = try call(.keychainStatus, password: nil, socket: socket)
        guard let state = KeychainState(reply.result) else {
            let failure = KeychainStoreError.notAvailable("the keychain service sent a status this client does not read")
            throw KeychainCallFailure(status: failure.osStatus, failure: failure)
        }
        return state
    }

    private static func call(_ operation: ServiceRequest.Operation, password: Data?, socket: String) throws(KeychainCallFailure) -> ServiceReply {
        try ServiceKeychainCall.reply(to: operation, password.map { [WireEntry(key: ServiceRequest.passwordKey, value: .data($0))] } ?? [], socket: socket)
    }
}
