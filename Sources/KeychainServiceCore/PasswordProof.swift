#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainPrimitives
import KeychainVocabulary

/// Checks the keychain password a user gives to prove it is them — not merely a program running
/// as them — before the service records a grant or honours a consent answer. The service
/// verifies it itself against the user's keychain (nothing a client says counts), and a wrong one
/// makes that user wait before the next proof is even tried: 1 s after the first failure, doubling
/// to 60 s, so a program of the user's cannot guess through the socket at the speed of scrypt.
///
/// Every wrong password also counts toward the service's ``WrongPasswordDelay``, shared with
/// unlock and password change, and its wait refuses proofs too: a grant or a consent answer is
/// no cheaper a way to guess the password than an unlock.
final class PasswordProof: @unchecked Sendable {
    private let lock = ThreadLock()
    private var failures: [UInt32: (count: Int, retryAt: ContinuousClock.Instant)] = [:]
    private let keychains: UserKeychains
    private let delay: WrongPasswordDelay

    /// The longest wait after wrong passwords given as proof.
    static let maximumDelaySeconds = 60

    init(keychains: UserKeychains, delay: WrongPasswordDelay) {
        self.keychains = keychains
        self.delay = delay
    }

    /// Verifies `password` for user `uid`'s keychain, after any other password attempt of `uid`
    /// has ended. A keychain without a password cannot be proved with (any program of the user
    /// could "prove" it): `errSecAuthFailed` with the fix.
    func verify(_ password: Data, uid: UInt32, now: ContinuousClock.Instant = .now) throws(KeychainStoreError) {
        let outcome = delay.oneAtATime(for: uid) { () -> Result<Void, KeychainStoreError> in
            Result { () throws(KeychainStoreError) in try check(password, uid: uid, now: now) }
        }
        try outcome.get()
    }

    private func check(_ password: Data, uid: UInt32, now: ContinuousClock.Instant) throws(KeychainStoreError) {
        if let wait = delay.remainingWait(of: uid, now: now) {
            throw KeychainStoreError(.notAvailable(WrongPasswordDelay.refusal(wait)), status: .authFailed)
        }
        if let wait = lock.withLock({ failures[uid].map { $0.retryAt > now ? $0.retryAt - now : nil } ?? nil }) {
            let seconds = Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up))
            throw KeychainStoreError(.notAvailable("too many wrong keychain passwords: try again in \(max(seconds, 1)) s"), status: .authFailed)
        }
        let keychain = try keychains.keychain(of: uid, creating: false)
        var hasPassword = false, wrong = false
        do {
            let database = try KeychainLifecycle(registry: keychain.registry).existingKeychain(keychain.keychainPath)
            hasPassword = try database.status.hasPassword
            if hasPassword {
                // A wrong password is counted; any other failure (a damaged file) is reported as it is.
                let verified = Result { () throws(KeychainStoreError) in try database.verify(password: password) }
                if case .failure(let failure) = verified {
                    guard failure.osStatus == KeychainStatus.authFailed.rawValue else { throw failure }
                    wrong = true
                }
            }
        } catch let failure as KeychainCallFailure {
            throw failure.failure ?? KeychainStoreError(status: KeychainStatus(rawValue: failure.status))
        } catch let failure as KeychainStoreError {
            throw failure
        } catch {
            throw KeychainStoreError(.notAvailable("cannot check the keychain password: \(error)"))
        }
        guard hasPassword else {
            throw KeychainStoreError(.notAvailable("your keychain in the service has no password, so nothing can prove it is you: "
                                                   + "give it one first (keychainctl set-keychain-password)"), status: .authFailed)
        }
        if wrong {
            let count = lock.withLock { () -> Int in
                let count = (failures[uid]?.count ?? 0) + 1
                failures[uid] = (count, now + .seconds(min(1 << min(count - 1, 6), Self.maximumDelaySeconds)))
                return count
            }
            delay.recordWrongPassword(of: uid, now: now)
            throw KeychainStoreError(.notAvailable("wrong keychain password (\(count) in a row); nothing was changed"), status: .authFailed)
        }
        lock.withLock { _ = failures.removeValue(forKey: uid) }
        delay.recordRightPassword(of: uid)
    }
}
