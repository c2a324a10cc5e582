// LAContext: the authentication context that keychain calls receive under
// kSecUseAuthenticationContext. It carries the prompt texts, whether interaction is allowed,
// and an application password for items protected with kSecAccessControlApplicationPassword.

import Foundation
import KeychainEngine

/// Apple: `LAContext`, an authentication context.
///
/// It holds the texts and switches that govern authentication prompts, and credentials
/// (an application password) that SecItem calls use instead of prompting. Credentials stay
/// in this object's memory only: they never appear in its description or reflection and are
/// wiped on `invalidate()`, when replaced, and when the context is released.
///
/// `canEvaluatePolicy(_:error:)` and `evaluatePolicy(_:localizedReason:reply:)` are in
/// `LAContext+Evaluation.swift`: the device passcode is the default keychain's password,
/// asked through a pinentry prompt; biometry is a fingerprint verified by fprintd
/// (`LAContext+Biometry.swift`).
///
/// All members may be used from any thread.
open class LAContext: NSObject, @unchecked Sendable {
    /// The mutable state, guarded by `lock`.
    private struct State {
        var localizedReason = ""
        var localizedCancelTitle: String?
        var localizedFallbackTitle: String?
        var interactionNotAllowed = false
        var reuseDuration: TimeInterval = 0
        var credentials: [LACredentialType: SecretBytes] = [:]
        var invalidated = false
        /// Keychains (by identity) whose owner this context authenticated; reused without a prompt.
        var authenticatedKeychains: Set<Data> = []
        /// The biometric domain state of this context's last fingerprint verification.
        var verifiedBiometricDomainState: Data?
        /// The domain state `evaluatedPolicyDomainState` reports.
        var evaluatedDomainState: Data?
        /// What `canEvaluatePolicy` found.
        var biometryType: LABiometryType = .none
        /// How to reach fprintd (the process's configuration, read once); nil: biometry is never used.
        var biometry: BiometryConfiguration? = KeychainLifecycle.apple.registry.configuration.authenticator.biometry
    }

    private let lock = NSLock()
    private var state = State()

    /// Apple: a new context, with no credentials and default texts.
    public override init() {
        super.init()
    }

    /// Apple: the reason shown in authentication prompts of keychain operations using this
    /// context. Empty by default.
    open var localizedReason: String {
        get { lock.withLock { state.localizedReason } }
        set { lock.withLock { state.localizedReason = newValue } }
    }

    /// Apple: the title of the prompt's cancel button; `nil` means the default title.
    open var localizedCancelTitle: String? {
        get { lock.withLock { state.localizedCancelTitle } }
        set { lock.withLock { state.localizedCancelTitle = newValue } }
    }

    /// Apple: the title of the prompt's fallback button; `nil` means the default title, an
    /// empty string hides the button.
    open var localizedFallbackTitle: String? {
        get { lock.withLock { state.localizedFallbackTitle } }
        set { lock.withLock { state.localizedFallbackTitle = newValue } }
    }

    /// Apple: when `true`, operations that would need to show an authentication prompt fail
    /// instead (keychain calls return `errSecInteractionNotAllowed`).
    open var interactionNotAllowed: Bool {
        get { lock.withLock { state.interactionNotAllowed } }
        set { lock.withLock { state.interactionNotAllowed = newValue } }
    }

    /// Apple: for how many seconds a recent biometric device unlock counts as authentication
    /// for this context. Values are clamped to 0 ...
    /// `LATouchIDAuthenticationMaximumAllowableReuseDuration` (a NaN counts as 0).
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { lock.withLock { state.reuseDuration } }
        set {
            let clamped = newValue.isNaN
                ? 0
                : min(max(newValue, 0), LATouchIDAuthenticationMaximumAllowableReuseDuration)
            lock.withLock { state.reuseDuration = clamped }
        }
    }

    /// Apple: the biometry the device offers, known once `canEvaluatePolicy(_:error:)` has been
    /// called (`.none` before, as on Apple platforms): `.touchID` when fprintd reports a
    /// fingerprint reader, enrolled or not.
    open var biometryType: LABiometryType {
        lock.withLock { state.biometryType }
    }

    /// Apple: the digest of the enrolled fingers as of the last successful biometric
    /// `canEvaluatePolicy` or `evaluatePolicy`; it changes when a finger is enrolled or deleted.
    /// Nil before, and without a fingerprint reader.
    open var evaluatedPolicyDomainState: Data? {
        lock.withLock { state.evaluatedDomainState }
    }

    /// Apple: sets (or, with `nil`, clears) the credential of `type` that later keychain calls
    /// with this context use, such as the application password of items protected with
    /// `kSecAccessControlApplicationPassword`.
    ///
    /// Returns `true` when the credential was stored or cleared; `false` once the context has
    /// been invalidated.
    @discardableResult
    open func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        let outcome: (accepted: Bool, previous: SecretBytes?) = lock.withLock {
            guard !state.invalidated else { return (false, nil) }
            let previous = state.credentials.removeValue(forKey: type)
            if let credential {
                state.credentials[type] = SecretBytes(credential)
            }
            return (true, previous)
        }
        outcome.previous?.wipe()
        return outcome.accepted
    }

    /// Apple: whether a credential of `type` is set.
    @discardableResult
    open func isCredentialSet(_ type: LACredentialType) -> Bool {
        lock.withLock { state.credentials[type] != nil }
    }

    /// Apple: invalidates the context: its credentials are wiped, and it can no longer
    /// authenticate anything.
    open func invalidate() {
        let secrets: [SecretBytes] = lock.withLock {
            state.invalidated = true
            state.authenticatedKeychains.removeAll()
            state.verifiedBiometricDomainState = nil
            let all = Array(state.credentials.values)
            state.credentials.removeAll()
            return all
        }
        for secret in secrets {
            secret.wipe()
        }
    }

    // MARK: Engine access

    /// The credential of `type`, for the keychain engine; `nil` when none is set.
    func credential(for type: LACredentialType) -> Data? {
        lock.withLock { state.credentials[type]?.data }
    }

    /// Whether `invalidate()` has been called.
    package var isInvalidated: Bool {
        lock.withLock { state.invalidated }
    }

    /// Whether this context authenticated the owner of the keychain with this identity.
    package func hasAuthenticatedOwner(ofKeychain keychainID: Data) -> Bool {
        lock.withLock { !state.invalidated && state.authenticatedKeychains.contains(keychainID) }
    }

    /// Records an owner authentication for reuse by later calls with this context.
    package func recordOwnerAuthentication(ofKeychain keychainID: Data) {
        lock.withLock {
            if !state.invalidated { state.authenticatedKeychains.insert(keychainID) }
        }
    }

    /// The biometric domain state of this context's last successful fingerprint verification.
    package var biometricAuthenticationDomainState: Data? {
        lock.withLock { state.invalidated ? nil : state.verifiedBiometricDomainState }
    }

    /// Records a fingerprint verification made against `domainState`, for reuse by later calls.
    package func recordBiometricAuthentication(domainState: Data) {
        lock.withLock {
            guard !state.invalidated else { return }
            state.verifiedBiometricDomainState = domainState
            state.evaluatedDomainState = domainState
        }
    }

    /// How this context reaches fprintd: the system bus by default (`DBUS_SYSTEM_BUS_ADDRESS`);
    /// tests point it at a private bus, and nil turns biometry off.
    package var biometryConfiguration: BiometryConfiguration? {
        get { lock.withLock { state.biometry } }
        set { lock.withLock { state.biometry = newValue } }
    }

    /// Records what `canEvaluatePolicy` learned about the fingerprint reader.
    func recordBiometryProbe(type: LABiometryType, domainState: Data?) {
        lock.withLock {
            state.biometryType = type
            if let domainState { state.evaluatedDomainState = domainState }
        }
    }
}

extension LAContext: CustomReflectable {
    /// Reflection without secrets: shows whether credentials are set, never their bytes.
    public var customMirror: Mirror {
        let snapshot = lock.withLock { state }
        return Mirror(
            self,
            children: [
                "localizedReason": snapshot.localizedReason,
                "localizedCancelTitle": snapshot.localizedCancelTitle as Any,
                "localizedFallbackTitle": snapshot.localizedFallbackTitle as Any,
                "interactionNotAllowed": snapshot.interactionNotAllowed,
                "touchIDAuthenticationAllowableReuseDuration": snapshot.reuseDuration,
                "credentialTypesSet": snapshot.credentials.keys.map(\.rawValue).sorted(),
                "invalidated": snapshot.invalidated,
            "authenticatedKeychains": snapshot.authenticatedKeychains.count,
            "biometryType": snapshot.biometryType,
            ],
            displayStyle: .class
        )
    }
}

/// Secret bytes in a buffer this process owns alone, overwritten with zeros by `wipe()`.
/// (Copies the caller made, or made of `data`, are outside its reach.)
private final class SecretBytes: @unchecked Sendable, CustomStringConvertible, CustomReflectable {
    private let lock = NSLock()
    private var bytes: [UInt8]

    init<Bytes: Sequence>(_ source: Bytes) where Bytes.Element == UInt8 {
        bytes = Array(source)
    }

    /// A copy of the secret.
    var data: Data {
        lock.withLock { Data(bytes) }
    }

    /// Overwrites the secret with zeros and empties the buffer.
    func wipe() {
        lock.withLock {
            bytes.withUnsafeMutableBytes { buffer in
                if let base = buffer.baseAddress {
                    memset(base, 0, buffer.count)
                }
            }
            bytes.removeAll()
        }
    }

    var description: String { "<secret>" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    deinit {
        wipe()
    }
}
