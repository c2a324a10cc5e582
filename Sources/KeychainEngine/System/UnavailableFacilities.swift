#if !os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainLinux dependency in Package.swift
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The operating-system services the engine's policies use, where the Linux integration is not
/// built (Apple platforms, where the engine is the hermetic keychain of unit tests): no prompt can
/// be shown, there is no fingerprint service and no kernel keyring, so every authentication that
/// needs the user fails as not interactive or not available, as Apple's keychain does without UI.
/// See `LinuxFacilities.swift` for the Linux side.
enum SystemFacilities {
    /// No prompt program: every prompt fails as not interactive.
    static func askPassword(_ configuration: PinentryConfiguration, title: String, description: String,
                            prompt: String, error: String?) throws(OwnerAuthenticationFailure) -> Data {
        throw .notInteractive
    }

    /// No system bus is used here.
    static var systemBusAddress: String { "" }

    /// No fingerprint service: biometry is not available.
    static func fingerprintState(_ configuration: BiometryConfiguration) throws(BiometryStateUnavailable) -> BiometryState {
        throw BiometryStateUnavailable(.biometryNotAvailable, absence: .noService)
    }

    /// No fingerprint service: biometry is not available.
    static func verifyFingerprint(_ configuration: BiometryConfiguration,
                                  isCancelled: () -> Bool) throws(OwnerAuthenticationFailure) -> BiometryState {
        throw .biometryNotAvailable
    }

    /// No kernel keyring: unlocks are never shared between processes.
    enum Keyring {
        /// Sharing is unavailable.
        static var isAvailable: Bool { false }
        /// Nothing is stored.
        static func store(_ description: String, payload: [UInt8], timeoutSeconds: Int) -> Bool { false }
        /// Nothing is found.
        static func contains(_ description: String) -> Bool { false }
        /// Nothing is found.
        static func read(_ description: String) -> [UInt8]? { nil }
        /// Nothing to remove.
        static func remove(_ description: String) -> Bool { true }
    }
}
#endif
